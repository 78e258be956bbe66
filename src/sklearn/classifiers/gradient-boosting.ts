/**
 * GradientBoostingClassifier: raw scores start from the init estimator (`init_`: a
 * DummyClassifier prior, any classifier with predict_proba, or 'zero'), then every stage
 * adds `learning_rate * leaf value` of its K regression trees (predict_stages: product
 * rounded, then added; trees read the float32 row). The loss picks the link and how
 * probabilities and labels follow, and both moved between versions:
 *
 * | written by           | < 1.4 (`_gb_losses`)             | >= 1.4 (`sklearn._loss`)          |
 * |----------------------|----------------------------------|-----------------------------------|
 * | binary init          | log(p / (1 - p))                  | scipy logit(p)                     |
 * | multiclass init      | log(p)                            | log(p / gmean(p)) (centred)        |
 * | init clip eps        | float32 eps                       | float32 eps; float64 eps from 1.8  |
 * | multiclass proba     | exp(raw - logsumexp(raw))         | softmax(raw)                       |
 * | binary label         | argmax [1 - p, p] (raw 0 -> 0)    | raw >= 0 (raw 0 -> 1)              |
 * | multiclass label     | argmax proba                      | argmax raw                         |
 *
 * Exponential loss: init 0.5 * logit(p), p = expit(2 * raw), label raw >= 0. The pickled
 * loss objects (plain or Cython) carry no state prediction needs; `loss` and K decide.
 * Before 0.21 `init_` was a LogOddsEstimator, ScaledLogOddsEstimator or
 * PriorProbabilityEstimator whose `prior` / `priors` are the raw scores themselves.
 */
import { NdArray } from '../../pickle/numpy.js'
import { PyObject } from '../../pickle/values.js'
import { defineEstimator, type BuildContext, type Classifier, type CreateContext, type EstimatorState, type Scores, type CheckContext } from '../estimator.js'
import { argmax, expit, logSumExp, numpySum, softmaxInPlace } from '../math.js'
import { attr, choice, describe, float64Array, num, readClasses, shapeError, sklearnClass, unsupported, writtenSince } from '../record.js'
import type { SparseRow } from '../sparse-row.js'
import { explainedBy } from './tree-explainer.js'
import { RowLookup, applyTree, featureCount, readEstimatorTree, type TreeState } from './tree.js'
import { checkTreeState } from './tree.js'
import { Fields, MAX_FEATURES, shapeProblem } from '../state-fields.js'

interface GradientBoostingState extends EstimatorState {
  readonly classes: readonly string[]
  readonly nFeatures: number
  /** Trees per stage: 1 for two classes, else one per class. */
  readonly k: number
  /** estimators_ in C order: stage 0's K trees, then stage 1's, ... */
  readonly trees: readonly TreeState[]
  readonly learningRate: number
  readonly exponential: boolean
  /** The init estimator's state, or null for init='zero' or constant raw scores. */
  readonly init: EstimatorState | null
  /** Raw scores to start from when they do not depend on the row (before 0.21). */
  readonly initRaw: Float64Array | null
  /** Written by scikit-learn 1.4 or later (the `sklearn._loss` rules above). */
  readonly since14: boolean
  /** Clip of the init probabilities: float32 eps, float64 eps from 1.8. */
  readonly eps: number
}

const EPS32 = 2 ** -23
const EPS64 = 2 ** -52

/** `estimators_`: an object array (n_stages, K) of DecisionTreeRegressor, in C order. */
function stageTrees (obj: PyObject, k: number, nFeatures: number): TreeState[] {
  const value = attr(obj, 'estimators_')
  if (!(value instanceof NdArray) || value.dtype.kind !== 'O' || value.shape.length !== 2 || !Array.isArray(value.data)) {
    return shapeError(`${obj.name}.estimators_ is ${describe(value)}, not an array of trees`)
  }
  if (value.shape[1] !== k) shapeError(`${obj.name}.estimators_ has ${value.shape[1]} trees per stage for ${k === 1 ? 2 : k} classes`)
  if (value.shape[0] === 0) shapeError(`${obj.name}.estimators_ has no stage`)
  return value.data.map((est, i) => {
    const what = `${obj.name}.estimators_[${Math.floor(i / k)}, ${i % k}]`
    if (sklearnClass(est) !== 'DecisionTreeRegressor') return unsupported(`${what} is ${describe(est)}, not a DecisionTreeRegressor`)
    const tree = readEstimatorTree(est as PyObject, what, nFeatures, 1)
    if (tree.width !== 1) shapeError(`${what}.tree_.values has ${tree.width} columns, expected 1`)
    return tree
  })
}

function build (obj: PyObject, ctx: BuildContext): GradientBoostingState {
  const classes = readClasses(attr(obj, 'classes_'), obj.name)
  const loss = choice(obj, 'loss', ['log_loss', 'deviance', 'exponential'], 'log_loss')
  const exponential = loss === 'exponential'
  if (exponential && classes.length !== 2) unsupported(`${obj.name} with loss 'exponential' needs 2 classes, not ${classes.length}`)
  const k = classes.length === 2 ? 1 : classes.length
  const nFeatures = featureCount(obj)
  const initValue = attr(obj, 'init_')
  let init: EstimatorState | null = null
  let initRaw: Float64Array | null = null
  const initClass = initValue instanceof PyObject ? initValue.name : ''
  if (initClass === 'LogOddsEstimator' || initClass === 'ScaledLogOddsEstimator') {
    initRaw = Float64Array.of(num(initValue as PyObject, 'prior'))
  } else if (initClass === 'PriorProbabilityEstimator') {
    initRaw = float64Array((initValue as PyObject).get('priors'), `${obj.name}.init_.priors`, [k])
  } else if (initValue !== 'zero') {
    init = ctx.build('classifier', initValue, `${obj.name}.init_`)
    const initClasses = (init as { classes?: readonly string[] }).classes
    if (initClasses !== undefined && initClasses.length !== classes.length) shapeError(`${obj.name}.init_ has ${initClasses.length} classes for ${classes.length}`)
  }
  return {
    type: 'gradient-boosting',
    kind: obj.name,
    classes,
    nFeatures,
    k,
    trees: stageTrees(obj, k, nFeatures),
    learningRate: num(obj, 'learning_rate'),
    exponential,
    init,
    initRaw,
    since14: writtenSince(obj, 1, 4),
    eps: writtenSince(obj, 1, 8) ? EPS64 : EPS32
  }
}

/** scipy.special.logit (xsf, used from scikit-learn 1.4): two branches for accuracy near 1/2. */
function logit (x: number): number {
  if (x < 0.3 || x > 0.65) return Math.log(x / (1 - x))
  const s = 2 * (x - 0.5)
  return Math.log1p(s) - Math.log1p(-s)
}

const clip = (p: number, eps: number): number => Math.min(Math.max(p, eps), 1 - eps)

/** The init estimator's probabilities as raw scores (`get_init_raw_predictions` / `_init_raw_predictions`). */
function initRaw (state: GradientBoostingState, proba: Float64Array): Float64Array {
  const { k, eps, since14, exponential } = state
  if (k === 1) {
    const p = clip(proba[1]!, eps)
    const logOdds = since14 ? logit(p) : Math.log(p / (1 - p))
    return Float64Array.of(exponential ? 0.5 * logOdds : logOdds)
  }
  const p = proba.map(v => clip(v, eps))
  if (!since14) return p.map(Math.log)
  // MultinomialLogit.link: log(p / gmean(p)), gmean = exp(mean(log p)).
  const gm = Math.exp(numpySum(p.map(Math.log)) / k)
  return p.map(v => Math.log(v / gm))
}

function create (state: GradientBoostingState, ctx: CreateContext): Classifier {
  const { k, trees, learningRate, exponential, since14, classes } = state
  const init = state.init === null ? null : ctx.create('classifier', state.init)
  const lookup = new RowLookup(state.nFeatures)
  // A DummyClassifier init (the default since 0.21) answers the same whatever the row: once.
  const constantInit = state.initRaw ?? (init !== null && state.init!.type === 'dummy'
    ? initRaw(state, init.score({ indices: new Int32Array(0), values: new Float64Array(0), float32: true }).proba!)
    : null)
  const rawScores = (row: SparseRow): Float64Array => {
    let raw: Float64Array
    if (constantInit !== null) {
      raw = constantInit.slice()
    } else if (init === null) {
      raw = new Float64Array(k)
    } else {
      // The init estimator sees X as the trees do: cast to float32 (_validate_X_predict).
      const row32 = { indices: row.indices, values: row.values.map(Math.fround), float32: true }
      raw = initRaw(state, init.score(row32).proba!)
    }
    lookup.load(row)
    for (let i = 0; i < trees.length; i++) {
      const tree = trees[i]!
      raw[i % k]! += learningRate * tree.values[applyTree(tree, lookup.values)]!
    }
    lookup.clear()
    return raw
  }
  return {
    kind: state.kind,
    nFeatures: state.nFeatures,
    classes,
    hasProba: true,
    hasDecision: true,
    // Margin space: decision_function, each stage's trees scaled by learning_rate (shap's `scaling`).
    ...explainedBy(state.kind, {
      space: 'margin',
      outputClasses: k === 1 ? [1] : classes.map((_, c) => c),
      nFeatures: state.nFeatures,
      trees: trees.map((tree, i) => ({ tree, width: 1, firstOutput: i % k, scale: learningRate, normalize: false })),
      offset: constantInit ?? new Float64Array(k),
      output: rawScores
    }, constantInit === null && init !== null ? `its init estimator (${state.init!.kind}) gives each text its own starting score, and TreeSHAP explains trees from a constant start` : undefined),
    confidence: 'predict_proba',
    params: { loss: exponential ? 'exponential' : 'log_loss', n_estimators: trees.length / k, learning_rate: learningRate },
    score: (row: SparseRow): Scores => {
      const raw = rawScores(row)
      if (k === 1) {
        const p1 = expit(exponential ? 2 * raw[0]! : raw[0]!)
        const proba = Float64Array.of(1 - p1, p1)
        // Before 1.4 the binomial label is argmax([1 - p, p]) (raw 0 gives class 0).
        const classIndex = since14 || exponential ? (raw[0]! >= 0 ? 1 : 0) : argmax(proba)
        return { classIndex, proba, decision: raw }
      }
      if (since14) return { classIndex: argmax(raw), proba: softmaxInPlace(raw.slice()), decision: raw }
      const lse = logSumExp(raw)
      const proba = raw.map(v => Math.exp(v - lse))
      return { classIndex: argmax(proba), proba, decision: raw }
    }
  }
}

/** What create and scoring rely on in a GradientBoostingState (from a compiled file, or just built). */
function check (state: unknown, where: string, ctx: CheckContext): asserts state is GradientBoostingState {
  const f = new Fields(state, where)
  const nClasses = f.strings('classes', 2).length
  const nFeatures = f.int('nFeatures', 1, MAX_FEATURES)
  const k = f.int('k', 1)
  if (k !== (nClasses === 2 ? 1 : nClasses)) throw shapeProblem(`${where}.k`, `is ${k} for ${nClasses} classes`)
  const trees = f.list('trees', k)
  if (trees.length % k !== 0) throw shapeProblem(`${where}.trees`, `are ${trees.length}, not stages of ${k}`)
  // Regression trees: one value per node, read at the leaf.
  trees.forEach((t, i) => { checkTreeState(t, `${where}.trees[${i}]`, nFeatures, 1); if (new Fields(t, '').int('width', 1, 1) !== 1) throw shapeProblem(`${where}.trees[${i}]`, 'is not a regression tree') })
  f.number('learningRate')
  f.bool('exponential')
  f.bool('since14')
  f.number('eps')
  f.nullable('initRaw', name => f.array(name, Float64Array, k))
  f.nullable('init', name => {
    ctx.check('classifier', f.value(name), `${where}.${name}`)
    const own = f.object(name).strings('classes', 1).length
    if (own !== nClasses) throw shapeProblem(`${where}.init`, `has ${own} classes for ${nClasses}`)
  })
}

export const gradientBoosting = defineEstimator<GradientBoostingState, 'classifier'>({
  type: 'gradient-boosting',
  role: 'classifier',
  names: ['GradientBoostingClassifier'],
  build,
  check,
  create
})
