/**
 * scikit-learn's CalibratedClassifierCV (calibration.py), written by 1.0 through 1.9:
 * sigmoid, isotonic and (1.8+) temperature calibration, one calibrated classifier per
 * CV fold (ensemble) or a single one, over any served inner estimator. Checked against
 * 1.2.1, 1.6.1 and 1.9.1.
 *
 * predict_proba = the mean of the calibrated classifiers' probabilities (summed in list
 * order, then divided by their number); predict = classes_[argmax]. Each calibrated
 * classifier asks its estimator for decision_function, else predict_proba (its positive
 * column for two classes), calibrates column k into the probability of the class
 * `estimator.classes_[k]` (column 1 for two classes), then normalises.
 *
 * Record names by version: the fold estimator is `base_estimator` in 1.0/1.1 and
 * `estimator` from 1.2; from 1.6 it may be a FrozenEstimator wrapping the fitted one;
 * calibrators are `calibrators` (pre-0.24 `calibrators_`).
 */
import { PyObject } from '../../pickle/values.js'
import { defineEstimator, probabilistic, type BuildContext, type Classifier, type CreateContext, type EstimatorState, type Scores, type CheckContext } from '../estimator.js'
import { argmax, expit, numpySum, softmaxInPlace } from '../math.js'
import { attr, attrOf, choice, describe, isFloat32, items, num, numericArray, readClasses, shapeError, sklearnClass, toFloat64, unsupported } from '../record.js'
import type { SparseRow } from '../sparse-row.js'
import { commonWidth, encodedClassIndices, labelClassIndices } from './inner.js'
import { Fields, shapeProblem } from '../state-fields.js'

export type CalibrationMethod = 'sigmoid' | 'isotonic' | 'temperature'

/** `_SigmoidCalibration`: expit(-(a_ * t + b_)). */
interface SigmoidCalibrator { readonly kind: 'sigmoid', readonly a: number, readonly b: number }
/** `IsotonicRegression`: clip to [X_min_, X_max_], then interp1d over the thresholds. */
interface IsotonicCalibrator {
  readonly kind: 'isotonic'
  readonly x: Float64Array
  readonly y: Float64Array
  readonly min: number
  readonly max: number
  readonly clip: boolean
}
/** `_TemperatureScaling` (1.8+): softmax(beta_ * logits). */
interface TemperatureCalibrator { readonly kind: 'temperature', readonly beta: number }
export type CalibratorState = SigmoidCalibrator | IsotonicCalibrator | TemperatureCalibrator

export interface CalibratedMemberState {
  readonly estimator: EstimatorState
  readonly method: CalibrationMethod
  readonly calibrators: readonly CalibratorState[]
}

export interface CalibratedState extends EstimatorState {
  readonly classes: readonly string[]
  readonly members: readonly CalibratedMemberState[]
  readonly params: Readonly<Record<string, unknown>>
}

const METHODS: readonly CalibrationMethod[] = ['sigmoid', 'isotonic', 'temperature']

/** A 1-d float64 threshold array (interp1d hands float64 x and y to np.interp; float32 takes another path). */
function thresholds (obj: PyObject, name: string, where: string): Float64Array {
  const array = numericArray(attr(obj, name), `${where}.${name}`, 1)
  if (isFloat32(array)) unsupported(`${where}.${name} is float32 (an estimator with float32 outputs); only float64 calibration is served`)
  return toFloat64(array, `${where}.${name}`).slice()
}

function readCalibrator (value: unknown, method: CalibrationMethod, where: string): CalibratorState {
  if (!(value instanceof PyObject)) return unsupported(`${where} is ${describe(value)}, not a calibrator`)
  const cls = sklearnClass(value)
  if (method === 'sigmoid' && cls === '_SigmoidCalibration') return { kind: 'sigmoid', a: num(value, 'a_'), b: num(value, 'b_') }
  if (method === 'temperature' && cls === '_TemperatureScaling') return { kind: 'temperature', beta: num(value, 'beta_') }
  if (method === 'isotonic' && cls === 'IsotonicRegression') {
    const x = thresholds(value, 'X_thresholds_', where)
    const y = thresholds(value, 'y_thresholds_', where)
    if (x.length === 0 || x.length !== y.length) shapeError(`${where}.X_thresholds_ has ${x.length} values and y_thresholds_ ${y.length}`)
    for (let i = 1; i < x.length; i++) if (!(x[i]! > x[i - 1]!)) shapeError(`${where}.X_thresholds_ is not strictly increasing at ${i}`)
    const bounds = choice(value, 'out_of_bounds', ['clip', 'nan'], 'nan')
    return { kind: 'isotonic', x, y, min: num(value, 'X_min_'), max: num(value, 'X_max_'), clip: bounds === 'clip' }
  }
  return unsupported(`${where} is ${describe(value)}, not a calibrator for method '${method}'`)
}

/** The fitted estimator of a `_CalibratedClassifier`, unwrapped from a FrozenEstimator (1.6+). */
function foldEstimator (cc: PyObject, where: string): { value: unknown, where: string } {
  const own = cc.get('estimator')
  let value = own instanceof PyObject ? own : attrOf(cc, ['estimator', 'base_estimator'])
  let at = `${where}.${own instanceof PyObject ? 'estimator' : 'base_estimator'}`
  if (sklearnClass(value) === 'FrozenEstimator') {
    value = attr(value as PyObject, 'estimator')
    at += '.estimator'
  }
  return { value, where: at }
}

function build (obj: PyObject, ctx: BuildContext): CalibratedState {
  const name = obj.name
  const classes = readClasses(attr(obj, 'classes_'), name)
  const list = items(attr(obj, 'calibrated_classifiers_'), `${name}.calibrated_classifiers_`)
  if (list.length === 0) unsupported(`${name}.calibrated_classifiers_ is empty`)
  const fallback = choice(obj, 'method', METHODS, 'sigmoid')
  const members = list.map((cc, i): CalibratedMemberState => {
    const where = `${name}.calibrated_classifiers_[${i}]`
    if (!(cc instanceof PyObject)) return unsupported(`${where} is ${describe(cc)}`)
    const own = readClasses(attr(cc, 'classes'), `${where}`)
    if (own.length !== classes.length || own.some((c, k) => c !== classes[k])) {
      shapeError(`${where}.classes (${own.join(', ')}) differ from ${name}.classes_ (${classes.join(', ')})`)
    }
    const method = choice(cc, 'method', METHODS, fallback)
    const inner = foldEstimator(cc, where)
    const estimator = ctx.build('classifier', inner.value, inner.where)
    const calibrators = items(attrOf(cc, ['calibrators', 'calibrators_']), `${where}.calibrators`)
      .map((c, k) => readCalibrator(c, method, `${where}.calibrators[${k}]`))
    if (calibrators.length === 0) shapeError(`${where}.calibrators is empty`)
    if ((method === 'temperature' || classes.length === 2) && calibrators.length !== 1) {
      shapeError(`${where}.calibrators has ${calibrators.length} calibrators; ${method === 'temperature' ? "method 'temperature'" : 'two classes'} take one`)
    }
    if (calibrators.length > classes.length) shapeError(`${where}.calibrators has ${calibrators.length} calibrators for ${classes.length} classes`)
    return { estimator, method, calibrators }
  })
  return {
    type: 'calibrated',
    kind: name,
    classes,
    members,
    params: { method: fallback, ensemble: members.length > 1, estimator: members[0]!.estimator.kind, n_calibrated: members.length }
  }
}

/** `IsotonicRegression.predict(t)` for one value: np.clip, then np.interp inside interp1d's bounds. */
function isotonic (c: IsotonicCalibrator, t: number): number {
  const { x, y } = c
  // np.clip(T, X_min_, X_max_) keeps NaN.
  const v = c.clip ? (t < c.min ? c.min : t > c.max ? c.max : t) : t
  if (y.length === 1) return y[0]!
  if (Number.isNaN(v)) return v
  const last = x.length - 1
  // interp1d(bounds_error=False) fills NaN outside [x[0], x[-1]].
  if (v < x[0]! || v > x[last]!) return NaN
  let lo = 0
  let hi = last
  while (lo < hi) { // the last j with x[j] <= v
    const mid = (lo + hi + 1) >>> 1
    if (x[mid]! <= v) lo = mid
    else hi = mid - 1
  }
  const j = lo
  if (j === last || x[j] === v) return y[j]!
  const slope = (y[j + 1]! - y[j]!) / (x[j + 1]! - x[j]!)
  let r = slope * (v - x[j]!) + y[j]!
  if (Number.isNaN(r)) {
    r = slope * (v - x[j + 1]!) + y[j + 1]!
    if (Number.isNaN(r) && y[j] === y[j + 1]) r = y[j]!
  }
  return r
}

function calibrate (c: SigmoidCalibrator | IsotonicCalibrator, t: number): number {
  return c.kind === 'sigmoid' ? expit(-(c.a * t + c.b)) : isotonic(c, t)
}

/** `_TemperatureScaling.predict` of one row (`_convert_to_logits`, then softmax(beta_ * logits)). */
function temperature (beta: number, pred: Float64Array): Float64Array {
  let logits: Float64Array
  if (pred.length > 1) {
    const sum = numpySum(pred)
    // np.isclose(sum, 1.0): |sum - 1| <= atol + rtol * 1.
    const looksProba = pred.every(p => p >= 0 && p <= 1) && Math.abs(sum - 1) <= 1e-8 + 1e-5
    logits = looksProba ? pred.map(p => Math.log(p + 1e-12)) : pred.slice()
  } else {
    logits = Float64Array.of(-pred[0]!, pred[0]!)
  }
  return softmaxInPlace(logits.map(v => beta * v))
}

interface Member {
  readonly estimator: Classifier
  readonly method: CalibrationMethod
  readonly calibrators: readonly CalibratorState[]
  /** The outer column of each inner class (`LabelEncoder(classes).transform(estimator.classes_)`). */
  readonly positions: Int32Array
  /** Use the estimator's decision_function (else predict_proba). */
  readonly useDecision: boolean
  /** predict_proba reduced to its last column (two classes; a two-class estimator from 1.6 on). */
  readonly lastColumnOnly: boolean
}

function createMember (state: CalibratedMemberState, classes: readonly string[], where: string, ctx: CreateContext): Member {
  const estimator = ctx.create('classifier', state.estimator)
  // 1.8+ temperature scaling fits the estimator on LabelEncoder codes when y holds strings
  // (its output columns are used by position); the other methods fit it on y itself.
  const encoded = state.method === 'temperature' && !estimator.classes.every(c => classes.includes(c))
  const positions = encoded
    ? encodedClassIndices(estimator.classes, classes.length, `${where}.estimator`)
    : labelClassIndices(estimator.classes, classes, `${where}.estimator`)
  const useDecision = estimator.hasDecision
  if (!useDecision && !estimator.hasProba) unsupported(`${where}.estimator (${estimator.kind}) has neither decision_function nor predict_proba`)
  const n = estimator.classes.length
  const nCalibrators = state.calibrators.length
  // 1.2 keeps predict_proba[:, 1:] only when the outer problem has two classes; 1.6+
  // keeps the positive column whenever the estimator has two classes. The calibrators
  // were fitted on the same columns, so their number tells which rule wrote the file.
  const lastColumnOnly = !useDecision && (classes.length === 2 || (n === 2 && nCalibrators === 1))
  const columns = useDecision ? (n === 2 ? 1 : n) : lastColumnOnly ? 1 : n
  if (state.method === 'temperature') {
    if (classes.length > 2 && n !== classes.length) shapeError(`${where}.estimator has ${n} classes; temperature scaling needs all ${classes.length}`)
  } else if (nCalibrators !== columns) {
    shapeError(`${where}.calibrators has ${nCalibrators} calibrators for the ${columns} columns of ${estimator.kind}.${useDecision ? 'decision_function' : 'predict_proba'}`)
  }
  return { estimator, method: state.method, calibrators: state.calibrators, positions, useDecision, lastColumnOnly }
}

/** `_CalibratedClassifier.predict_proba` of one row. */
function memberProba (m: Member, row: SparseRow, nClasses: number): Float64Array {
  const s = m.estimator.score(row)
  let pred = m.useDecision ? s.decision! : s.proba!
  if (m.lastColumnOnly) pred = pred.subarray(pred.length - 1)
  let proba: Float64Array
  if (m.method === 'temperature') {
    // 1.8+: a binary predict_proba column goes back to [1 - p, p] before the logits.
    if (nClasses === 2 && pred.length === 1 && !m.useDecision) pred = Float64Array.of(1 - pred[0]!, pred[0]!)
    proba = temperature((m.calibrators[0] as TemperatureCalibrator).beta, pred)
  } else {
    proba = new Float64Array(nClasses)
    const n = Math.min(m.positions.length, pred.length, m.calibrators.length) // zip stops at the shortest
    for (let k = 0; k < n; k++) {
      proba[m.positions[k]! + (nClasses === 2 ? 1 : 0)] = calibrate(m.calibrators[k] as SigmoidCalibrator | IsotonicCalibrator, pred[k]!)
    }
    if (nClasses === 2) {
      proba[0] = 1 - proba[1]!
    } else {
      const den = numpySum(proba)
      // np.divide(..., out=uniform, where=den != 0): uniform when every calibrator gave 0.
      proba = den !== 0 ? proba.map(p => p / den) : proba.fill(1 / nClasses)
    }
  }
  for (let k = 0; k < proba.length; k++) if (proba[k]! > 1 && proba[k]! <= 1 + 1e-5) proba[k] = 1
  return proba
}

function create (state: CalibratedState, ctx: CreateContext): Classifier {
  const { classes, kind } = state
  const nClasses = classes.length
  const members = state.members.map((m, i) => createMember(m, classes, `${kind}.calibrated_classifiers_[${i}]`, ctx))
  const nFeatures = commonWidth(members.map(m => m.estimator), i => `${kind}.calibrated_classifiers_[${i}].estimator`)
  return probabilistic({
    kind,
    nFeatures,
    classes,
    params: state.params,
    score: (row: SparseRow): Scores => {
      const proba = new Float64Array(nClasses)
      for (const m of members) {
        const p = memberProba(m, row, nClasses)
        for (let k = 0; k < nClasses; k++) proba[k]! += p[k]!
      }
      for (let k = 0; k < nClasses; k++) proba[k] = proba[k]! / members.length
      return { classIndex: argmax(proba), proba, decision: undefined }
    }
  })
}

/** A calibrator of `method`: sigmoid's a and b, temperature's beta, isotonic thresholds strictly increasing. */
function checkCalibrator (c: Fields, method: string): void {
  c.oneOf('kind', [method])
  if (method === 'sigmoid') { c.number('a'); c.number('b'); return }
  if (method === 'temperature') { c.number('beta'); return }
  const x = c.array('x', Float64Array)
  c.array('y', Float64Array, x.length)
  if (x.length === 0) throw shapeProblem(`${c.where}.x`, 'is empty')
  for (let i = 1; i < x.length; i++) if (!(x[i]! > x[i - 1]!)) throw shapeProblem(`${c.where}.x`, `is not strictly increasing at ${i}`)
  c.number('min')
  c.number('max')
  c.bool('clip')
}

/** What create and scoring rely on in a CalibratedState (from a compiled file, or just built). */
function check (state: unknown, where: string, ctx: CheckContext): asserts state is CalibratedState {
  const f = new Fields(state, where)
  const k = f.strings('classes', 2).length
  f.list('members', 1).forEach((m, i) => {
    const member = new Fields(m, `${where}.members[${i}]`)
    ctx.check('classifier', member.value('estimator'), `${member.where}.estimator`)
    const method = member.oneOf('method', ['sigmoid', 'isotonic', 'temperature'])
    const calibrators = member.list('calibrators', 1)
    if (calibrators.length > k || ((method === 'temperature' || k === 2) && calibrators.length !== 1)) throw shapeProblem(`${member.where}.calibrators`, `are ${calibrators.length} for ${k} classes`)
    calibrators.forEach((c, j) => checkCalibrator(new Fields(c, `${member.where}.calibrators[${j}]`), method))
  })
  f.object('params')
}

export const calibratedClassifier = defineEstimator<CalibratedState, 'classifier'>({
  type: 'calibrated',
  role: 'classifier',
  names: ['CalibratedClassifierCV'],
  build,
  check,
  create
})
