/**
 * The registry's promise: an estimator is one module plus one line of the table. A toy
 * classifier defined here, registered with one call and nothing else, builds from its record,
 * compiles, and serves from its compiled file exactly as from its state; its own `check`
 * is what refuses a damaged file.
 */
import { expect } from 'chai'
import { rmSync } from 'node:fs'
import path from 'node:path'
import { loadCompiledModel } from '../../src/compiled/load-compiled.js'
import { writeCompiled } from '../../src/compiled/write.js'
import { ServiceError } from '../../src/errors.js'
import { createServedPredictor, decodeServedModel } from '../../src/model/served-model.js'
import { DType, NdArray } from '../../src/pickle/numpy.js'
import { PyObject } from '../../src/pickle/values.js'
import { defineEstimator, type Classifier, type EstimatorState } from '../../src/sklearn/estimator.js'
import { attr, float64Array, readClasses } from '../../src/sklearn/record.js'
import { buildEstimator, registerEstimator } from '../../src/sklearn/registry.js'
import type { SparseRow } from '../../src/sklearn/sparse-row.js'
import { Fields, MAX_FEATURES } from '../../src/sklearn/state-fields.js'
import { DEFAULT_PATHS, joinCompiled, readBytes, splitCompiled, tempDir, writeBytes } from '../helpers/compiled-files.js'

interface ToyState extends EstimatorState {
  readonly classes: readonly string[]
  readonly nFeatures: number
  /** One weight per feature: the second class when the row's weighted sum is above 0. */
  readonly weights: Float64Array
}

function check (state: unknown, where: string): asserts state is ToyState {
  const f = new Fields(state, where)
  f.strings('classes', 2)
  f.array('weights', Float64Array, f.int('nFeatures', 1, MAX_FEATURES))
}

function create (state: ToyState): Classifier {
  return {
    kind: state.kind,
    nFeatures: state.nFeatures,
    classes: state.classes,
    hasProba: false,
    hasDecision: true,
    confidence: 'decision_function',
    params: {},
    score: (row: SparseRow) => {
      let sum = 0
      for (let e = 0; e < row.indices.length; e++) sum += row.values[e]! * state.weights[row.indices[e]!]!
      return { classIndex: sum > 0 ? 1 : 0, decision: Float64Array.of(sum), proba: undefined }
    }
  }
}

const toyClassifier = defineEstimator<ToyState, 'classifier'>({
  type: 'toy-sign',
  role: 'classifier',
  names: ['ToySignClassifier'],
  build: obj => {
    const weights = float64Array(attr(obj, 'weights_'), `${obj.name}.weights_`, [-1])
    return { type: 'toy-sign', kind: obj.name, classes: readClasses(attr(obj, 'classes_'), obj.name), nFeatures: weights.length, weights }
  },
  check,
  create
})

/** A fitted ToySignClassifier record, as unpickling one would give it. */
function toyRecord (classes: readonly string[], weights: Float64Array): PyObject {
  const record = new PyObject('sklearn.toy', 'ToySignClassifier')
  record.setState(new Map<unknown, unknown>([
    ['classes_', new NdArray(new DType('<U8'), [classes.length], [...classes])],
    ['weights_', new NdArray(new DType('<f8'), [weights.length], weights)]
  ]) as never)
  return record
}

describe('a new estimator module: one module and one registration', function () {
  this.timeout(120_000)
  const dir = tempDir('tfsc-toy-')
  before(() => { registerEstimator(toyClassifier) })
  after(() => rmSync(dir, { recursive: true, force: true }))
  const TEXTS = ['a fine film, truly great', 'awful awful awful', 'the plot was dull but the acting great', '']

  it('builds from its record, and its compiled file answers as its state does, to the bit', async () => {
    const decoded = await decodeServedModel({ paths: DEFAULT_PATHS, settingsFile: null })
    const n = (decoded.state.classifier as unknown as { nFeatures: number }).nFeatures
    // Positive weights: a text with a known term is 'pos', the empty text 'neg'.
    const weights = Float64Array.from({ length: n }, (_, j) => 1 + (j % 7) / 8)
    const toy = buildEstimator('classifier', toyRecord(['neg', 'pos'], weights))
    expect(toy).to.include({ type: 'toy-sign', kind: 'ToySignClassifier', nFeatures: n })
    const state = { ...decoded.state, classifier: toy, labels: null }
    const direct = await createServedPredictor(state, null)
    const file = path.join(dir, 'toy.tfsc')
    writeCompiled(file, { state, app: null, notes: [] }, { product: 'test', sources: [] })
    const loaded = await loadCompiledModel(file, null)
    expect(loaded.info.classes).to.deep.equal(['neg', 'pos'])
    const labels = new Set<string>()
    for (const text of TEXTS) {
      const a = loaded.predictor.predict(text)
      const b = direct.predict(text)
      expect(a.label, text).to.equal(b.label)
      expect(a.decision, text).to.deep.equal(b.decision)
      expect(a.confidence, text).to.equal(b.confidence)
      labels.add(a.label)
    }
    expect([...labels].sort()).to.deep.equal(['neg', 'pos'])

    // Its own check stands between a damaged compiled file and `create`.
    const parts = splitCompiled(readBytes(file))
    const classifier = (parts.body.tree as { state: { classifier: { nFeatures: number } } }).state.classifier
    classifier.nFeatures += 1
    const damaged = writeBytes(path.join(dir, 'damaged.tfsc'), joinCompiled(parts))
    const err = await loadCompiledModel(damaged, null).then(() => undefined, (e: unknown) => e)
    expect(err).to.be.instanceOf(ServiceError)
    expect((err as ServiceError).message).to.match(/^compiled model: state\.classifier\.weights has \d+ values, not \d+ in .*damaged\.tfsc$/)
  })

  it('is refused from a record its check refuses, as its build ends with that check', () => {
    const err = (() => { try { buildEstimator('classifier', toyRecord(['neg', 'pos'], new Float64Array(0))) } catch (e) { return e } })()
    expect(err).to.be.instanceOf(ServiceError)
    expect((err as ServiceError).message).to.equal('ToySignClassifier.nFeatures is 0, not an integer in 1..2147483647')
  })
})
