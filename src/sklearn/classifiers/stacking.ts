/**
 * scikit-learn's StackingClassifier (ensemble/_stacking.py; the same for prediction in
 * 1.0 through 1.9.1, checked against 1.2.1, 1.6.1 and 1.9.1).
 *
 * `transform` = `_concatenate_predictions`: each member's `stack_method_` output, in
 * member order (one column for a 1-d output, predict_proba's first column dropped for two
 * classes); with `passthrough` the row's own columns follow, shifted by the number of
 * meta columns. The final estimator then predicts on that row; its labels are the encoded
 * classes 0..K-1, so `classes_[final.predict]`, and its predict_proba / decision_function
 * are returned as they are.
 */
import type { PyObject } from '../../pickle/values.js'
import { defineEstimator, type BuildContext, type Classifier, type CreateContext, type EstimatorState, type Scores, type CheckContext } from '../estimator.js'
import { attr, bool, describe, items, param, readClasses, shapeError, unsupported } from '../record.js'
import { denseRow, sortedEntries, type SparseRow } from '../sparse-row.js'
import { buildMembers, checkMembers, commonWidth, encodedClassIndices } from './inner.js'
import { Fields, shapeProblem } from '../state-fields.js'

export type StackMethod = 'predict_proba' | 'decision_function' | 'predict'

const STACK_METHODS: readonly StackMethod[] = ['predict_proba', 'decision_function', 'predict']

export interface StackingState extends EstimatorState {
  readonly classes: readonly string[]
  readonly estimators: readonly EstimatorState[]
  /** Aligned with `estimators` (drops excluded), as fit resolved 'auto'. */
  readonly stackMethods: readonly StackMethod[]
  readonly finalEstimator: EstimatorState
  readonly passthrough: boolean
  /** `_n_feature_outs`: the meta columns each member gives, when the record has it. */
  readonly featureOuts: readonly number[] | null
  readonly params: Readonly<Record<string, unknown>>
}

function build (obj: PyObject, ctx: BuildContext): StackingState {
  const name = obj.name
  const classes = readClasses(attr(obj, 'classes_'), name)
  const estimators = buildMembers(obj, 'estimators_', ctx)
  const methods = items(attr(obj, 'stack_method_'), `${name}.stack_method_`)
  if (methods.length !== estimators.length) shapeError(`${name}.stack_method_ has ${methods.length} methods for ${estimators.length} estimators in estimators_`)
  const stackMethods = methods.map((m, i) => {
    if (typeof m === 'string' && (STACK_METHODS as readonly string[]).includes(m)) return m as StackMethod
    return unsupported(`${name}.stack_method_[${i}] is ${describe(m)}; supported: ${STACK_METHODS.join(', ')}`)
  })
  const outs = param(obj, '_n_feature_outs', null)
  const featureOuts = outs === null ? null : items(outs, `${name}._n_feature_outs`).map(v => typeof v === 'number' ? v : Number(v))
  const finalEstimator = ctx.build('classifier', attr(obj, 'final_estimator_'), `${name}.final_estimator_`)
  const passthrough = bool(obj, 'passthrough', false)
  return {
    type: 'stacking',
    kind: name,
    classes,
    estimators,
    stackMethods,
    finalEstimator,
    passthrough,
    featureOuts,
    params: { estimators: estimators.map(e => e.kind), stack_method: stackMethods, final_estimator: finalEstimator.kind, passthrough }
  }
}

/** The meta columns a member gives (`_concatenate_predictions`). */
function metaWidth (member: Classifier, method: StackMethod, nClasses: number): number {
  const n = member.classes.length
  switch (method) {
    case 'predict': return 1
    case 'decision_function': return n === 2 ? 1 : n
    case 'predict_proba': return nClasses === 2 ? n - 1 : n
  }
}

function create (state: StackingState, ctx: CreateContext): Classifier {
  const { classes, stackMethods, passthrough, kind } = state
  const nClasses = classes.length
  const where = (i: number): string => `${kind}.estimators_[${i}]`
  const members = state.estimators.map(s => ctx.create('classifier', s))
  const final = ctx.create('classifier', state.finalEstimator)
  const labelMaps = members.map((m, i) => encodedClassIndices(m.classes, nClasses, where(i)))
  const finalMap = encodedClassIndices(final.classes, nClasses, `${kind}.final_estimator_`)
  if (final.classes.length !== nClasses || finalMap.some((k, j) => k !== j)) {
    shapeError(`${kind}.final_estimator_ has classes ${final.classes.join(', ')}, not the encoded classes 0..${nClasses - 1}`)
  }
  members.forEach((m, i) => {
    const method = stackMethods[i]!
    if ((method === 'predict_proba' && !m.hasProba) || (method === 'decision_function' && !m.hasDecision)) {
      unsupported(`${where(i)} (${m.kind}) has no ${method}, which stack_method_[${i}] names`)
    }
  })
  const widths = members.map((m, i) => metaWidth(m, stackMethods[i]!, nClasses))
  if (state.featureOuts !== null && (state.featureOuts.length !== widths.length || state.featureOuts.some((w, i) => w !== widths[i]))) {
    shapeError(`${kind}._n_feature_outs is [${state.featureOuts.join(', ')}] but the estimators give [${widths.join(', ')}] columns`)
  }
  const nMeta = widths.reduce((a, b) => a + b, 0)
  const nFeatures = commonWidth(members, where)
  const finalWidth = nMeta + (passthrough ? nFeatures : 0)
  if (final.nFeatures >= 0 && (nFeatures >= 0 || !passthrough) && final.nFeatures !== finalWidth) {
    shapeError(`${kind}.final_estimator_ (${final.kind}) expects ${final.nFeatures} features but the estimators${passthrough ? ' and passthrough' : ''} give ${finalWidth}`)
  }

  /** The meta features of one row, in member order. */
  const metaFeatures = (row: SparseRow): Float64Array => {
    const meta = new Float64Array(nMeta)
    let at = 0
    members.forEach((m, e) => {
      const scores = m.score(row)
      switch (stackMethods[e]!) {
        case 'predict':
          meta[at] = labelMaps[e]![scores.classIndex]!
          break
        case 'decision_function':
          meta.set(scores.decision!, at)
          break
        case 'predict_proba':
          // Two classes: preds[:, 1:], by position.
          meta.set(nClasses === 2 ? scores.proba!.subarray(1) : scores.proba!, at)
      }
      at += widths[e]!
    })
    return meta
  }

  /**
   * sparse.hstack([meta..., X], format='csr'): meta nonzeros, then the row's entries shifted
   * by nMeta; the COO-to-CSR conversion leaves each row's columns ascending.
   */
  const withPassthrough = (meta: Float64Array, row: SparseRow): SparseRow => {
    const sorted = sortedEntries(row)
    const metaCols: number[] = []
    for (let j = 0; j < nMeta; j++) if (meta[j] !== 0) metaCols.push(j)
    const n = metaCols.length + sorted.indices.length
    const indices = new Int32Array(n)
    const values = new Float64Array(n)
    metaCols.forEach((j, p) => { indices[p] = j; values[p] = meta[j]! })
    sorted.indices.forEach((c, e) => { indices[metaCols.length + e] = c + nMeta; values[metaCols.length + e] = sorted.values[e]! })
    return { indices, values, float32: false }
  }

  return {
    kind,
    nFeatures,
    classes,
    hasProba: final.hasProba,
    hasDecision: final.hasDecision,
    confidence: final.confidence,
    params: state.params,
    score: (row: SparseRow): Scores => {
      const meta = metaFeatures(row)
      return final.score(passthrough ? withPassthrough(meta, row) : denseRow(meta))
    }
  }
}

/** What create and scoring rely on in a StackingState (from a compiled file, or just built). */
function check (state: unknown, where: string, ctx: CheckContext): asserts state is StackingState {
  const f = new Fields(state, where)
  f.strings('classes', 2)
  const n = checkMembers(f, 'estimators', ctx).length
  const methods = f.list('stackMethods')
  if (methods.length !== n || !methods.every(m => m === 'predict_proba' || m === 'decision_function' || m === 'predict')) throw shapeProblem(`${where}.stackMethods`, `are not ${n} stack methods`)
  ctx.check('classifier', f.value('finalEstimator'), `${where}.finalEstimator`)
  f.bool('passthrough')
  f.nullable('featureOuts', name => f.numbers(name))
  f.object('params')
}

export const stackingClassifier = defineEstimator<StackingState, 'classifier'>({
  type: 'stacking',
  role: 'classifier',
  names: ['StackingClassifier'],
  build,
  check,
  create
})
