/**
 * scikit-learn's VotingClassifier (ensemble/_voting.py, the same in 1.0 through 1.9.1;
 * checked against 1.2.1, 1.6.1 and 1.9.1).
 *
 * Members were fitted on `le_.transform(y)`, so their classes are 0..K-1 and their
 * predictions index `classes_`. soft: `np.average` (or `np.mean`) of the members'
 * predict_proba, argmax; hard: `argmax(np.bincount(predictions, weights))`, so ties go
 * to the smallest label. No decision_function; predict_proba only for soft voting.
 */
import { NdArray } from '../../pickle/numpy.js'
import { PyTuple, type PyObject, type PyValue } from '../../pickle/values.js'
import { defineEstimator, type BuildContext, type Classifier, type CreateContext, type EstimatorState, type Scores, type CheckContext } from '../estimator.js'
import { argmax } from '../math.js'
import { attr, choice, describe, items, param, readClasses, shapeError, toFloat64, unsupported } from '../record.js'
import type { SparseRow } from '../sparse-row.js'
import { meanAttribution } from '../tree-shap.js'
import { buildMembers, checkMembers, commonWidth, encodedClassIndices } from './inner.js'
import { Fields, shapeProblem } from '../state-fields.js'

/** A number from a weights list or array (ints, floats, bools). */
function weightValue (v: PyValue, what: string): number {
  if (typeof v === 'number') return v
  if (typeof v === 'boolean') return v ? 1 : 0
  if (typeof v === 'bigint') return Number(v)
  return shapeError(`${what} is ${describe(v)}, not a number`)
}

/**
 * `_weights_not_none`: the weights of the members that are not 'drop', aligned with
 * `estimators_`; null when `weights` is None.
 */
function readWeights (obj: PyObject, nFitted: number): Float64Array | null {
  const value = param(obj, 'weights', null)
  if (value === null) return null
  const name = obj.name
  const all = value instanceof NdArray && value.dtype.kind !== 'O'
    ? Array.from(toFloat64(value, `${name}.weights`))
    : items(value, `${name}.weights`).map((v, i) => weightValue(v, `${name}.weights[${i}]`))
  const declared = obj.has('estimators') ? items(obj.get('estimators'), `${name}.estimators`) : undefined
  if (declared === undefined) {
    if (all.length !== nFitted) shapeError(`${name}.weights has ${all.length} values for ${nFitted} estimators`)
    return Float64Array.from(all)
  }
  if (all.length !== declared.length) shapeError(`${name}.weights has ${all.length} values for ${declared.length} estimators`)
  const kept = all.filter((_, i) => {
    const pair = declared[i]
    const est = pair instanceof PyTuple && pair.length >= 2 ? pair.items[1] : pair
    return est !== 'drop' && est !== null
  })
  if (kept.length !== nFitted) shapeError(`${name}.weights has ${kept.length} values for members that are not 'drop' but estimators_ holds ${nFitted}`)
  return Float64Array.from(kept)
}

export interface VotingState extends EstimatorState {
  readonly classes: readonly string[]
  readonly voting: 'hard' | 'soft'
  readonly estimators: readonly EstimatorState[]
  /** Aligned with `estimators` (drops excluded); null for equal weights. */
  readonly weights: Float64Array | null
  readonly params: Readonly<Record<string, unknown>>
}

function build (obj: PyObject, ctx: BuildContext): VotingState {
  const name = obj.name
  const classes = readClasses(attr(obj, 'classes_'), name)
  const voting = choice(obj, 'voting', ['hard', 'soft'], 'hard')
  const estimators = buildMembers(obj, 'estimators_', ctx)
  const weights = readWeights(obj, estimators.length)
  // np.average raises ZeroDivisionError when the weights sum to zero.
  if (voting === 'soft' && weights !== null && weights.reduce((a, b) => a + b, 0) === 0) unsupported(`${name}.weights sum to zero`)
  return {
    type: 'voting',
    kind: name,
    classes,
    voting,
    estimators,
    weights,
    params: { voting, weights: weights === null ? null : Array.from(weights), estimators: estimators.map(e => e.kind) }
  }
}

function create (state: VotingState, ctx: CreateContext): Classifier {
  const { classes, weights, voting, kind } = state
  const nClasses = classes.length
  const where = (i: number): string => `${kind}.estimators_[${i}]`
  const members = state.estimators.map(s => ctx.create('classifier', s))
  const maps = members.map((m, i) => encodedClassIndices(m.classes, nClasses, where(i)))
  const nFeatures = commonWidth(members, where)
  const weightOf = (e: number): number => weights === null ? 1 : weights[e]!
  let total = 0
  for (let e = 0; e < members.length; e++) total += weightOf(e)
  const base = { kind, nFeatures, classes, hasDecision: false, params: state.params }

  if (voting === 'soft') {
    members.forEach((m, i) => {
      if (!m.hasProba) unsupported(`${where(i)} (${m.kind}) has no predict_proba, which voting='soft' needs`)
      if (m.classes.length !== nClasses) shapeError(`${where(i)} has ${m.classes.length} classes, ${kind} has ${nClasses}`)
    })
    const probaOf = (row: SparseRow): Float64Array => {
      // np.average(probas, axis=0, weights=w): sum_e P_e * w_e in member order, then / sum(w);
      // np.mean when w is None: the plain sum, then / n_estimators.
      const proba = new Float64Array(nClasses)
      members.forEach((m, e) => {
        const p = m.score(row).proba!
        const map = maps[e]!
        for (let j = 0; j < p.length; j++) proba[map[j]!]! += weights === null ? p[j]! : p[j]! * weights[e]!
      })
      for (let k = 0; k < nClasses; k++) proba[k] = proba[k]! / total
      return proba
    }
    const unexplained = members.findIndex(m => m.shapValues === undefined || m.shapSpace !== 'probability')
    return {
      ...base,
      hasProba: true,
      confidence: 'predict_proba',
      score: (row: SparseRow): Scores => {
        const proba = probaOf(row)
        return { classIndex: argmax(proba), proba, decision: undefined }
      },
      ...(unexplained >= 0
        ? { explainRefusal: `${kind}: a soft vote averages probabilities, explained when every member's are, and ${where(unexplained)} (${members[unexplained]!.kind}) is not explained in probability space` }
        : {
            shapSpace: 'probability' as const,
            shapValues: (row: SparseRow) => meanAttribution(members.map((m, e) => ({ a: m.shapValues!(row), weight: weightOf(e), classOf: maps[e]! })), total, nClasses, probaOf(row))
          })
    }
  }

  return {
    ...base,
    hasProba: false,
    confidence: 'votes',
    score: (row: SparseRow): Scores => {
      // argmax(np.bincount(labels, weights=w)): the count array ends at the largest label voted for.
      const labels = members.map((m, e) => maps[e]![m.score(row).classIndex]!)
      const counts = new Float64Array(Math.max(...labels) + 1)
      labels.forEach((label, e) => { counts[label]! += weightOf(e) })
      const classIndex = argmax(counts)
      return { classIndex, proba: undefined, decision: undefined, confidence: counts[classIndex]! / total }
    }
  }
}

/** What create and scoring rely on in a VotingState (from a compiled file, or just built). */
function check (state: unknown, where: string, ctx: CheckContext): asserts state is VotingState {
  const f = new Fields(state, where)
  f.strings('classes', 2)
  const voting = f.oneOf('voting', ['hard', 'soft'])
  const n = checkMembers(f, 'estimators', ctx).length
  const weights = f.nullable('weights', name => f.array(name, Float64Array, n))
  if (voting === 'soft' && weights !== null && weights.reduce((a, b) => a + b, 0) === 0) throw shapeProblem(`${where}.weights`, 'sum to zero')
  f.object('params')
}

export const votingClassifier = defineEstimator<VotingState, 'classifier'>({
  type: 'voting',
  role: 'classifier',
  names: ['VotingClassifier'],
  build,
  check,
  create
})
