/**
 * HistGradientBoostingClassifier (sklearn/ensemble/_hist_gradient_boosting). It refuses
 * sparse input, so an app always hands it the vectorizer's row densified (`.toarray()`): an
 * absent word is the value 0.0, a number like any other, never a missing value.
 *
 * `_raw_predict`: raw scores start at `_baseline_prediction` (zeros + baseline), then every
 * iteration of `_predictors` (only the fitted ones: early stopping keeps no others) adds, per
 * class k, the leaf value its TreePredictor gives the row. A TreePredictor's `nodes` is a
 * structured array (PREDICTOR_RECORD_DTYPE: value, count, feature_idx, num_threshold,
 * missing_go_to_left, left, right, ..., is_leaf, ..., is_categorical); the row is float64
 * (X_DTYPE) as given, `x <= num_threshold` goes left, NaN goes by missing_go_to_left; leaf
 * values already carry the learning rate. Nodes are numbered depth first (children after
 * their parent).
 *
 * | written by       | before 1.4                              | 1.4 and later                  |
 * |------------------|-----------------------------------------|--------------------------------|
 * | predict (binary) | argmax [1 - p, p] (p = 0.5 gives class 0)| raw > 0 (raw 0 gives class 0)  |
 * | predict (multi)  | argmax predict_proba                    | argmax raw                     |
 *
 * predict_proba is the loss's: HalfBinomialLoss (sklearn._loss, 1.1+) and BinaryCrossEntropy
 * (the booster's own loss.py before 1.1) give [1 - expit(raw), expit(raw)]; HalfMultinomialLoss
 * gives sklearn's softmax (max taken off, exp, divided by the sum), CategoricalCrossEntropy
 * exp(raw - logsumexp(raw)). decision_function is the raw scores (one value for two classes).
 * Checked against 1.2.1 and 1.6.1. Files before 1.1 are read as their source has them (those
 * losses, in `_loss` or `loss_`; a scalar or (K, 1) baseline; `n_features_`), untested: no
 * older scikit-learn runs here to compare with.
 *
 * Categorical splits (categorical_features) are refused.
 */
import { NdArray, type NumericArray } from '../../pickle/numpy.js'
import { PyObject, type PyValue } from '../../pickle/values.js'
import { defineEstimator, type Classifier, type EstimatorState, type Scores } from '../estimator.js'
import { argmax, expit, logSumExp, numpyRowSum } from '../math.js'
import { attr, describe, int, items, readClasses, sklearnClass, shapeError, toFloat64, unsupported, writtenSince } from '../record.js'
import type { SparseRow } from '../sparse-row.js'
import { PathScratch, ShapFeatures, addTreeShap, attribution, depthRefusal, fillExpectations, treeDepth, type ShapTree, type TreeAttribution } from '../tree-shap.js'
import { checkStructure, checkTreeState, featureCount, nodeColumn, type TreeState } from './tree.js'
import { Fields, MAX_FEATURES, shapeProblem } from '../state-fields.js'

export type HistLoss = 'binomial' | 'multinomial' | 'binary_crossentropy' | 'categorical_crossentropy'

interface HistGradientBoostingState extends EstimatorState {
  readonly classes: readonly string[]
  readonly nFeatures: number
  /** Trees per iteration (n_trees_per_iteration_): 1 for two classes, else one per class. */
  readonly k: number
  /** `_baseline_prediction`, one per tree of an iteration. */
  readonly baseline: Float64Array
  /** `_predictors` in order: iteration 0's k trees, then iteration 1's, ... (values: each node's `value`, cover: its `count`). */
  readonly trees: readonly TreeState[]
  readonly loss: HistLoss
  /** Written by scikit-learn 1.4 or later: predict from the raw scores (table above). */
  readonly since14: boolean
}

const LOSSES: Readonly<Record<string, HistLoss>> = {
  HalfBinomialLoss: 'binomial',
  HalfMultinomialLoss: 'multinomial',
  BinaryCrossEntropy: 'binary_crossentropy',
  CategoricalCrossEntropy: 'categorical_crossentropy'
}

/** The fitted loss: `_loss` (1.1+), else `loss_`. */
function readLoss (obj: PyObject, k: number): HistLoss {
  const value = obj.has('_loss') ? obj.get('_loss') : attr(obj, 'loss_')
  const name = value instanceof PyObject ? value.name : undefined
  const loss = name === undefined ? undefined : LOSSES[name]
  if (loss === undefined) return unsupported(`${obj.name}'s loss is ${describe(value)}, not log_loss (HalfBinomialLoss, HalfMultinomialLoss)`)
  if ((loss === 'binomial' || loss === 'binary_crossentropy') !== (k === 1)) shapeError(`${obj.name} has a ${name!} for ${k} trees per iteration`)
  return loss
}

/** A TreePredictor's `nodes` to a TreeState: -1 for the children of a leaf, `count` as the cover. */
function readPredictor (value: PyValue, what: string, nFeatures: number): TreeState {
  if (sklearnClass(value) !== 'TreePredictor') return unsupported(`${what} is ${describe(value)}, not a TreePredictor`)
  const array = (value as PyObject).get('nodes')
  if (!(array instanceof NdArray) || !(array.data instanceof Map) || array.shape.length !== 1) return shapeError(`${what}.nodes is ${describe(array)}, not a node array`)
  const nodes = array.data
  const nodeCount = array.size
  if (nodeCount < 1) shapeError(`${what}.nodes is empty`)
  const col = (name: string): NumericArray => nodeColumn(nodes, name, what)
  const leaf = col('is_leaf')
  if (nodes.has('is_categorical')) {
    const categorical = col('is_categorical')
    for (let node = 0; node < nodeCount; node++) {
      if (Number(categorical[node]) !== 0 && Number(leaf[node]) === 0) unsupported(`${what} splits on a categorical feature: HistGradientBoostingClassifier with categorical_features is not supported`)
    }
  }
  const isLeaf = (node: number): boolean => Number(leaf[node]) !== 0
  // A field per node, 0 (leaves: -1 for a child) where the leaf's entry means nothing.
  const field = (c: NumericArray, atLeaf: number | null): number[] => Array.from({ length: nodeCount }, (_, node) => atLeaf !== null && isLeaf(node) ? atLeaf : Number(c[node]))
  const left = Int32Array.from(field(col('left'), -1))
  const right = Int32Array.from(field(col('right'), -1))
  const feature = Int32Array.from(field(col('feature_idx'), 0))
  // Files before 0.24 name it `threshold` (as shap's note on the fields still does).
  const threshold = Float64Array.from(field(nodes.has('num_threshold') ? col('num_threshold') : col('threshold'), 0))
  const missingGoLeft = nodes.has('missing_go_to_left') ? Uint8Array.from(field(col('missing_go_to_left'), null)) : new Uint8Array(nodeCount)
  const values = Float64Array.from(field(col('value'), null))
  const cover = Float64Array.from(field(col('count'), null))
  const tree: TreeState = { nodeCount, left, right, feature, threshold, missingGoLeft, values, width: 1, cover }
  checkStructure(tree, what, nFeatures, -1)
  return tree
}

/** `_baseline_prediction`: (1, K) from 1.1; before, a scalar (binary) or (K, 1). */
function readBaseline (obj: PyObject, k: number): Float64Array {
  const value = attr(obj, '_baseline_prediction')
  const baseline = typeof value === 'number'
    ? Float64Array.of(value)
    : value instanceof NdArray && 'iuf'.includes(value.dtype.kind) && value.dtype.fields === undefined ? toFloat64(value, `${obj.name}._baseline_prediction`).slice() : undefined
  if (baseline?.length !== k) return shapeError(`${obj.name}._baseline_prediction is ${describe(value)}, not ${k} value${k === 1 ? '' : 's'}`)
  return baseline
}

function build (obj: PyObject): HistGradientBoostingState {
  const classes = readClasses(attr(obj, 'classes_'), obj.name)
  // `_n_features` where a file has neither n_features_in_ nor n_features_.
  const nFeatures = !obj.has('n_features_in_') && !obj.has('n_features_') && obj.has('_n_features') ? int(obj, '_n_features') : featureCount(obj)
  const k = int(obj, 'n_trees_per_iteration_')
  if (k !== (classes.length === 2 ? 1 : classes.length)) shapeError(`${obj.name}.n_trees_per_iteration_ is ${k} for ${classes.length} classes`)
  const categorical = obj.get('is_categorical_')
  if (categorical instanceof NdArray && Array.from(categorical.data as NumericArray, Number).some(c => c !== 0)) {
    unsupported(`${obj.name} with categorical_features is not supported (its categorical splits)`)
  }
  const iterations = items(attr(obj, '_predictors'), `${obj.name}._predictors`)
  if (iterations.length === 0) shapeError(`${obj.name}._predictors holds no iteration`)
  const trees = iterations.flatMap((it, i) => {
    const perClass = items(it, `${obj.name}._predictors[${i}]`)
    if (perClass.length !== k) shapeError(`${obj.name}._predictors[${i}] has ${perClass.length} trees for ${k} per iteration`)
    return perClass.map((p, c) => readPredictor(p, `${obj.name}._predictors[${i}][${c}]`, nFeatures))
  })
  return {
    type: 'hist-gradient-boosting',
    kind: obj.name,
    classes,
    nFeatures,
    k,
    baseline: readBaseline(obj, k),
    trees,
    loss: readLoss(obj, k),
    since14: writtenSince(obj, 1, 4)
  }
}

/** The child a float64 row goes to at split `node` (`_predict_one_from_raw_data`, numeric splits). */
function nextNode (t: TreeState, node: number, x: Float64Array): number {
  const v = x[t.feature[node]!]!
  return v !== v ? (t.missingGoLeft[node] === 1 ? t.left[node]! : t.right[node]!) : v <= t.threshold[node]! ? t.left[node]! : t.right[node]!
}

/** The leaf a float64 row reaches. */
function leafOf (t: TreeState, x: Float64Array): number {
  let node = 0
  while (t.left[node] !== -1) node = nextNode(t, node, x)
  return node
}

/**
 * The dense float64 row `.toarray()` makes of a sparse one, held in a zeroed scratch array
 * and cleared after: duplicate entries summed as toarray sums them (in float32 for a float32 row).
 */
class DenseRow {
  readonly values: Float64Array
  #row: SparseRow | undefined

  constructor (nFeatures: number) {
    this.values = new Float64Array(nFeatures)
  }

  load (row: SparseRow): Float64Array {
    this.#row = row
    const x = this.values
    for (let e = 0; e < row.indices.length; e++) {
      const j = row.indices[e]!
      x[j] = row.float32 ? Math.fround(x[j]! + row.values[e]!) : x[j]! + row.values[e]!
    }
    return x
  }

  clear (): void {
    const row = this.#row
    if (row !== undefined) for (let e = 0; e < row.indices.length; e++) this.values[row.indices[e]!] = 0
    this.#row = undefined
  }
}

/**
 * shap's TreeExplainer for this model (shap/explainers/_tree.py, HistGradientBoostingClassifier):
 * each TreePredictor becomes a tree of its nodes' `value` with `count` as the covers (internal
 * values then recomputed from the leaves, compute_expectations), tree i of the flattened
 * `_predictors` explaining output i % K; input float64 (X_DTYPE); base_offset the baseline;
 * model_output 'raw' (the decision function), the only one shap allows with K outputs.
 */
function explainer (state: HistGradientBoostingState, depths: readonly number[], rawOf: (row: SparseRow) => Float64Array): (row: SparseRow) => TreeAttribution {
  const { k, trees } = state
  const outputClasses = k === 1 ? [1] : state.classes.map((_, c) => c)
  let built: { slots: ShapFeatures, shap: ShapTree[], expected: Float64Array, dense: DenseRow } | undefined
  const path = new PathScratch()
  const build = (): NonNullable<typeof built> => {
    const splits: number[] = []
    for (const t of trees) for (let node = 0; node < t.nodeCount; node++) if (t.left[node]! >= 0) splits.push(t.feature[node]!)
    const slots = new ShapFeatures(splits)
    const roots = new Float64Array(trees.length)
    const shap = trees.map((t, i) => {
      const values = t.values.slice()
      fillExpectations(t.left, t.right, t.cover, values, 1)
      roots[i] = values[0]!
      const slot = Int32Array.from(t.feature, (f, node) => t.left[node]! < 0 ? -1 : slots.slotOf(f))
      return { left: t.left, right: t.right, slot, cover: t.cover, values, width: 1, maxDepth: depths[i]! }
    })
    // shap: values[:, 0].sum(0) + base_offset, values a (trees, nodes, K) array: numpy sums
    // one output's root values pairwise from 0, several outputs' one row after another.
    const expected = state.baseline.map((b, c) => {
      if (k === 1) return numpyRowSum(roots) + b
      let sum = 0
      for (let i = c; i < roots.length; i += k) sum += roots[i]!
      return sum + b
    })
    return { slots, shap, expected, dense: new DenseRow(state.nFeatures) }
  }
  return row => {
    built ??= build()
    const { slots, shap, expected, dense } = built
    const phi = new Float64Array(slots.columns.length * k)
    const x = dense.load(row)
    try {
      shap.forEach((tree, i) => {
        const t = trees[i]!
        addTreeShap(tree, node => nextNode(t, node, x), phi, k, i % k, path)
      })
    } finally {
      dense.clear()
    }
    return attribution({ space: 'margin', outputClasses, expected: expected.slice(), output: rawOf(row) }, slots, phi)
  }
}

/**
 * sklearn.utils.extmath.softmax of the raw scores: the row's max taken off, exp, divided by
 * the sum. `_raw_predict` builds its scores Fortran-ordered (and softmax's copy keeps that
 * order), so numpy sums each row's values one after another, not pairwise.
 */
function softmax (raw: Float64Array): Float64Array {
  let max = -Infinity
  for (const v of raw) if (v > max) max = v
  const out = raw.map(v => Math.exp(v - max))
  let sum = 0
  for (const v of out) sum += v
  for (let i = 0; i < out.length; i++) out[i] = out[i]! / sum
  return out
}

function create (state: HistGradientBoostingState): Classifier {
  const { k, trees, baseline, loss, since14, classes } = state
  const dense = new DenseRow(state.nFeatures)
  const rawScores = (row: SparseRow): Float64Array => {
    // np.zeros + _baseline_prediction, then each iteration's trees in order.
    const raw = baseline.map(b => 0 + b)
    const x = dense.load(row)
    try {
      for (let i = 0; i < trees.length; i++) {
        const t = trees[i]!
        raw[i % k] = raw[i % k]! + t.values[leafOf(t, x)]!
      }
    } finally {
      dense.clear()
    }
    return raw
  }
  const iterations = trees.length / k
  const depths = trees.map(t => treeDepth(t.left, t.right))
  const deep = depthRefusal(depths.reduce((a, b) => Math.max(a, b), 0))
  return {
    kind: state.kind,
    nFeatures: state.nFeatures,
    classes,
    hasProba: true,
    hasDecision: true,
    confidence: 'predict_proba',
    params: { loss: 'log_loss', n_iter: iterations, n_trees_per_iteration: k },
    // Trees past the depth bound are refused like every other family's.
    ...(deep !== undefined ? { explainRefusal: `${state.kind}: ${deep}` } : { shapSpace: 'margin' as const, shapValues: explainer(state, depths, rawScores) }),
    score: (row: SparseRow): Scores => {
      const raw = rawScores(row)
      if (k === 1) {
        const p1 = expit(raw[0]!)
        const proba = Float64Array.of(1 - p1, p1)
        return { classIndex: since14 ? (raw[0]! > 0 ? 1 : 0) : argmax(proba), proba, decision: raw }
      }
      let proba: Float64Array
      if (loss === 'multinomial') {
        proba = softmax(raw)
      } else {
        const lse = logSumExp(raw)
        proba = raw.map(v => Math.exp(v - lse))
      }
      return { classIndex: since14 ? argmax(raw) : argmax(proba), proba, decision: raw }
    }
  }
}

/** What create and scoring rely on in a HistGradientBoostingState (from a compiled file, or just built). */
function check (state: unknown, where: string): asserts state is HistGradientBoostingState {
  const f = new Fields(state, where)
  const nClasses = f.strings('classes', 2).length
  const nFeatures = f.int('nFeatures', 1, MAX_FEATURES)
  const k = f.int('k', 1)
  if (k !== (nClasses === 2 ? 1 : nClasses)) throw shapeProblem(`${where}.k`, `is ${k} for ${nClasses} classes`)
  f.array('baseline', Float64Array, k)
  const trees = f.list('trees', k)
  if (trees.length % k !== 0) throw shapeProblem(`${where}.trees`, `are ${trees.length}, not iterations of ${k}`)
  // Regression trees whose every node has its value and its count (TreeSHAP's cover).
  trees.forEach((t, i) => {
    checkTreeState(t, `${where}.trees[${i}]`, nFeatures, 1)
    const tree = new Fields(t, `${where}.trees[${i}]`)
    const nodeCount = tree.int('nodeCount', 1)
    if (tree.int('width', 1, 1) !== 1) throw shapeProblem(tree.where, 'is not a regression tree')
    tree.array('cover', Float64Array, nodeCount)
    tree.array('missingGoLeft', Uint8Array, nodeCount)
  })
  const loss = f.oneOf('loss', ['binomial', 'multinomial', 'binary_crossentropy', 'categorical_crossentropy'])
  if ((loss === 'binomial' || loss === 'binary_crossentropy') !== (k === 1)) throw shapeProblem(`${where}.loss`, `is ${loss} for ${k} trees per iteration`)
  f.bool('since14')
}

export const histGradientBoosting = defineEstimator<HistGradientBoostingState, 'classifier'>({
  type: 'hist-gradient-boosting',
  role: 'classifier',
  names: ['HistGradientBoostingClassifier'],
  build,
  check,
  create
})
