/**
 * BaggingClassifier over any supported base estimator (identical maths in 1.2.1, 1.6.1 and
 * 1.9.1). Each estimator sees the row's columns `estimators_features_[i]` (X[:, F], so its
 * column j is the row's column F[j]; F may repeat a column); estimators were fitted on the
 * encoded labels 0..K-1, possibly a subset of them.
 *
 * - predict_proba: the estimators' predict_proba added in order, each into the columns of
 *   the classes it knows; an estimator without predict_proba adds 1 to the class it
 *   predicts. Then divided by the `n_estimators` parameter. predict is its argmax.
 * - decision_function (when the base estimator has one): the sum of theirs / n_estimators.
 */
import type { PyObject } from '../../pickle/values.js'
import { defineEstimator, type BuildContext, type Classifier, type CreateContext, type EstimatorState, type Scores, type CheckContext } from '../estimator.js'
import { argmax } from '../math.js'
import { attr, int, int32Array, items, readClasses, shapeError } from '../record.js'
import { dtypeOf, type SparseRow } from '../sparse-row.js'
import { buildMembers, checkMembers, encodedClassIndices } from './inner.js'
import { Fields, MAX_FEATURES, checkRange, shapeProblem, typedArray } from '../state-fields.js'

interface BaggingState extends EstimatorState {
  readonly classes: readonly string[]
  readonly nFeatures: number
  readonly estimators: readonly EstimatorState[]
  /** Per estimator, the columns it reads, or an empty array when it reads the row as it is. */
  readonly features: readonly Int32Array[]
  /** The `n_estimators` parameter, which scikit-learn divides by. */
  readonly nEstimators: number
}

function isIdentity (f: Int32Array, n: number): boolean {
  return f.length === n && f.every((c, j) => c === j)
}

function build (obj: PyObject, ctx: BuildContext): BaggingState {
  const classes = readClasses(attr(obj, 'classes_'), obj.name)
  const nFeatures = int(obj, 'n_features_in_', int(obj, 'n_features_', -1))
  if (nFeatures < 1) shapeError(`${obj.name} has no n_features_in_`)
  const estimators = buildMembers(obj, 'estimators_', ctx)
  const featureLists = items(attr(obj, 'estimators_features_'), `${obj.name}.estimators_features_`)
  if (featureLists.length !== estimators.length) shapeError(`${obj.name}.estimators_features_ has ${featureLists.length} lists for ${estimators.length} estimators`)
  const features = featureLists.map((f, i) => {
    const columns = int32Array(f, `${obj.name}.estimators_features_[${i}]`, 0, nFeatures - 1)
    return isIdentity(columns, nFeatures) ? new Int32Array(0) : columns
  })
  return { type: 'bagging', kind: obj.name, classes, nFeatures, estimators, features, nEstimators: int(obj, 'n_estimators') }
}

/**
 * Projects rows onto a column list, as scipy's `X[:, F]` does: the row's entries in order,
 * each copied to every position j with F[j] equal to its column.
 */
function createProjection (columns: Int32Array, nFeatures: number): (row: SparseRow) => SparseRow {
  const start = new Int32Array(nFeatures + 1)
  for (const c of columns) start[c + 1]!++
  for (let c = 0; c < nFeatures; c++) start[c + 1]! += start[c]!
  const positions = new Int32Array(columns.length)
  const fill = start.slice(0, nFeatures)
  columns.forEach((c, j) => { positions[fill[c]!++] = j })
  return row => {
    const indices: number[] = []
    const values: number[] = []
    for (let e = 0; e < row.indices.length; e++) {
      const c = row.indices[e]!
      for (let p = start[c]!; p < start[c + 1]!; p++) {
        indices.push(positions[p]!)
        values.push(row.values[e]!)
      }
    }
    return { indices: Int32Array.from(indices), values: Float64Array.from(values), ...dtypeOf(row) }
  }
}

function create (state: BaggingState, ctx: CreateContext): Classifier {
  const { classes, nEstimators } = state
  const k = classes.length
  const estimators = state.estimators.map(s => ctx.create('classifier', s))
  const project = state.features.map(f => f.length === 0 ? (row: SparseRow) => row : createProjection(f, state.nFeatures))
  estimators.forEach((e, i) => {
    const width = state.features[i]!.length === 0 ? state.nFeatures : state.features[i]!.length
    if (e.nFeatures >= 0 && e.nFeatures !== width) shapeError(`${state.kind}.estimators_[${i}] expects ${e.nFeatures} features but reads ${width} columns`)
  })
  // Inner labels are the encoded classes 0..K-1.
  const toOuter = estimators.map((e, i) => encodedClassIndices(e.classes, k, `${state.kind}.estimators_[${i}]`))
  // scikit-learn asks the base estimator: all estimators share its methods.
  const withProba = estimators.every(e => e.hasProba)
  const withDecision = estimators.every(e => e.hasDecision)
  return {
    kind: state.kind,
    nFeatures: state.nFeatures,
    classes,
    hasProba: true,
    hasDecision: withDecision,
    confidence: 'predict_proba',
    params: { n_estimators: nEstimators },
    score: (row: SparseRow): Scores => {
      const proba = new Float64Array(k)
      let decision: Float64Array | undefined
      estimators.forEach((e, i) => {
        const scores = e.score(project[i]!(row))
        if (withProba) scores.proba!.forEach((q, j) => { proba[toOuter[i]![j]!]! += q })
        else proba[toOuter[i]![scores.classIndex]!]! += 1
        if (withDecision) {
          if (decision === undefined) decision = scores.decision!.slice()
          else for (let c = 0; c < decision.length; c++) decision[c]! += scores.decision![c]!
        }
      })
      for (let c = 0; c < k; c++) proba[c] = proba[c]! / nEstimators
      if (decision !== undefined) for (let c = 0; c < decision.length; c++) decision[c] = decision[c]! / nEstimators
      return { classIndex: argmax(proba), proba, decision }
    }
  }
}

/** What create and scoring rely on in a BaggingState (from a compiled file, or just built). */
function check (state: unknown, where: string, ctx: CheckContext): asserts state is BaggingState {
  const f = new Fields(state, where)
  f.strings('classes', 2)
  const nFeatures = f.int('nFeatures', 1, MAX_FEATURES)
  const n = checkMembers(f, 'estimators', ctx).length
  const features = f.list('features')
  if (features.length !== n) throw shapeProblem(`${where}.features`, `are ${features.length} lists for ${n} estimators`)
  features.forEach((c, i) => checkRange(typedArray(c, `${where}.features[${i}]`, Int32Array), `${where}.features[${i}]`, 0, nFeatures - 1))
  f.int('nEstimators', 1)
}

export const bagging = defineEstimator<BaggingState, 'classifier'>({
  type: 'bagging',
  role: 'classifier',
  names: ['BaggingClassifier'],
  build,
  check,
  create
})
