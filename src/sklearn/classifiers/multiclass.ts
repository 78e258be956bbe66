/**
 * scikit-learn's OneVsRestClassifier and OneVsOneClassifier (multiclass.py), checked
 * against 1.2.1, 1.6.1 and 1.9.1.
 *
 * Each inner estimator was fitted on 0/1 labels (a LabelBinarizer column for OvR, the
 * pair (classes_[i], classes_[j]) as 0/1 for OvO). `_predict_binary` is the inner
 * decision_function when it has one, else predict_proba[:, 1]; the binary threshold is
 * 0.0 for a decision_function and 0.5 for a probability.
 *
 * OvR changed twice, so the version that wrote the file decides:
 * - predict, multiclass: the running-maximum loop gave ties to the LAST class up to 1.7
 *   and to the first (np.argmax order, the loop reversed) from 1.8.0 (PR #15504, in the
 *   1.8 changelog; 1.6.1's source loops forward, 1.9.1's in reverse);
 * - predict_proba: a row whose probabilities sum to 0 became NaN (0/0) up to 1.6 and
 *   stays 0 from 1.7.0 (PR #31228, in the 1.7 changelog).
 */
import { PyObject } from '../../pickle/values.js'
import { defineEstimator, type BuildContext, type Classifier, type CreateContext, type EstimatorState, type Scores, type CheckContext } from '../estimator.js'
import { argmax, numpySum, ovrDecisionFunction } from '../math.js'
import { attr, describe, readClasses, shapeError, unsupported, writtenSince } from '../record.js'
import type { SparseRow } from '../sparse-row.js'
import { buildMembers, checkMembers, commonWidth, encodedClassIndices } from './inner.js'
import { Fields, shapeProblem } from '../state-fields.js'

/** `_predict_binary` from an inner estimator's scores: its decision value, or the probability of label 1. */
function binaryScore (e: Classifier, s: Scores): number {
  return e.hasDecision ? s.decision![0]! : s.proba![1]!
}

/** Checks that each inner estimator is a binary 0/1 classifier with a score, all alike. */
function checkBinaryMembers (members: readonly Classifier[], where: (i: number) => string): void {
  members.forEach((m, i) => {
    const labels = encodedClassIndices(m.classes, 2, where(i))
    if (labels.length !== 2) shapeError(`${where(i)} has ${labels.length} classes, expected the two labels 0 and 1`)
    if (!m.hasDecision && !m.hasProba) unsupported(`${where(i)} (${m.kind}) has neither decision_function nor predict_proba`)
    if (m.hasDecision !== members[0]!.hasDecision || m.hasProba !== members[0]!.hasProba) {
      unsupported(`${where(i)} (${m.kind}) does not offer the same methods as ${where(0)} (${members[0]!.kind})`)
    }
  })
}

// ------------------------------------------------------------------ OneVsRestClassifier

export interface OneVsRestState extends EstimatorState {
  readonly classes: readonly string[]
  readonly estimators: readonly EstimatorState[]
  /** Ties in predict go to the first class (1.8+) rather than the last. */
  readonly tiesToFirst: boolean
  /** predict_proba leaves a zero-sum row at 0 (1.7+) rather than NaN. */
  readonly zeroRowStaysZero: boolean
  readonly params: Readonly<Record<string, unknown>>
}

function classesOf (obj: PyObject): string[] {
  if (obj.has('classes_')) return readClasses(obj.get('classes_'), obj.name)
  const binarizer = attr(obj, 'label_binarizer_')
  if (!(binarizer instanceof PyObject)) return unsupported(`${obj.name}.label_binarizer_ is ${describe(binarizer)}`)
  return readClasses(attr(binarizer, 'classes_'), obj.name)
}

function buildOvr (obj: PyObject, ctx: BuildContext): OneVsRestState {
  const name = obj.name
  const classes = classesOf(obj)
  const binarizer = attr(obj, 'label_binarizer_')
  const yType = binarizer instanceof PyObject ? binarizer.get('y_type_') : undefined
  if (typeof yType === 'string' && yType.startsWith('multilabel')) unsupported(`${name} was fitted on multilabel targets; tfidf-serve predicts one label per text`)
  const estimators = buildMembers(obj, 'estimators_', ctx)
  const expected = classes.length === 2 ? 1 : classes.length
  if (estimators.length !== expected) shapeError(`${name}.estimators_ has ${estimators.length} estimators for ${classes.length} classes (expected ${expected})`)
  return {
    type: 'one-vs-rest',
    kind: name,
    classes,
    estimators,
    tiesToFirst: writtenSince(obj, 1, 8),
    zeroRowStaysZero: writtenSince(obj, 1, 7),
    params: { estimator: estimators[0]!.kind }
  }
}

function createOvr (state: OneVsRestState, ctx: CreateContext): Classifier {
  const { classes, kind, tiesToFirst, zeroRowStaysZero } = state
  const where = (i: number): string => `${kind}.estimators_[${i}]`
  const members = state.estimators.map(s => ctx.create('classifier', s))
  checkBinaryMembers(members, where)
  const nFeatures = commonWidth(members, where)
  const first = members[0]!
  const hasDecision = first.hasDecision
  const hasProba = first.hasProba
  const threshold = hasDecision ? 0 : 0.5
  const n = members.length

  /** The multiclass predict loop: running maximum, index assigned where it equals the score. */
  const predictIndex = (scores: Float64Array): number => {
    let maximum = -Infinity
    let index = 0
    for (let step = 0; step < n; step++) {
      const i = tiesToFirst ? n - 1 - step : step
      const s = scores[i]!
      // np.maximum propagates NaN, and NaN never equals the score.
      maximum = Number.isNaN(maximum) || Number.isNaN(s) ? NaN : Math.max(maximum, s)
      if (maximum === s) index = i
    }
    return index
  }

  return {
    kind,
    nFeatures,
    classes,
    hasProba,
    hasDecision,
    confidence: hasProba ? 'predict_proba' : 'decision_function',
    params: state.params,
    score: (row: SparseRow): Scores => {
      const inner = members.map(m => m.score(row))
      const scores = Float64Array.from(inner, (s, i) => binaryScore(members[i]!, s))
      const classIndex = n === 1 ? (scores[0]! > threshold ? 1 : 0) : predictIndex(scores)
      const decision = hasDecision ? Float64Array.from(inner, s => s.decision![0]!) : undefined
      let proba: Float64Array | undefined
      if (hasProba) {
        const p1 = Float64Array.from(inner, s => s.proba![1]!)
        proba = n === 1 ? Float64Array.of(1 - p1[0]!, p1[0]!) : p1
        const sum = numpySum(proba)
        if (sum !== 0 || !zeroRowStaysZero) proba = proba.map(v => v / sum)
      }
      return { classIndex, proba, decision }
    }
  }
}

/** A multiclass wrapper's inner classifiers: as many as `expected` gives for its classes (one per class, or per pair). */
function checkCounted (f: Fields, ctx: CheckContext, expected: (k: number) => number): void {
  const k = f.strings('classes', 2).length
  const n = checkMembers(f, 'estimators', ctx).length
  if (n !== expected(k)) throw shapeProblem(`${f.where}.estimators`, `are ${n} for ${k} classes`)
  f.object('params')
}

/** What create and scoring rely on in a OneVsRestState (from a compiled file, or just built). */
function checkOvr (state: unknown, where: string, ctx: CheckContext): asserts state is OneVsRestState {
  const f = new Fields(state, where)
  checkCounted(f, ctx, k => k === 2 ? 1 : k)
  f.bool('tiesToFirst')
  f.bool('zeroRowStaysZero')
}

export const oneVsRestClassifier = defineEstimator<OneVsRestState, 'classifier'>({
  type: 'one-vs-rest',
  role: 'classifier',
  names: ['OneVsRestClassifier'],
  build: buildOvr,
  check: checkOvr,
  create: createOvr
})

// ------------------------------------------------------------------ OneVsOneClassifier

export interface OneVsOneState extends EstimatorState {
  readonly classes: readonly string[]
  /** K(K-1)/2 pair estimators in order (0,1), (0,2), ..., (1,2), ... */
  readonly estimators: readonly EstimatorState[]
  readonly params: Readonly<Record<string, unknown>>
}

function buildOvo (obj: PyObject, ctx: BuildContext): OneVsOneState {
  const name = obj.name
  const classes = readClasses(attr(obj, 'classes_'), name)
  const pairwise = obj.get('pairwise_indices_')
  if (pairwise !== undefined && pairwise !== null) unsupported(`${name} was fitted on a precomputed kernel (pairwise_indices_ is set)`)
  const estimators = buildMembers(obj, 'estimators_', ctx)
  const k = classes.length
  if (estimators.length !== (k * (k - 1)) / 2) shapeError(`${name}.estimators_ has ${estimators.length} estimators for ${k} classes (expected ${(k * (k - 1)) / 2})`)
  return { type: 'one-vs-one', kind: name, classes, estimators, params: { estimator: estimators[0]!.kind } }
}

function createOvo (state: OneVsOneState, ctx: CreateContext): Classifier {
  const { classes, kind } = state
  const nClasses = classes.length
  const where = (i: number): string => `${kind}.estimators_[${i}]`
  const members = state.estimators.map(s => ctx.create('classifier', s))
  checkBinaryMembers(members, where)
  const labelMaps = members.map((m, i) => encodedClassIndices(m.classes, 2, where(i)))
  const nFeatures = commonWidth(members, where)
  const threshold = members[0]!.hasDecision ? 0 : 0.5

  /** `_ovr_decision_function` of one row. */
  const decisionOf = (row: SparseRow): Float64Array => {
    const forJ = new Uint8Array(members.length)
    const confidences = new Float64Array(members.length)
    members.forEach((m, p) => {
      const s = m.score(row)
      confidences[p] = binaryScore(m, s)
      forJ[p] = labelMaps[p]![s.classIndex] === 0 ? 0 : 1
    })
    return ovrDecisionFunction(forJ, confidences, nClasses)
  }

  return {
    kind,
    nFeatures,
    classes,
    hasProba: false,
    hasDecision: true,
    confidence: 'decision_function',
    params: state.params,
    score: (row: SparseRow): Scores => {
      const y = decisionOf(row)
      if (nClasses === 2) {
        const d = y[1]!
        return { classIndex: d > threshold ? 1 : 0, proba: undefined, decision: Float64Array.of(d) }
      }
      return { classIndex: argmax(y), proba: undefined, decision: y }
    }
  }
}

/** What create and scoring rely on in a OneVsOneState (from a compiled file, or just built). */
function checkOvo (state: unknown, where: string, ctx: CheckContext): asserts state is OneVsOneState {
  const f = new Fields(state, where)
  checkCounted(f, ctx, k => (k * (k - 1)) / 2)
}

export const oneVsOneClassifier = defineEstimator<OneVsOneState, 'classifier'>({
  type: 'one-vs-one',
  role: 'classifier',
  names: ['OneVsOneClassifier'],
  build: buildOvo,
  check: checkOvo,
  create: createOvo
})
