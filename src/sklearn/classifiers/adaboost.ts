/**
 * AdaBoostClassifier over any supported base estimator, as scikit-learn 1.2 to 1.9 compute it:
 *
 * - SAMME: each estimator votes its weight for the class it predicts; from 1.3.1 it also
 *   votes -weight/(K-1) for every other class (before: 0). SAMME.R (written up to 1.5):
 *   each adds (K-1) * (log q - mean(log q)) of its probabilities q, clipped at float64 eps.
 * - decision = votes / sum(estimator_weights_) (numpy sum over the whole array, zeros of an
 *   early stop included); for two classes the single value -d0 + d1.
 * - predict: d > 0 for two classes, else argmax; predict_proba: softmax of [-d/2, d/2],
 *   or of d / (K - 1).
 */
import type { PyObject } from '../../pickle/values.js'
import { defineEstimator, type BuildContext, type Classifier, type CreateContext, type EstimatorState, type Scores, type CheckContext } from '../estimator.js'
import { argmax, numpySum, softmaxInPlace } from '../math.js'
import { attr, float64Array, param, readClasses, shapeError, unsupported, writtenSince } from '../record.js'
import type { SparseRow } from '../sparse-row.js'
import { buildMembers, checkMembers, commonWidth, labelClassIndices } from './inner.js'
import { summarize } from '../../pickle/summarize.js'
import { Fields } from '../state-fields.js'

interface AdaBoostState extends EstimatorState {
  readonly classes: readonly string[]
  readonly estimators: readonly EstimatorState[]
  /** estimator_weights_, one per fitted estimator (zip stops at the shorter). */
  readonly weights: Float64Array
  /** The numpy sum of the whole estimator_weights_ array. */
  readonly weightSum: number
  readonly real: boolean
  /** Written by 1.3.1 or later: SAMME's losing classes get -weight/(K-1). */
  readonly symmetric: boolean
}

const EPS64 = 2 ** -52

function build (obj: PyObject, ctx: BuildContext): AdaBoostState {
  const classes = readClasses(attr(obj, 'classes_'), obj.name)
  const estimators = buildMembers(obj, 'estimators_', ctx)
  const allWeights = float64Array(attr(obj, 'estimator_weights_'), `${obj.name}.estimator_weights_`, [-1])
  if (allWeights.length < estimators.length) shapeError(`${obj.name}.estimator_weights_ has ${allWeights.length} weights for ${estimators.length} estimators`)
  const algorithm = param(obj, 'algorithm', 'SAMME')
  if (algorithm !== 'SAMME' && algorithm !== 'SAMME.R' && algorithm !== 'deprecated') unsupported(`${obj.name}.algorithm is ${summarize(algorithm)}`)
  const real = algorithm === 'SAMME.R'
  return {
    type: 'adaboost',
    kind: obj.name,
    classes,
    estimators,
    weights: allWeights.slice(0, estimators.length),
    weightSum: numpySum(allWeights),
    real,
    symmetric: writtenSince(obj, 1, 3, 1)
  }
}

function create (state: AdaBoostState, ctx: CreateContext): Classifier {
  const { classes, weights, weightSum, real, symmetric } = state
  const k = classes.length
  const estimators = state.estimators.map(s => ctx.create('classifier', s))
  // Inner classes are the ensemble's own labels (fitted on the original y): map by value.
  const where = (i: number): string => `${state.kind}.estimators_[${i}]`
  const toOuter = estimators.map((e, i) => labelClassIndices(e.classes, classes, where(i)))
  if (real && estimators.some(e => !e.hasProba)) unsupported('AdaBoostClassifier SAMME.R needs estimators with predict_proba')
  const lose = -1 / (k - 1)
  const decisionOf = (row: SparseRow): Float64Array => {
    const pred = new Float64Array(k)
    const logq = real ? new Float64Array(k) : pred
    estimators.forEach((e, i) => {
      const scores = e.score(row)
      if (real) {
        logq.fill(0)
        scores.proba!.forEach((q, j) => { logq[toOuter[i]![j]!] = Math.log(Math.max(q, EPS64)) })
        const sum = numpySum(logq)
        for (let c = 0; c < k; c++) pred[c]! += (k - 1) * (logq[c]! - (1 / k) * sum)
      } else {
        const w = weights[i]!
        const won = toOuter[i]![scores.classIndex]!
        for (let c = 0; c < k; c++) pred[c]! += c === won ? w : symmetric ? lose * w : 0
      }
    })
    for (let c = 0; c < k; c++) pred[c] = pred[c]! / weightSum
    return pred
  }
  return {
    kind: state.kind,
    nFeatures: commonWidth(estimators, where),
    classes,
    hasProba: true,
    hasDecision: true,
    confidence: 'predict_proba',
    params: { algorithm: real ? 'SAMME.R' : 'SAMME', n_estimators: estimators.length },
    score: (row: SparseRow): Scores => {
      const pred = decisionOf(row)
      if (k === 2) {
        const d = -pred[0]! + pred[1]!
        return { classIndex: d > 0 ? 1 : 0, decision: Float64Array.of(d), proba: softmaxInPlace(Float64Array.of(-d / 2, d / 2)) }
      }
      return { classIndex: argmax(pred), decision: pred, proba: softmaxInPlace(pred.map(v => v / (k - 1))) }
    }
  }
}

/** What create and scoring rely on in a AdaBoostState (from a compiled file, or just built). */
function check (state: unknown, where: string, ctx: CheckContext): asserts state is AdaBoostState {
  const f = new Fields(state, where)
  f.strings('classes', 2)
  const n = checkMembers(f, 'estimators', ctx).length
  f.array('weights', Float64Array, n)
  f.number('weightSum')
  f.bool('real')
  f.bool('symmetric')
}

export const adaBoost = defineEstimator<AdaBoostState, 'classifier'>({
  type: 'adaboost',
  role: 'classifier',
  names: ['AdaBoostClassifier'],
  build,
  check,
  create
})
