/**
 * scikit-learn's linear classifiers (LinearClassifierMixin): LogisticRegression(CV),
 * LinearSVC, SGDClassifier, RidgeClassifier(CV), Perceptron, PassiveAggressiveClassifier.
 * decision = X @ coef_.T + intercept_ (scipy's csr_matvecs order: row entries in
 * stored order, intercept added after), predict = decision > 0 or argmax.
 *
 * dtype follows numpy's promotion: a float32 row times a float32 coef_ (scikit-learn 1.9's
 * lbfgs, and sag/saga/newton solvers in every version, keep float32 when fitted on float32
 * rows) is a float32 dot product, plus the intercept in its own dtype; then expit is
 * scipy's float32 expit and softmax numpy's float32 exp (float32.ts), bit for bit.
 */
import { NdArray } from '../../pickle/numpy.js'
import { SparseMatrix } from '../../pickle/scipy-sparse.js'
import type { PyObject } from '../../pickle/values.js'
import { defineEstimator, type Classifier, type EstimatorState, type Scores } from '../estimator.js'
import { expitFloat32, numpySumFloat32, softmaxFloat32InPlace } from '../float32.js'
import { argmax, expit, numpySum, softmaxInPlace, sparseDotFloat32, sparseDotPlus, transposed } from '../math.js'
import { attr, describe, forEachEntry, isFloat32, numericArray, param, readClasses, recordAttr, shapeError, toFloat64, unsupported, writtenSince } from '../record.js'
import type { SparseRow } from '../sparse-row.js'
import { Fields, MAX_FEATURES } from '../state-fields.js'

/**
 * - `ovr`: expit of each decision, normalised over classes (LogisticRegression ovr,
 *   SGDClassifier log_loss: `_predict_proba_lr`);
 * - `multinomial`: softmax of the decisions ([-d, d] for two classes);
 * - `modified_huber`: SGDClassifier's clipped (d + 1) / 2;
 * - `none`: no predict_proba.
 */
export type ProbaKind = 'ovr' | 'multinomial' | 'modified_huber' | 'none'

export interface LinearState extends EstimatorState {
  readonly classes: readonly string[]
  /** coef_ transposed: nFeatures rows of nOutputs values (nOutputs is 1 for two classes). */
  readonly coefT: Float64Array
  readonly intercept: Float64Array
  readonly nFeatures: number
  readonly proba: ProbaKind
  /** coef_ / intercept_ are stored as float32 (then a float32 row is scored in float32). */
  readonly coefFloat32: boolean
  readonly interceptFloat32: boolean
  /** `_predict_proba_lr` turns a row of all-zero expits into uniform probabilities (1.9+; NaN before). */
  readonly zeroRowUniform: boolean
  readonly params: Readonly<Record<string, unknown>>
}

/** coef_ (dense or sparsified; 1-d for a binary RidgeClassifier from 1.6) as nFeatures rows of nOutputs values. */
function transposedCoef (value: unknown, owner: string): { coefT: Float64Array, outputs: number, features: number } {
  if (value instanceof SparseMatrix) {
    const [outputs, features] = value.shape
    const coefT = new Float64Array(outputs * features)
    forEachEntry(value, `${owner}.coef_`, (k, j, v) => { coefT[j * outputs + k] = v })
    return { coefT, outputs, features }
  }
  const flat1 = value instanceof NdArray && value.shape.length === 1
  const array = numericArray(value, `${owner}.coef_`, flat1 ? 1 : 2)
  const [outputs, features] = (flat1 ? [1, array.shape[0]] : array.shape) as [number, number]
  return { coefT: transposed(toFloat64(array, `${owner}.coef_`), outputs, features), outputs, features }
}

function readIntercept (value: unknown, outputs: number, owner: string): Float64Array {
  if (typeof value === 'number') return new Float64Array(outputs).fill(value)
  const array = numericArray(value, `${owner}.intercept_`, 1)
  if (array.size !== outputs) shapeError(`${owner}.intercept_ has ${array.size} values for ${outputs} rows of coef_`)
  return toFloat64(array, `${owner}.intercept_`).slice()
}

/**
 * LogisticRegression's predict_proba: one-vs-rest expit or multinomial softmax, following
 * `multi_class` ('deprecated' from 1.5 and gone from 1.8 mean 'auto'), where 'auto' is
 * one-vs-rest for two classes and for liblinear (and newton-cholesky before 1.6).
 */
function logisticProba (obj: PyObject, nClasses: number): ProbaKind {
  let multiClass = param(obj, 'multi_class', 'auto')
  if (multiClass === 'deprecated') multiClass = 'auto'
  const solver = param(obj, 'solver', 'lbfgs')
  if (multiClass === 'ovr' || multiClass === 'warn') return 'ovr'
  if (multiClass === 'auto') return nClasses <= 2 || solver === 'liblinear' || (solver === 'newton-cholesky' && !writtenSince(obj, 1, 6)) ? 'ovr' : 'multinomial'
  if (multiClass === 'multinomial') return 'multinomial'
  return unsupported(`${obj.name}.multi_class is ${describe(multiClass)}`)
}

function build (obj: PyObject): LinearState {
  const name = obj.name
  const classesValue = name.startsWith('RidgeClassifier') && !obj.has('classes_')
    ? attr(recordAttr(obj, '_label_binarizer'), 'classes_')
    : attr(obj, 'classes_')
  const classes = readClasses(classesValue, name)
  const coef = attr(obj, 'coef_')
  const { coefT, outputs, features } = transposedCoef(coef, name)
  const expected = classes.length === 2 ? 1 : classes.length
  if (outputs !== expected) shapeError(`${name}.coef_ has ${outputs} rows for ${classes.length} classes`)
  let proba: ProbaKind = 'none'
  const params: Record<string, unknown> = {}
  if (name.startsWith('LogisticRegression')) {
    proba = logisticProba(obj, classes.length)
    params.multi_class = proba === 'ovr' ? 'ovr' : 'multinomial'
    params.solver = param(obj, 'solver', null)
    params.C = param(obj, 'C', null)
  } else if (name === 'SGDClassifier') {
    const loss = param(obj, 'loss', 'hinge')
    params.loss = loss
    proba = loss === 'log_loss' || loss === 'log' ? 'ovr' : loss === 'modified_huber' ? 'modified_huber' : 'none'
  }
  const interceptValue = attr(obj, 'intercept_')
  const intercept = readIntercept(interceptValue, outputs, name)
  const coefFloat32 = (coef instanceof NdArray || coef instanceof SparseMatrix) && isFloat32(coef)
  const interceptFloat32 = interceptValue instanceof NdArray && isFloat32(interceptValue)
  return { type: 'linear', kind: name, classes, coefT, intercept, nFeatures: features, proba, coefFloat32, interceptFloat32, zeroRowUniform: writtenSince(obj, 1, 9), params }
}

const f32 = Math.fround
const same = (x: number): number => x

/**
 * SGDClassifier.predict_proba for loss='modified_huber': clipped (d + 1) / 2, normalised
 * over classes (all zero: uniform). Binary values land in a float64 array; `round` is the
 * decision's dtype otherwise.
 */
function modifiedHuberProba (decision: Float64Array, nClasses: number, round: (x: number) => number): Float64Array {
  const clip = (d: number, r: (x: number) => number): number => r(Math.min(1, Math.max(-1, d)) + 1) / 2
  if (decision.length === 1) {
    const p = clip(decision[0]!, same)
    return Float64Array.of(1 - p, p)
  }
  return normalized(decision.map(d => clip(d, round)), nClasses, round, true)
}

/** `p` over its sum, in the decisions' dtype (`round`); a row summing to 0 made uniform when `zeroUniform`. */
function normalized (p: Float64Array, nClasses: number, round: (x: number) => number, zeroUniform: boolean): Float64Array {
  let sum = round === same ? numpySum(p) : numpySumFloat32(p)
  if (sum === 0 && zeroUniform) {
    p.fill(1)
    sum = nClasses
  }
  return p.map(v => round(v / sum))
}

/** predict_proba from the decision values, in their dtype. */
function probaOf (kind: ProbaKind, decision: Float64Array, nClasses: number, float32: boolean, zeroRowUniform: boolean): Float64Array | undefined {
  const round = float32 ? f32 : same
  switch (kind) {
    case 'none': return undefined
    case 'ovr': {
      // _predict_proba_lr: expit, then normalised over classes.
      const sigmoid = float32 ? expitFloat32 : expit
      if (decision.length === 1) {
        const p = sigmoid(decision[0]!)
        return Float64Array.of(round(1 - p), p)
      }
      return normalized(decision.map(sigmoid), nClasses, round, zeroRowUniform)
    }
    case 'multinomial': {
      const softmax = float32 ? softmaxFloat32InPlace : softmaxInPlace
      return softmax(decision.length === 1 ? Float64Array.of(-decision[0]!, decision[0]!) : decision.slice())
    }
    case 'modified_huber': return modifiedHuberProba(decision, nClasses, round)
  }
}

/** X @ coef_.T + intercept_ for a float32 row and coef_: float32 products and sums, intercept in its dtype. */
function float32Decision (row: SparseRow, coefT: Float64Array, intercept: Float64Array, interceptFloat32: boolean): Float64Array {
  const outputs = intercept.length
  const y = sparseDotFloat32(row.indices, row.values, coefT, outputs)
  for (let k = 0; k < outputs; k++) y[k] = interceptFloat32 ? f32(y[k]! + intercept[k]!) : y[k]! + intercept[k]!
  return y
}

function create (state: LinearState): Classifier {
  const { coefT, intercept, proba, classes } = state
  const outputs = intercept.length
  return {
    kind: state.kind,
    nFeatures: state.nFeatures,
    classes,
    hasProba: proba !== 'none',
    hasDecision: true,
    confidence: proba !== 'none' ? 'predict_proba' : 'decision_function',
    params: state.params,
    linearForm: { score: 'decision_function', outputClasses: outputs === 1 ? [1] : classes.map((_, k) => k), weightT: coefT, intercept, binarize: null },
    score: (row: SparseRow): Scores => {
      const float32 = row.float32 && state.coefFloat32
      const decision = float32
        ? float32Decision(row, coefT, intercept, state.interceptFloat32)
        : sparseDotPlus(row.indices, row.values, coefT, outputs, intercept)
      const classIndex = decision.length === 1 ? (decision[0]! > 0 ? 1 : 0) : argmax(decision)
      return { classIndex, decision, proba: probaOf(proba, decision, classes.length, float32 && state.interceptFloat32, state.zeroRowUniform) }
    }
  }
}

/** What create and scoring rely on in a LinearState (from a compiled file, or just built). */
function check (state: unknown, where: string): asserts state is LinearState {
  const f = new Fields(state, where)
  const k = f.strings('classes', 2).length
  const outputs = k === 2 ? 1 : k
  const n = f.int('nFeatures', 0, MAX_FEATURES)
  f.array('coefT', Float64Array, n * outputs)
  f.array('intercept', Float64Array, outputs)
  f.oneOf('proba', ['ovr', 'multinomial', 'modified_huber', 'none'])
  f.bool('coefFloat32')
  f.bool('interceptFloat32')
  f.bool('zeroRowUniform')
  f.object('params')
}

export const linearClassifier = defineEstimator<LinearState, 'classifier'>({
  type: 'linear',
  role: 'classifier',
  names: ['LogisticRegression', 'LogisticRegressionCV', 'LinearSVC', 'SGDClassifier', 'RidgeClassifier', 'RidgeClassifierCV', 'Perceptron', 'PassiveAggressiveClassifier'],
  build,
  check,
  create
})
