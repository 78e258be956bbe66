/**
 * scikit-learn's MLPClassifier: `_forward_pass_fast`, `predict` and `predict_proba`
 * (identical in 1.0 through 1.9.1; checked against 1.2.1, 1.6.1 and 1.9.1).
 *
 * The first layer is `X @ coefs_[0]` on the CSR row (scipy's csr_matvecs: entries in
 * stored order, the intercept added after the sum), later layers are dense. Weights
 * fitted on float32 input are float32; predict multiplies float64 X by them and adds
 * float32 intercepts into a float64 result, so widening them to float64 is exact.
 * (Only a float32 vectorizer feeding float32 weights would make scikit-learn run the
 * whole pass in float32; that pairing is computed in float64 here, ~1e-7 apart.)
 */
import { NdArray } from '../../pickle/numpy.js'
import { PyObject } from '../../pickle/values.js'
import { defineEstimator, probabilistic, type Classifier, type EstimatorState, type Scores } from '../estimator.js'
import { argmax, expit, softmaxInPlace, sparseDotPlus } from '../math.js'
import { attr, choice, int, items, numericArray, param, readClasses, shapeError, toFloat64, unsupported } from '../record.js'
import type { SparseRow } from '../sparse-row.js'
import { Fields, MAX_FEATURES, shapeProblem, typedArray } from '../state-fields.js'

export type Activation = 'identity' | 'logistic' | 'tanh' | 'relu'

export interface MlpState extends EstimatorState {
  readonly classes: readonly string[]
  /** coefs_[i] as stored: sizes[i] rows of sizes[i + 1] values (input-major, as sparseDotPlus takes it). */
  readonly coefs: readonly Float64Array[]
  readonly intercepts: readonly Float64Array[]
  /** Layer widths: nFeatures, the hidden sizes, nOutputs. */
  readonly sizes: readonly number[]
  readonly activation: Activation
  /** 'logistic' for two classes (one output), 'softmax' for more. */
  readonly outActivation: 'logistic' | 'softmax'
  readonly params: Readonly<Record<string, unknown>>
}

const ACTIVATIONS: readonly Activation[] = ['identity', 'logistic', 'tanh', 'relu']

/** coefs_ and intercepts_, checked to chain: layer i is (sizes[i], sizes[i + 1]), its intercept sizes[i + 1]. */
function readLayers (obj: PyObject): { coefs: Float64Array[], intercepts: Float64Array[], sizes: number[] } {
  const name = obj.name
  const coefValues = items(attr(obj, 'coefs_'), `${name}.coefs_`)
  const interceptValues = items(attr(obj, 'intercepts_'), `${name}.intercepts_`)
  if (coefValues.length === 0) shapeError(`${name}.coefs_ is empty`)
  if (interceptValues.length !== coefValues.length) shapeError(`${name}.intercepts_ has ${interceptValues.length} arrays for ${coefValues.length} in coefs_`)
  const layers = obj.has('n_layers_') ? int(obj, 'n_layers_') : coefValues.length + 1
  if (layers !== coefValues.length + 1) shapeError(`${name}.coefs_ has ${coefValues.length} arrays but n_layers_ is ${layers}`)
  const sizes: number[] = []
  const coefs = coefValues.map((value, i) => {
    const array = numericArray(value, `${name}.coefs_[${i}]`, 2)
    const [rows, cols] = array.shape as [number, number]
    if (i > 0 && rows !== sizes[i]) shapeError(`${name}.coefs_[${i}] has shape (${rows}, ${cols}) but coefs_[${i - 1}] has ${sizes[i]!} columns`)
    if (i === 0) sizes.push(rows)
    sizes.push(cols)
    return toFloat64(array, `${name}.coefs_[${i}]`).slice()
  })
  const intercepts = interceptValues.map((value, i) => {
    const array = numericArray(value, `${name}.intercepts_[${i}]`, 1)
    if (array.size !== sizes[i + 1]) shapeError(`${name}.intercepts_[${i}] has ${array.size} values for the ${sizes[i + 1]!} columns of coefs_[${i}]`)
    return toFloat64(array, `${name}.intercepts_[${i}]`).slice()
  })
  return { coefs, intercepts, sizes }
}

function hiddenSizes (value: unknown): number[] | number | null {
  if (typeof value === 'number') return value
  if (value instanceof NdArray) return Array.from(toFloat64(value, 'hidden_layer_sizes'))
  try {
    return items(value, 'hidden_layer_sizes').map(v => typeof v === 'number' ? v : Number(v))
  } catch {
    return null
  }
}

function build (obj: PyObject): MlpState {
  const name = obj.name
  const classes = readClasses(attr(obj, 'classes_'), name)
  const binarizer = param(obj, '_label_binarizer', null)
  const yType = binarizer instanceof PyObject ? binarizer.get('y_type_') : undefined
  if (yType === 'multilabel-indicator') unsupported(`${name} was fitted on multilabel targets; tfidf-serve predicts one label per text`)
  const { coefs, intercepts, sizes } = readLayers(obj)
  const outputs = sizes[sizes.length - 1]!
  const expected = classes.length === 2 ? 1 : classes.length
  if (outputs !== expected) shapeError(`${name}.coefs_[${coefs.length - 1}] has ${outputs} output columns for ${classes.length} classes`)
  if (obj.has('n_outputs_') && int(obj, 'n_outputs_') !== outputs) shapeError(`${name}.n_outputs_ is ${int(obj, 'n_outputs_')} but coefs_ ends with ${outputs} columns`)
  const outActivation = choice(obj, 'out_activation_', ['logistic', 'softmax'], outputs === 1 ? 'logistic' : 'softmax')
  if ((outActivation === 'softmax') !== (outputs > 1)) {
    unsupported(`${name}.out_activation_ is '${outActivation}' with ${outputs} outputs for ${classes.length} classes`)
  }
  const activation = choice(obj, 'activation', ACTIVATIONS, 'relu')
  return {
    type: 'mlp',
    kind: name,
    classes,
    coefs,
    intercepts,
    sizes,
    activation,
    outActivation,
    params: { activation, hidden_layer_sizes: hiddenSizes(param(obj, 'hidden_layer_sizes', null)), solver: param(obj, 'solver', null), alpha: param(obj, 'alpha', null) }
  }
}

/** The hidden activation in place (neural_network/_base.py ACTIVATIONS). */
function activate (kind: Activation, a: Float64Array): void {
  switch (kind) {
    case 'identity': return
    case 'relu':
      // np.maximum(X, 0): NaN stays NaN, as Math.max keeps it.
      for (let k = 0; k < a.length; k++) a[k] = Math.max(a[k]!, 0)
      return
    case 'tanh':
      for (let k = 0; k < a.length; k++) a[k] = Math.tanh(a[k]!)
      return
    case 'logistic':
      for (let k = 0; k < a.length; k++) a[k] = expit(a[k]!)
  }
}

/** h @ W + b for a dense h (BLAS in scikit-learn: the same products, summed in another order, ~1e-16 apart). */
function denseLayer (h: Float64Array, w: Float64Array, b: Float64Array): Float64Array {
  const outputs = b.length
  const out = new Float64Array(outputs)
  for (let j = 0; j < h.length; j++) {
    const v = h[j]!
    if (v === 0) continue
    const base = j * outputs
    for (let k = 0; k < outputs; k++) out[k]! += v * w[base + k]!
  }
  for (let k = 0; k < outputs; k++) out[k]! += b[k]!
  return out
}

/** `_forward_pass_fast` for one row: the output layer's activations. */
function forwardPass (state: Pick<MlpState, 'coefs' | 'intercepts' | 'activation' | 'outActivation'>, row: SparseRow): Float64Array {
  const { coefs, intercepts, activation } = state
  let a = sparseDotPlus(row.indices, row.values, coefs[0]!, intercepts[0]!.length, intercepts[0]!)
  for (let i = 1; i < coefs.length; i++) {
    activate(activation, a)
    a = denseLayer(a, coefs[i]!, intercepts[i]!)
  }
  if (state.outActivation === 'softmax') return softmaxInPlace(a)
  for (let k = 0; k < a.length; k++) a[k] = expit(a[k]!)
  return a
}

function create (state: MlpState): Classifier {
  return probabilistic({
    kind: state.kind,
    nFeatures: state.sizes[0]!,
    classes: state.classes,
    params: state.params,
    score: (row: SparseRow): Scores => {
      const out = forwardPass(state, row)
      if (out.length === 1) {
        // predict: LabelBinarizer.inverse_transform thresholds p(class 1) at 0.5 (strict);
        // predict_proba: np.vstack([1 - p, p]).T.
        const p = out[0]!
        return { classIndex: p > 0.5 ? 1 : 0, proba: Float64Array.of(1 - p, p), decision: undefined }
      }
      return { classIndex: argmax(out), proba: out, decision: undefined }
    }
  })
}

/** What create and scoring rely on in a MlpState (from a compiled file, or just built). */
function check (state: unknown, where: string): asserts state is MlpState {
  const f = new Fields(state, where)
  const k = f.strings('classes', 2).length
  const sizes = f.numbers('sizes')
  if (sizes.length < 2 || !sizes.every(n => Number.isInteger(n) && n >= 1 && n <= MAX_FEATURES)) throw shapeProblem(`${where}.sizes`, 'are not two or more layer widths')
  if (sizes[sizes.length - 1] !== (k === 2 ? 1 : k)) throw shapeProblem(`${where}.sizes`, `end in ${sizes[sizes.length - 1]!} outputs for ${k} classes`)
  const coefs = f.list('coefs', sizes.length - 1)
  const intercepts = f.list('intercepts', sizes.length - 1)
  if (coefs.length !== sizes.length - 1 || intercepts.length !== sizes.length - 1) throw shapeProblem(where, `has ${coefs.length} layers of weights for ${sizes.length} widths`)
  coefs.forEach((c, i) => typedArray(c, `${where}.coefs[${i}]`, Float64Array, sizes[i]! * sizes[i + 1]!))
  intercepts.forEach((b, i) => typedArray(b, `${where}.intercepts[${i}]`, Float64Array, sizes[i + 1]!))
  f.oneOf('activation', ['identity', 'relu', 'tanh', 'logistic'])
  f.oneOf('outActivation', [k === 2 ? 'logistic' : 'softmax'])
  f.object('params')
}

export const mlpClassifier = defineEstimator<MlpState, 'classifier'>({
  type: 'mlp',
  role: 'classifier',
  names: ['MLPClassifier'],
  build,
  check,
  create
})
