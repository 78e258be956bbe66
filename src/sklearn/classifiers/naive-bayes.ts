/**
 * MultinomialNB, ComplementNB and BernoulliNB `_joint_log_likelihood`, `predict` and
 * `predict_proba` (exp of jll - logsumexp(jll)), as scikit-learn computes them.
 */
import type { PyObject } from '../../pickle/values.js'
import { defineEstimator, probabilistic, type Classifier, type EstimatorState, type Scores } from '../estimator.js'
import { argmax, logSumExp, numpySum, sparseDotPlus } from '../math.js'
import { attr, describe, float64Array, param, readClasses, unsupported } from '../record.js'
import type { SparseRow } from '../sparse-row.js'
import { Fields, MAX_FEATURES } from '../state-fields.js'

export interface NaiveBayesState extends EstimatorState {
  readonly classes: readonly string[]
  /** Per-feature weights, transposed: nFeatures rows of nClasses (Bernoulli: flp - log(1 - exp(flp))). */
  readonly weightT: Float64Array
  /** Added to every jll after the product (class_log_prior_, plus Bernoulli's neg_prob sums). */
  readonly offset: Float64Array
  readonly nFeatures: number
  /** BernoulliNB's `binarize` threshold, or null. */
  readonly binarize: number | null
  readonly params: Readonly<Record<string, unknown>>
}

function build (obj: PyObject): NaiveBayesState {
  const name = obj.name
  const classes = readClasses(attr(obj, 'classes_'), name)
  const c = classes.length
  const flpValue = attr(obj, 'feature_log_prob_')
  const flp = float64Array(flpValue, `${name}.feature_log_prob_`, [c, -1])
  const f = flp.length / c
  const prior = float64Array(attr(obj, 'class_log_prior_'), `${name}.class_log_prior_`, [c])
  const weightT = new Float64Array(c * f)
  const offset = new Float64Array(c)
  let binarize: number | null = null
  if (name === 'BernoulliNB') {
    // jll = X @ (flp - neg).T + (class_log_prior_ + neg.sum(axis=1)), neg = log(1 - exp(flp))
    const neg = flp.map(v => Math.log(1 - Math.exp(v)))
    for (let k = 0; k < c; k++) {
      for (let j = 0; j < f; j++) weightT[j * c + k] = flp[k * f + j]! - neg[k * f + j]!
      offset[k] = prior[k]! + numpySum(neg, k * f, (k + 1) * f)
    }
    const b = param(obj, 'binarize', 0)
    binarize = b === null ? null : typeof b === 'number' ? b : unsupported(`${name}.binarize is ${describe(b)}`)
  } else {
    for (let k = 0; k < c; k++) for (let j = 0; j < f; j++) weightT[j * c + k] = flp[k * f + j]!
    if (name === 'MultinomialNB' || c === 1) offset.set(prior)
  }
  return { type: 'naive-bayes', kind: name, classes, weightT, offset, nFeatures: f, binarize, params: { alpha: param(obj, 'alpha', null) } }
}

function create (state: NaiveBayesState): Classifier {
  const { weightT, offset, binarize, classes } = state
  const nClasses = classes.length
  const jointLogLikelihood = (row: SparseRow): Float64Array => {
    let { indices, values } = row
    if (binarize !== null) {
      // sklearn's binarize(): values above the threshold become 1, the rest drop out.
      const keep = Array.from(values.keys()).filter(e => values[e]! > binarize)
      indices = Int32Array.from(keep, e => indices[e]!)
      values = new Float64Array(keep.length).fill(1)
    }
    return sparseDotPlus(indices, values, weightT, nClasses, offset)
  }
  return probabilistic({
    kind: state.kind,
    nFeatures: state.nFeatures,
    classes,
    params: state.params,
    linearForm: { score: 'joint_log_likelihood', outputClasses: classes.map((_, k) => k), weightT, intercept: offset, binarize },
    score: (row: SparseRow): Scores => {
      const jll = jointLogLikelihood(row)
      const lse = logSumExp(jll)
      return { classIndex: argmax(jll), proba: jll.map(v => Math.exp(v - lse)), decision: undefined }
    }
  })
}

/** What create and scoring rely on in a NaiveBayesState (from a compiled file, or just built). */
function check (state: unknown, where: string): asserts state is NaiveBayesState {
  const f = new Fields(state, where)
  const k = f.strings('classes', 1).length
  const n = f.int('nFeatures', 0, MAX_FEATURES)
  f.array('weightT', Float64Array, n * k)
  f.array('offset', Float64Array, k)
  f.nullable('binarize', name => f.number(name))
  f.object('params')
}

export const naiveBayes = defineEstimator<NaiveBayesState, 'classifier'>({
  type: 'naive-bayes',
  role: 'classifier',
  names: ['MultinomialNB', 'ComplementNB', 'BernoulliNB'],
  build,
  check,
  create
})
