import { expect } from 'chai'
import path from 'node:path'
import { DType, NdArray } from '../../src/pickle/numpy.js'
import { readPickleFile } from '../../src/pickle/read-pickle-file.js'
import { SparseMatrix } from '../../src/pickle/scipy-sparse.js'
import { PyObject } from '../../src/pickle/values.js'
import { multiclassProbability, ovrDecision, sigmoidPredict } from '../../src/sklearn/classifiers/svc.js'
import { buildEstimator, createEstimator } from '../../src/sklearn/registry.js'
import { FIXTURES } from '../helpers/paths.js'
import { buildError, stateOf } from '../helpers/records.js'

const CASES = path.join(FIXTURES, 'estimators', '1.9.1')

/** The SVC record of a fixture case (the final step when the file holds a Pipeline). */
async function svcRecord (file: string): Promise<PyObject> {
  const value = await readPickleFile(path.join(CASES, file))
  expect(value).to.be.instanceOf(PyObject)
  return value as PyObject
}

function set (record: PyObject, name: string, value: unknown): void {
  stateOf(record).set(name, value)
}

const int32 = (...v: number[]): NdArray => new NdArray(new DType('<i4'), [v.length], Int32Array.from(v))
const float64 = (shape: number[], v: number[]): NdArray => new NdArray(new DType('<f8'), shape, Float64Array.from(v))

const EMPTY_ROW = { indices: new Int32Array(0), values: new Float64Array(0), float32: false }

describe('SVC / NuSVC', () => {
  // svc-rbf-proba: 3 classes, 491 support vectors (94, 268, 129) in csr, 400 features.
  const RBF = 'svc-rbf-proba/final_best_model.pkl'
  // svc-dense-fit: 5 classes, 194 dense support vectors, 400 features.
  const DENSE = 'svc-dense-fit/final_best_model.z.joblib'

  it('builds the fixture records it is given unchanged', async () => {
    for (const file of [RBF, DENSE]) {
      const state = buildEstimator('classifier', await svcRecord(file))
      expect(state.type).to.equal('svc')
    }
  })

  context('refuses models whose arrays do not fit, naming the attribute (ERR_MODEL_SHAPE)', () => {
    it('support_vectors_ narrower than the features it was fitted on', async () => {
      const record = await svcRecord(RBF)
      ;(record.get('support_vectors_') as SparseMatrix).shape = [491, 300]
      const err = buildError(record)
      expect(err.code).to.equal('ERR_MODEL_SHAPE')
      expect(err.message).to.contain('support_vectors_').and.to.contain('300')
    })

    it('dense support_vectors_ of another width than n_features_in_', async () => {
      const record = await svcRecord(DENSE)
      set(record, 'support_vectors_', float64([194, 2], new Array(388).fill(0)))
      ;(record.state as Map<unknown, unknown>).delete('shape_fit_')
      const err = buildError(record)
      expect(err.code).to.equal('ERR_MODEL_SHAPE')
      expect(err.message).to.contain('support_vectors_').and.to.contain('n_features_in_')
    })

    it('_n_support that does not sum to the number of support vectors', async () => {
      const record = await svcRecord(RBF)
      set(record, '_n_support', int32(94, 268, 128))
      const err = buildError(record)
      expect(err.code).to.equal('ERR_MODEL_SHAPE')
      expect(err.message).to.contain('_n_support').and.to.contain('490')
    })

    it('negative or oversized _n_support', async () => {
      for (const counts of [[-1, 363, 129], [492, 0, 0]]) {
        const record = await svcRecord(RBF)
        set(record, '_n_support', int32(...counts))
        const err = buildError(record)
        expect(err.code).to.equal('ERR_MODEL_SHAPE')
        expect(err.message).to.contain('_n_support[0]')
      }
    })

    it('_n_support with an entry per class missing', async () => {
      const record = await svcRecord(RBF)
      set(record, '_n_support', int32(94, 397))
      const err = buildError(record)
      expect(err.code).to.equal('ERR_MODEL_SHAPE')
      expect(err.message).to.contain('_n_support has 2 entries for 3 classes')
    })

    it('a dense _dual_coef_ truncated to fewer support vectors', async () => {
      const record = await svcRecord(DENSE)
      set(record, '_dual_coef_', float64([4, 100], new Array(400).fill(0.5)))
      const err = buildError(record)
      expect(err.code).to.equal('ERR_MODEL_SHAPE')
      expect(err.message).to.contain('_dual_coef_ has shape (4, 100), expected (4, 194)')
    })

    it('a sparse _dual_coef_ that lost stored entries (libsvm reads its .data as the full matrix)', async () => {
      const record = await svcRecord(RBF)
      const dual = record.get('_dual_coef_') as SparseMatrix
      const data = dual.data.data as Float64Array
      dual.data = float64([data.length - 1], Array.from(data.subarray(1)))
      const err = buildError(record)
      expect(err.code).to.equal('ERR_MODEL_SHAPE')
      expect(err.message).to.contain('_dual_coef_ stores 981 values; libsvm reads all 982')
    })

    it('_intercept_ with a value per class instead of per class pair', async () => {
      const record = await svcRecord(DENSE)
      set(record, '_intercept_', float64([5], [0, 0, 0, 0, 0]))
      const err = buildError(record)
      expect(err.code).to.equal('ERR_MODEL_SHAPE')
      expect(err.message).to.contain('_intercept_ has 5 values for 10 class pairs')
    })

    it('_probA of the wrong length', async () => {
      const record = await svcRecord(RBF)
      set(record, '_probA', float64([2], [-1, -1]))
      const err = buildError(record)
      expect(err.code).to.equal('ERR_MODEL_SHAPE')
      expect(err.message).to.contain('_probA has 2 values for 3 class pairs')
    })
  })

  it('refuses break_ties with decision_function_shape ovo, as scikit-learn predict does', async () => {
    const record = await svcRecord(RBF)
    set(record, 'break_ties', true)
    set(record, 'decision_function_shape', 'ovo')
    const err = buildError(record)
    expect(err.code).to.equal('ERR_MODEL_UNSUPPORTED')
    expect(err.message).to.contain('break_ties')
  })

  it("serves 1.9's probability='deprecated' as probability=False", async () => {
    const record = await svcRecord(RBF)
    set(record, 'probability', 'deprecated')
    const svc = createEstimator('classifier', buildEstimator('classifier', record))
    expect(svc.hasProba).to.equal(false)
    expect(svc.score(EMPTY_ROW).proba).to.equal(undefined)
  })

  it('follows libsvm and scikit-learn on decision values of exactly 0', async () => {
    // svc-rbf-ovr has 4 classes; a linear kernel on an empty row gives kernel values 0,
    // so with zero intercepts every pairwise decision value is 0.
    const record = await svcRecord('svc-rbf-ovr/final_best_model.pkl')
    set(record, 'kernel', 'linear')
    set(record, '_intercept_', float64([6], [0, 0, 0, 0, 0, 0]))
    const plain = createEstimator('classifier', buildEstimator('classifier', record)).score(EMPTY_ROW)
    // libsvm votes for j when dec > 0 fails: class 3 collects 3 votes.
    expect(plain.classIndex).to.equal(3)
    // The ovr transform votes for i when dec < 0 fails.
    expect(Array.from(plain.decision!)).to.deep.equal([3, 2, 1, 0])
    set(record, 'break_ties', true)
    expect(createEstimator('classifier', buildEstimator('classifier', record)).score(EMPTY_ROW).classIndex).to.equal(0)
  })

  it('sets the confidence of the ovo shape from the ovr transform of its values', async () => {
    const record = await svcRecord('svc-poly-ovo/final_best_model.pkl')
    const scores = createEstimator('classifier', buildEstimator('classifier', record)).score(EMPTY_ROW)
    expect(scores.decision!.length).to.equal(3)
    expect(scores.confidence).to.be.within(1 / 3, 1)
  })

  it("couples two classes with libsvm's iteration, which stops short of the plain sigmoid", () => {
    const p = sigmoidPredict(0.3, -1.5, 0.1)
    const r = Float64Array.of(0, p, 1 - p, 0)
    const coupled = multiclassProbability(2, r)
    expect(coupled[0]! + coupled[1]!).to.be.closeTo(1, 1e-15)
    expect(Math.abs(coupled[0]! - p)).to.be.greaterThan(1e-6).and.lessThan(5e-3)
  })

  it('computes the ovr transform in scikit-learn order', () => {
    const d = ovrDecision(Float64Array.of(0.5, -2, 1), 3)
    // votes [1, 1, 1]; summed confidences [-1.5, 0.5, 1]
    expect(Array.from(d)).to.deep.equal([1 + -1.5 / (3 * 2.5), 1 + 0.5 / (3 * 1.5), 1 + 1 / (3 * 2)])
  })
})
