/**
 * HistGradientBoostingClassifier against scikit-learn 1.2.1 and 1.6.1
 * (test/fixtures/hist-gradient-boosting, made by test/fixtures/treeshap/generate_hgb.py):
 * labels equal, probabilities and decisions within 1e-9 on the 397 texts of
 * test/fixtures/treeshap/texts.json, binary and multi-class, alone (fed `.toarray()` rows)
 * and in a Pipeline; what it refuses; and its state through a compiled file's checks.
 */
import { expect } from 'chai'
import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { checkEstimatorState } from '../../src/compiled/check-estimators.js'
import { ServiceError } from '../../src/errors.js'
import { DType, NdArray } from '../../src/pickle/numpy.js'
import { readPickleFile } from '../../src/pickle/read-pickle-file.js'
import { PyObject } from '../../src/pickle/values.js'
import { loadModel } from '../../src/sklearn/load-model.js'
import { buildEstimator, createEstimator } from '../../src/sklearn/registry.js'
import { FIXTURES } from '../helpers/paths.js'
import { expectParity, modelPathsOf, readExpected } from '../helpers/parity.js'
import { buildError, errorOf, stateOf } from '../helpers/records.js'

const DIR = path.join(FIXTURES, 'hist-gradient-boosting')
const TEXTS = (JSON.parse(readFileSync(path.join(FIXTURES, 'treeshap', 'texts.json'), 'utf8')) as { texts: string[] }).texts
const VERSIONS = readdirSync(DIR).filter(name => /^\d+\.\d+\.\d+$/.test(name)).sort()

describe('HistGradientBoostingClassifier answers as scikit-learn 1.2.1 and 1.6.1 do', () => {
  it('has fixtures from both versions, binary and multi-class, alone and in a Pipeline', () => {
    expect(VERSIONS).to.deep.equal(['1.2.1', '1.6.1'])
    expect(TEXTS.length).to.be.at.least(300)
  })

  for (const version of VERSIONS) {
    describe(`scikit-learn ${version}`, () => {
      for (const name of readdirSync(path.join(DIR, version)).sort()) {
        const dir = path.join(DIR, version, name)
        const expected = readExpected(dir)
        it(`${name}: labels equal, probabilities and decisions within 1e-9 on ${expected.predict.length} texts (${expected.note})`, async () => {
          expect(expected.predict.length).to.equal(TEXTS.length)
          const { predictor } = await loadModel(modelPathsOf(dir, expected))
          expect(predictor.info.classifier).to.equal('HistGradientBoostingClassifier')
          expectParity(predictor, expected, TEXTS)
          // Early stopping keeps only the fitted iterations: n_iter_ of them.
          const model = (await readPickleFile(path.join(dir, expected.files.at(-1)!))) as PyObject
          const booster = model.name === 'Pipeline' ? (model.get('steps') as Array<{ items: unknown[] }>).at(-1)!.items[1] as PyObject : model
          const state = buildEstimator('classifier', booster) as unknown as { trees: unknown[] }
          expect(state.trees.length, 'trees').to.equal((expected as unknown as { n_iter: number }).n_iter * (expected.classes.length === 2 ? 1 : expected.classes.length))
        })
      }
    })
  }
})

describe('HistGradientBoostingClassifier files it refuses, and its compiled state', () => {
  const MODEL = path.join(FIXTURES, 'treeshap', 'sklearn-1.6.1', 'hgb-binary', 'final_best_model.pkl')
  const record = async (): Promise<PyObject> => (await readPickleFile(MODEL)) as PyObject
  /** The first tree's node columns, to edit in place. */
  const rootNodes = (r: PyObject): Map<string, ArrayLike<number | bigint> & Record<number, number | bigint>> =>
    (((r.get('_predictors') as PyObject[][])[0]![0]!).get('nodes') as NdArray).data as Map<string, ArrayLike<number | bigint> & Record<number, number | bigint>>

  it('a categorical split, in one line naming the setting', async () => {
    const r = await record()
    rootNodes(r).get('is_categorical')![0] = 1
    const err = buildError(r)
    expect(err.code).to.equal('ERR_MODEL_UNSUPPORTED')
    expect(err.message).to.match(/_predictors\[0\]\[0\] splits on a categorical feature: HistGradientBoostingClassifier with categorical_features is not supported/)
    expect(err.message).to.not.include('\n')
  })

  it('categorical features declared (is_categorical_), though no tree splits on one', async () => {
    const r = await record()
    stateOf(r).set('is_categorical_', new NdArray(new DType('|b1'), [2000], new Uint8Array(2000).fill(1, 5, 6)))
    expect(buildError(r).message).to.match(/HistGradientBoostingClassifier with categorical_features is not supported/)
  })

  it('a child outside the node array', async () => {
    const r = await record()
    const left = rootNodes(r).get('left')!
    left[0] = typeof left[0] === 'bigint' ? 100000n : 100000
    const err = buildError(r)
    expect(err.code).to.equal('ERR_MODEL_SHAPE')
    expect(err.message).to.match(/_predictors\[0\]\[0\]\.nodes: node 0 has child 100000/)
  })

  it('a loss that is not log_loss, or a baseline of the wrong size', async () => {
    const r = await record()
    stateOf(r).set('_loss', new PyObject('sklearn._loss.loss', 'HalfSquaredError'))
    expect(buildError(r).message).to.match(/loss is .*HalfSquaredError.*, not log_loss/)
    const r2 = await record()
    stateOf(r2).set('_baseline_prediction', new NdArray(new DType('<f8'), [1, 2], Float64Array.of(0, 0)))
    expect(buildError(r2).message).to.match(/_baseline_prediction is an array of shape \(1, 2\), not 1 value/)
  })

  it('an iteration without its tree', async () => {
    const r = await record()
    ;(r.get('_predictors') as unknown[][])[3] = []
    expect(buildError(r).message).to.match(/_predictors\[3\] has 0 trees for 1 per iteration/)
  })

  it('its state passes a compiled file\'s checks, and a damaged one does not', async () => {
    const state = buildEstimator('classifier', await record()) as unknown as Record<string, unknown> & { trees: Array<Record<string, unknown>> }
    checkEstimatorState('classifier', state, 'model')
    const damaged = (edit: (s: typeof state) => void): ServiceError => {
      const copy = structuredClone(state)
      edit(copy)
      return errorOf(() => checkEstimatorState('classifier', copy, 'model'))
    }
    expect(damaged(s => { s.trees[2]!.cover = new Float64Array(1) }).message).to.match(/model\.trees\[2\]\.nodes has 1 node weights/)
    expect(damaged(s => { s.k = 2 }).message).to.match(/model\.k/)
    expect(damaged(s => { s.loss = 'multinomial' }).message).to.match(/model\.loss/)
    expect(damaged(s => { s.baseline = new Float64Array(2) }).message).to.match(/model\.baseline/)
    expect(damaged(s => { (s.trees[0]!.left as Int32Array)[0] = 0 }).message).to.match(/model\.trees\[0\]/)
  })
})

describe('HistGradientBoostingClassifier predict: argmax of predict_proba before 1.4, of the raw scores from 1.4', () => {
  // Every leaf 0 and a baseline of 1e-300 for one class: its probability rounds to that of the
  // others, its raw score does not. scikit-learn's own answers for the same edit of these files
  // (1.2.1 and 1.6.1): 'ham' / 'spam' for binary, 'mixed' / 'negative' (class 0 / class 1) for 4 classes.
  const EMPTY = { indices: new Int32Array(0), values: new Float64Array(0), float32: false }
  for (const [version, binary, multi] of [['1.2.1', 0, 0], ['1.6.1', 1, 1]] as const) {
    for (const [name, baseline, classIndex] of [['hgb-binary', [1e-300], binary], ['hgb-multi', [0, 1e-300, 0, 0], multi]] as const) {
      it(`${version} ${name}: class ${classIndex}`, async () => {
        const r = (await readPickleFile(path.join(FIXTURES, 'treeshap', `sklearn-${version}`, name, 'final_best_model.pkl'))) as PyObject
        for (const iteration of r.get('_predictors') as PyObject[][]) {
          for (const p of iteration) ((p.get('nodes') as NdArray).data as Map<string, Float64Array>).get('value')!.fill(0)
        }
        stateOf(r).set('_baseline_prediction', new NdArray(new DType('<f8'), [1, baseline.length], Float64Array.from(baseline)))
        const scores = createEstimator('classifier', buildEstimator('classifier', r)).score(EMPTY)
        expect(scores.classIndex).to.equal(classIndex)
        expect(Array.from(scores.proba!)).to.deep.equal(baseline.length === 1 ? [0.5, 0.5] : [0.25, 0.25, 0.25, 0.25])
        expect(Array.from(scores.decision!)).to.deep.equal(baseline)
      })
    }
  }
})
