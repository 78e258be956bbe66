import { expect } from 'chai'
import path from 'node:path'
import { ServiceError } from '../../src/errors.js'
import { DType, NdArray } from '../../src/pickle/numpy.js'
import { readPickleFile } from '../../src/pickle/read-pickle-file.js'
import { PyObject } from '../../src/pickle/values.js'
import type { VotingState } from '../../src/sklearn/classifiers/voting.js'
import type { Classifier } from '../../src/sklearn/estimator.js'
import { buildEstimator, createEstimator } from '../../src/sklearn/registry.js'
import type { SparseRow } from '../../src/sklearn/sparse-row.js'
import { FIXTURES } from '../helpers/paths.js'
import { buildError, errorOf, stateOf } from '../helpers/records.js'

const CASES = path.join(FIXTURES, 'estimators')

/** The model record of a fixture case, read afresh (tests corrupt it). */
async function record (name: string, version = '1.9.1'): Promise<PyObject> {
  const value = await readPickleFile(path.join(CASES, version, name, 'final_best_model.pkl'))
  expect(value).to.be.instanceOf(PyObject)
  return value as PyObject
}

const get = (obj: PyObject, name: string): unknown => obj.get(name)
const set = (obj: PyObject, name: string, value: unknown): void => { stateOf(obj).set(name, value) }
const list = (obj: PyObject, name: string): unknown[] => obj.get(name) as unknown[]

const float64 = (shape: number[], v?: number[]): NdArray =>
  new NdArray(new DType('<f8'), shape, v === undefined ? new Float64Array(shape.reduce((a, b) => a * b, 1)) : Float64Array.from(v))

/** Built fine; creating (still part of load) is refused. */
const createError = (obj: PyObject): ServiceError => {
  const state = buildEstimator('classifier', obj)
  return errorOf(() => createEstimator('classifier', state))
}
const classifierOf = (obj: PyObject): Classifier => createEstimator('classifier', buildEstimator('classifier', obj))

const EMPTY_ROW: SparseRow = { indices: new Int32Array(0), values: new Float64Array(0), float32: false }
const ROWS: SparseRow[] = [
  EMPTY_ROW,
  { indices: Int32Array.of(3, 10, 57, 200), values: Float64Array.of(0.5, 0.3, 0.7, 0.4), float32: false },
  { indices: Int32Array.of(1, 99, 150, 320, 399), values: Float64Array.of(0.2, 0.6, 0.1, 0.5, 0.58), float32: false },
  { indices: Int32Array.of(42), values: Float64Array.of(1), float32: false }
]

describe('meta-estimators and MLP refuse corrupt records at load', () => {
  describe('MLPClassifier', () => {
    it('refuses coefs_ layers that do not chain, naming the layer', async () => {
      const mlp = await record('mlp-relu')
      list(mlp, 'coefs_')[1] = float64([15, 4])
      const err = buildError(mlp)
      expect(err.code).to.equal('ERR_MODEL_SHAPE')
      expect(err.message).to.equal('MLPClassifier.coefs_[1] has shape (15, 4) but coefs_[0] has 16 columns')
    })

    it('refuses an intercept of the wrong length', async () => {
      const mlp = await record('mlp-relu')
      list(mlp, 'intercepts_')[0] = float64([15])
      const err = buildError(mlp)
      expect(err.code).to.equal('ERR_MODEL_SHAPE')
      expect(err.message).to.equal('MLPClassifier.intercepts_[0] has 15 values for the 16 columns of coefs_[0]')
    })

    it('refuses an output layer that does not fit the classes', async () => {
      const mlp = await record('mlp-relu')
      list(mlp, 'coefs_')[1] = float64([16, 3])
      list(mlp, 'intercepts_')[1] = float64([3])
      const err = buildError(mlp)
      expect(err.code).to.equal('ERR_MODEL_SHAPE')
      expect(err.message).to.equal('MLPClassifier.coefs_[1] has 3 output columns for 4 classes')
    })

    it('refuses a layer count that disagrees with n_layers_', async () => {
      const mlp = await record('mlp-tanh-binary')
      set(mlp, 'n_layers_', 5)
      const err = buildError(mlp)
      expect(err.code).to.equal('ERR_MODEL_SHAPE')
      expect(err.message).to.equal('MLPClassifier.coefs_ has 3 arrays but n_layers_ is 5')
    })

    it('refuses an activation it does not know', async () => {
      const mlp = await record('mlp-relu')
      set(mlp, 'activation', 'softplus')
      const err = buildError(mlp)
      expect(err.code).to.equal('ERR_MODEL_UNSUPPORTED')
      expect(err.message).to.equal("MLPClassifier.activation is 'softplus'; supported: identity, logistic, tanh, relu")
    })

    it('widens float32 weights: the same outputs as the float64 record', async () => {
      const mlp = await record('mlp-relu')
      const before = classifierOf(mlp)
      const to32 = (a: NdArray): NdArray => new NdArray(new DType('<f4'), a.shape, Float32Array.from(a.data as Float64Array))
      const coefs = list(mlp, 'coefs_') as NdArray[]
      const intercepts = list(mlp, 'intercepts_') as NdArray[]
      const rounded = (a: NdArray): NdArray => new NdArray(new DType('<f8'), a.shape, Float64Array.from(a.data as Float64Array, Math.fround))
      const mlp32 = await record('mlp-relu')
      set(mlp32, 'coefs_', coefs.map(to32))
      set(mlp32, 'intercepts_', intercepts.map(to32))
      set(mlp, 'coefs_', coefs.map(rounded))
      set(mlp, 'intercepts_', intercepts.map(rounded))
      const widened = classifierOf(mlp32)
      const reference = classifierOf(mlp)
      for (const row of ROWS) {
        expect(Array.from(widened.score(row).proba!)).to.deep.equal(Array.from(reference.score(row).proba!))
      }
      expect(before.nFeatures).to.equal(widened.nFeatures)
    })
  })

  describe('VotingClassifier', () => {
    it('refuses weights of the wrong length', async () => {
      const voting = await record('voting-hard-weights')
      set(voting, 'weights', [1, 2])
      const err = buildError(voting)
      expect(err.code).to.equal('ERR_MODEL_SHAPE')
      expect(err.message).to.equal('VotingClassifier.weights has 2 values for 3 estimators')
    })

    it('refuses an inner estimator it does not serve, naming where it is', async () => {
      const voting = await record('voting-hard')
      list(voting, 'estimators_')[1] = new PyObject('sklearn.neighbors._classification', 'RadiusNeighborsClassifier')
      const err = buildError(voting)
      expect(err.code).to.equal('ERR_MODEL_UNSUPPORTED')
      expect(err.message).to.match(/^VotingClassifier\.estimators_\[1\]: RadiusNeighborsClassifier is not supported/)
    })

    it('refuses an inner estimator whose classes are not the encoded classes', async () => {
      const voting = await record('voting-hard')
      const calibrated = await record('calibrated-sigmoid') // same texts, fitted on the labels themselves
      const cc = list(calibrated, 'calibrated_classifiers_')[0] as PyObject
      list(voting, 'estimators_')[0] = get(cc, 'estimator')
      const err = createError(voting)
      expect(err.code).to.equal('ERR_MODEL_SHAPE')
      expect(err.message).to.equal('VotingClassifier.estimators_[0] has class negative, not one of the encoded classes 0..1')
    })

    it('refuses inner estimators whose feature counts differ', async () => {
      const voting = await record('voting-hard')
      const lr = list(voting, 'estimators_')[0] as PyObject
      set(lr, 'coef_', float64([1, 399]))
      const err = createError(voting)
      expect(err.code).to.equal('ERR_MODEL_SHAPE')
      expect(err.message).to.equal('VotingClassifier.estimators_[1] (MultinomialNB) expects 400 features but VotingClassifier.estimators_[0] expects 399')
    })

    it('hard voting: confidence is the weighted share of votes for the predicted class', async () => {
      for (const [name, weights] of [['voting-hard', [1, 1, 1]], ['voting-hard-weights', [1, 2, 1]]] as const) {
        const state = buildEstimator('classifier', await record(name)) as VotingState
        const voting = createEstimator('classifier', state)
        const members = state.estimators.map(s => createEstimator('classifier', s))
        expect(voting.confidence).to.equal('votes')
        expect([voting.hasProba, voting.hasDecision]).to.deep.equal([false, false])
        const total = weights.reduce((a, b) => a + b, 0)
        for (const row of ROWS) {
          const s = voting.score(row)
          const labels = members.map(m => Number(m.classes[m.score(row).classIndex]))
          const share = labels.reduce((sum, label, e) => sum + (label === s.classIndex ? weights[e]! : 0), 0) / total
          expect(s.confidence, name).to.equal(share)
          expect(s.confidence).to.be.greaterThan(0)
        }
      }
    })
  })

  describe('CalibratedClassifierCV', () => {
    it('refuses a calibrator count that does not fit the inner decision_function', async () => {
      const calibrated = await record('calibrated-isotonic')
      const cc = list(calibrated, 'calibrated_classifiers_')[1] as PyObject
      list(cc, 'calibrators').pop()
      const err = createError(calibrated)
      expect(err.code).to.equal('ERR_MODEL_SHAPE')
      expect(err.message).to.equal('CalibratedClassifierCV.calibrated_classifiers_[1].calibrators has 3 calibrators for the 4 columns of LinearSVC.decision_function')
    })

    it('refuses two calibrators for two classes', async () => {
      const calibrated = await record('calibrated-sigmoid')
      const cc = list(calibrated, 'calibrated_classifiers_')[0] as PyObject
      list(cc, 'calibrators').push(list(cc, 'calibrators')[0])
      const err = buildError(calibrated)
      expect(err.code).to.equal('ERR_MODEL_SHAPE')
      expect(err.message).to.equal('CalibratedClassifierCV.calibrated_classifiers_[0].calibrators has 2 calibrators; two classes take one')
    })

    it('refuses fold classes that differ from classes_', async () => {
      const calibrated = await record('calibrated-no-ensemble')
      const cc = list(calibrated, 'calibrated_classifiers_')[0] as PyObject
      const classes = get(cc, 'classes') as NdArray
      set(cc, 'classes', new NdArray(classes.dtype, [2], (classes.data as string[]).slice(0, 2)))
      const err = buildError(calibrated)
      expect(err.code).to.equal('ERR_MODEL_SHAPE')
      expect(err.message).to.match(/^CalibratedClassifierCV\.calibrated_classifiers_\[0\]\.classes \(negative, neutral\) differ from/)
    })

    it('reads 1.0 records (base_estimator) and 1.6+ FrozenEstimator wrappers alike', async () => {
      const reference = classifierOf(await record('calibrated-sigmoid'))
      const old = await record('calibrated-sigmoid')
      const frozen = await record('calibrated-sigmoid')
      for (const cc of list(old, 'calibrated_classifiers_') as PyObject[]) {
        set(cc, 'base_estimator', get(cc, 'estimator'))
        stateOf(cc).delete('estimator')
      }
      for (const cc of list(frozen, 'calibrated_classifiers_') as PyObject[]) {
        const wrapper = new PyObject('sklearn.frozen._frozen', 'FrozenEstimator')
        wrapper.setState(new Map([['estimator', get(cc, 'estimator')]]))
        set(cc, 'estimator', wrapper)
      }
      for (const obj of [old, frozen]) {
        const c = classifierOf(obj)
        for (const row of ROWS) expect(Array.from(c.score(row).proba!)).to.deep.equal(Array.from(reference.score(row).proba!))
      }
      const p = reference.score(ROWS[1]!).proba!
      expect(p[0]! + p[1]!).to.be.closeTo(1, 1e-15)
    })

    it("method 'temperature' (1.8+): softmax(beta_ * [-d, d]) of a binary decision, averaged over folds", async () => {
      const calibrated = await record('calibrated-sigmoid')
      set(calibrated, 'method', 'temperature')
      const folds = list(calibrated, 'calibrated_classifiers_') as PyObject[]
      for (const cc of folds) {
        const scaling = new PyObject('sklearn.calibration', '_TemperatureScaling')
        scaling.setState(new Map([['beta_', 1.7]]))
        set(cc, 'method', 'temperature')
        set(cc, 'calibrators', [scaling])
      }
      const c = classifierOf(calibrated)
      const svcs = folds.map(cc => createEstimator('classifier', buildEstimator('classifier', get(cc, 'estimator'))))
      for (const row of ROWS.slice(1)) {
        const p1 = svcs.reduce((sum, svc) => sum + 1 / (1 + Math.exp(-2 * 1.7 * svc.score(row).decision![0]!)), 0) / svcs.length
        const p = c.score(row).proba!
        expect(p[1]).to.be.closeTo(p1, 1e-15)
        expect(p[0]).to.be.closeTo(1 - p1, 1e-15)
      }
    })
  })

  describe('StackingClassifier', () => {
    it('refuses stack_method_ of another length than estimators_', async () => {
      const stacking = await record('stacking-passthrough')
      list(stacking, 'stack_method_').pop()
      const err = buildError(stacking)
      expect(err.code).to.equal('ERR_MODEL_SHAPE')
      expect(err.message).to.equal('StackingClassifier.stack_method_ has 1 methods for 2 estimators in estimators_')
    })

    it('refuses a stack method the estimator lacks', async () => {
      const stacking = await record('stacking-passthrough')
      list(stacking, 'stack_method_')[1] = 'decision_function' // a DecisionTreeClassifier
      const err = createError(stacking)
      expect(err.code).to.equal('ERR_MODEL_UNSUPPORTED')
      expect(err.message).to.equal('StackingClassifier.estimators_[1] (DecisionTreeClassifier) has no decision_function, which stack_method_[1] names')
    })

    it('refuses a final estimator whose width is not the meta columns plus passthrough', async () => {
      const stacking = await record('stacking-passthrough')
      set(stacking, 'passthrough', false)
      const err = createError(stacking)
      expect(err.code).to.equal('ERR_MODEL_SHAPE')
      expect(err.message).to.equal('StackingClassifier.final_estimator_ (LogisticRegression) expects 402 features but the estimators give 2')
    })
  })

  describe('OneVsRestClassifier and OneVsOneClassifier', () => {
    it('refuses an estimator count that does not fit the classes', async () => {
      const ovr = await record('one-vs-rest-svc')
      list(ovr, 'estimators_').pop()
      let err = buildError(ovr)
      expect(err.code).to.equal('ERR_MODEL_SHAPE')
      expect(err.message).to.equal('OneVsRestClassifier.estimators_ has 3 estimators for 4 classes (expected 4)')
      const ovo = await record('one-vs-one-logreg')
      const pairs = get(ovo, 'estimators_') as { items: unknown[] }
      set(ovo, 'estimators_', pairs.items.slice(0, 5))
      err = buildError(ovo)
      expect(err.code).to.equal('ERR_MODEL_SHAPE')
      expect(err.message).to.equal('OneVsOneClassifier.estimators_ has 5 estimators for 4 classes (expected 6)')
    })

    it('OvR predict ties: the last class up to 1.7, the first from 1.8', async () => {
      const labels: Record<string, number> = {}
      for (const version of ['1.2.1', '1.6.1', '1.7.2', '1.8.0', '1.9.1']) {
        const ovr = await record('one-vs-rest-svc')
        const first = list(ovr, 'estimators_')[0]
        set(ovr, 'estimators_', [first, first, first, first])
        set(ovr, '_sklearn_version', version)
        const s = classifierOf(ovr).score(ROWS[1]!)
        expect(new Set(s.decision)).to.have.property('size', 1)
        labels[version] = s.classIndex
      }
      expect(labels).to.deep.equal({ '1.2.1': 3, '1.6.1': 3, '1.7.2': 3, '1.8.0': 0, '1.9.1': 0 })
    })

    it('OvR predict_proba of a row that sums to zero: NaN up to 1.6, zeros from 1.7', async () => {
      const probas: Record<string, number[]> = {}
      for (const version of ['1.6.1', '1.7.0', '1.9.1']) {
        const ovr = await record('one-vs-rest-nb')
        for (const nb of list(ovr, 'estimators_') as PyObject[]) set(nb, 'class_log_prior_', float64([2], [0, -1000]))
        set(ovr, '_sklearn_version', version)
        probas[version] = Array.from(classifierOf(ovr).score(EMPTY_ROW).proba!)
      }
      expect(probas).to.deep.equal({ '1.6.1': [NaN, NaN, NaN], '1.7.0': [0, 0, 0], '1.9.1': [0, 0, 0] })
    })

    it('OvR over LinearSVC has decision_function only; over MultinomialNB predict_proba only', async () => {
      const svc = classifierOf(await record('one-vs-rest-svc'))
      const nb = classifierOf(await record('one-vs-rest-nb'))
      expect([svc.hasProba, svc.hasDecision, svc.confidence]).to.deep.equal([false, true, 'decision_function'])
      expect([nb.hasProba, nb.hasDecision, nb.confidence]).to.deep.equal([true, false, 'predict_proba'])
      expect(svc.score(ROWS[2]!).decision).to.have.length(4)
    })
  })
})
