/**
 * scikit-learn's decision trees: the `Tree` object's node and value arrays read into typed
 * arrays (checked so that every walk ends at a leaf within the arrays), the walk of one row,
 * and DecisionTreeClassifier / ExtraTreeClassifier themselves. Forests, gradient boosting,
 * AdaBoost and bagging walk the same TreeState.
 *
 * As scikit-learn does (`_validate_X_predict` casts X to float32, `_apply_sparse_csr`):
 * a feature's value is rounded to float32 and compared, as a double, with the float64
 * threshold (`x <= threshold` goes left); an absent feature is 0. Checked on 1.2.1, 1.6.1, 1.9.1.
 */
import { NdArray, type NumericArray, type StructuredColumns } from '../../pickle/numpy.js'
import { PyObject } from '../../pickle/values.js'
import { defineEstimator, probabilistic, type Classifier, type EstimatorState, type Scores } from '../estimator.js'
import { argmax, numpySum } from '../math.js'
import { attr, describe, int, readClasses, recordAttr, shapeError, unsupported, writtenSince } from '../record.js'
import type { SparseRow } from '../sparse-row.js'
import { RowLookup } from './row-lookup.js'
import type { TreeState } from './tree-state.js'
import { explainedBy, probabilitySpec } from './tree-explainer.js'
import { MAX_FEATURES } from '../state-fields.js'
import { Fields, shapeProblem } from '../state-fields.js'

export { RowLookup }

export type { TreeState } from './tree-state.js'

/** One numeric field of a Tree record's structured `nodes` array. */
export function nodeColumn (nodes: StructuredColumns, name: string, what: string): NumericArray {
  const c = nodes.get(name)
  if (c === undefined || c instanceof Map || Array.isArray(c)) return shapeError(`${what}.nodes has no numeric '${name}' field`)
  return c as NumericArray
}

/**
 * A `sklearn.tree._tree.Tree` record to a TreeState.
 * @param nFeatures the estimator's input width: every split feature must lie below it.
 * @throws ServiceError ERR_MODEL_SHAPE naming the attribute when a child index, a feature
 * or the values array does not fit, or when the nodes do not form one tree.
 */
function readTree (tree: PyObject, what: string, nFeatures: number): TreeState {
  const nodesArray = tree.get('nodes')
  const valuesArray = tree.get('values')
  const nodeCount = int(tree, 'node_count')
  if (!(nodesArray instanceof NdArray) || !(nodesArray.data instanceof Map)) return shapeError(`${what}.nodes is ${describe(nodesArray)}, not a node array`)
  if (nodesArray.size !== nodeCount || nodeCount < 1) shapeError(`${what}.nodes has ${nodesArray.size} nodes, node_count says ${nodeCount}`)
  if (!(valuesArray instanceof NdArray) || valuesArray.shape.length !== 3 || valuesArray.shape[0] !== nodeCount || !'fiu'.includes(valuesArray.dtype.kind)) {
    return shapeError(`${what}.values is ${describe(valuesArray)}, expected (${nodeCount}, outputs, classes)`)
  }
  if (valuesArray.shape[1] !== 1) unsupported(`${what} has ${String(valuesArray.shape[1])} outputs: multi-output trees are not supported`)
  const width = valuesArray.shape[2]!
  const nodes = nodesArray.data
  const left = Int32Array.from(nodeColumn(nodes, 'left_child', what), Number)
  const right = Int32Array.from(nodeColumn(nodes, 'right_child', what), Number)
  const feature = Int32Array.from(nodeColumn(nodes, 'feature', what), Number)
  const threshold = Float64Array.from(nodeColumn(nodes, 'threshold', what), Number)
  const missingGoLeft = nodes.has('missing_go_to_left') ? Uint8Array.from(nodeColumn(nodes, 'missing_go_to_left', what), Number) : new Uint8Array(0)
  const values = Float64Array.from(valuesArray.data as NumericArray, Number)
  const cover = nodes.has('weighted_n_node_samples') ? Float64Array.from(nodeColumn(nodes, 'weighted_n_node_samples', what), Number) : new Float64Array(0)
  const state = { nodeCount, left, right, feature, threshold, missingGoLeft, values, width, cover }
  checkStructure(state, what, nFeatures, int(tree, 'max_depth', -1))
  return state
}

/** A TreeState read from a compiled file: its arrays of the node count, then checkStructure. */
export function checkTreeState (value: unknown, where: string, nFeatures: number, nClasses: number): void {
  const f = new Fields(value, where)
  const nodeCount = f.int('nodeCount', 1)
  const width = f.int('width', nClasses)
  const tree: TreeState = {
    nodeCount,
    left: f.array('left', Int32Array, nodeCount),
    right: f.array('right', Int32Array, nodeCount),
    feature: f.array('feature', Int32Array, nodeCount),
    threshold: f.array('threshold', Float64Array, nodeCount),
    missingGoLeft: f.array('missingGoLeft', Uint8Array),
    values: f.array('values', Float64Array, nodeCount * width),
    width,
    cover: f.array('cover', Float64Array)
  }
  if (tree.missingGoLeft.length !== 0 && tree.missingGoLeft.length !== nodeCount) throw shapeProblem(`${where}.missingGoLeft`, `has ${tree.missingGoLeft.length} values for ${nodeCount} nodes`)
  checkStructure(tree, where, nFeatures, -1)
}

/** Every node but the root has one parent that comes before it; splits use real features; depth within max_depth. */
export function checkStructure (t: TreeState, what: string, nFeatures: number, maxDepth: number): void {
  const depth = new Int32Array(t.nodeCount).fill(-1)
  depth[0] = 0
  for (let node = 0; node < t.nodeCount; node++) {
    if (depth[node]! < 0) shapeError(`${what}.nodes: node ${node} is not reachable from the root`)
    const l = t.left[node]!
    const r = t.right[node]!
    if (l === -1 && r === -1) continue
    for (const child of [l, r]) {
      if (!(child > node && child < t.nodeCount)) shapeError(`${what}.nodes: node ${node} has child ${child}, outside ${node + 1}..${t.nodeCount - 1}`)
      if (depth[child]! >= 0) shapeError(`${what}.nodes: node ${child} has two parents`)
      depth[child] = depth[node]! + 1
    }
    const f = t.feature[node]!
    if (!(f >= 0 && f < nFeatures)) shapeError(`${what}.nodes: node ${node} splits on feature ${f}, outside 0..${nFeatures - 1}`)
    if (Number.isNaN(t.threshold[node]!)) shapeError(`${what}.nodes: node ${node} has a NaN threshold`)
  }
  if (t.cover.length !== 0 && t.cover.length !== t.nodeCount) shapeError(`${what}.nodes has ${t.cover.length} node weights for ${t.nodeCount} nodes`)
  if (t.cover.some(w => !(w >= 0 && w < Infinity))) shapeError(`${what}.nodes has a node weight that is negative, infinite or NaN`)
  const deepest = Math.max(...depth)
  if (maxDepth >= 0 && deepest > maxDepth) shapeError(`${what}: a path of depth ${deepest} in a tree whose max_depth is ${maxDepth}`)
}

/** The leaf a row reaches (scikit-learn's `apply`). */
export function applyTree (t: TreeState, x: Float32Array): number {
  const { left, right, feature, threshold, missingGoLeft } = t
  let node = 0
  while (left[node] !== -1) {
    const v = x[feature[node]!]!
    node = v <= threshold[node]! || (v !== v && missingGoLeft[node] === 1) ? left[node]! : right[node]!
  }
  return node
}

/** A classifier tree's values at a leaf, the first `nClasses` of them. */
function leafValues (t: TreeState, leaf: number, nClasses: number): Float64Array {
  return t.values.subarray(leaf * t.width, leaf * t.width + nClasses)
}

/**
 * DecisionTreeClassifier.predict_proba of a leaf: before 1.4.1 the values are weighted class
 * counts, normalised by their numpy sum (a zero sum counts as 1); from 1.4.1 they are stored
 * fractions, returned as they are.
 */
function treeProba (t: TreeState, leaf: number, nClasses: number, normalize: boolean): Float64Array {
  return addTreeProba(t, leaf, nClasses, normalize, new Float64Array(nClasses))
}

/** Adds the leaf's predict_proba into `into` (a forest's sum over its trees), copying nothing. */
export function addTreeProba (t: TreeState, leaf: number, nClasses: number, normalize: boolean, into: Float64Array): Float64Array {
  const v = leafValues(t, leaf, nClasses)
  let s = 1
  if (normalize) {
    s = numpySum(v)
    if (s === 0) s = 1
  }
  for (let c = 0; c < nClasses; c++) into[c] = into[c]! + (normalize ? v[c]! / s : v[c]!)
  return into
}

/** Whether a classifier tree written by this version stores counts (normalised at predict time). */
export function storesCounts (record: PyObject): boolean {
  return !writtenSince(record, 1, 4, 1)
}

/** The fitted tree of a DecisionTreeClassifier/Regressor record, checked against its classes. */
export function readEstimatorTree (obj: PyObject, what: string, nFeatures: number, nClasses: number): TreeState {
  const tree = readTree(recordAttr(obj, 'tree_'), `${what}.tree_`, nFeatures)
  if (tree.width < nClasses) shapeError(`${what}.tree_.values has ${tree.width} columns for ${nClasses} classes`)
  return tree
}

/** The input width an estimator was fitted on. */
export function featureCount (obj: PyObject): number {
  if (obj.has('n_features_in_')) return int(obj, 'n_features_in_')
  if (obj.has('n_features_')) return int(obj, 'n_features_')
  const tree = obj.get('tree_')
  if (tree instanceof PyObject && typeof tree.args[0] === 'number') return tree.args[0]
  return unsupported(`${obj.name} has no 'n_features_in_': is it fitted?`)
}

interface DecisionTreeState extends EstimatorState {
  readonly classes: readonly string[]
  readonly nFeatures: number
  readonly tree: TreeState
  readonly normalize: boolean
}

function build (obj: PyObject): DecisionTreeState {
  if (obj.has('n_outputs_') && int(obj, 'n_outputs_') !== 1) unsupported(`${obj.name} has ${int(obj, 'n_outputs_')} outputs: multi-output trees are not supported`)
  const classes = readClasses(attr(obj, 'classes_'), obj.name)
  const nFeatures = featureCount(obj)
  const tree = readEstimatorTree(obj, obj.name, nFeatures, classes.length)
  return { type: 'decision-tree', kind: obj.name, classes, nFeatures, tree, normalize: storesCounts(obj) }
}

function create (state: DecisionTreeState): Classifier {
  const { tree, classes, normalize } = state
  const lookup = new RowLookup(state.nFeatures)
  const probaOf = (row: SparseRow): Float64Array => {
    lookup.load(row)
    const leaf = applyTree(tree, lookup.values)
    lookup.clear()
    return treeProba(tree, leaf, classes.length, normalize)
  }
  return probabilistic({
    kind: state.kind,
    nFeatures: state.nFeatures,
    classes,
    params: { node_count: tree.nodeCount },
    score: (row: SparseRow): Scores => {
      lookup.load(row)
      const leaf = applyTree(tree, lookup.values)
      lookup.clear()
      // predict is the argmax of the raw leaf values (counts before 1.4.1), not of the proba.
      return { classIndex: argmax(leafValues(tree, leaf, classes.length)), proba: treeProba(tree, leaf, classes.length, normalize), decision: undefined }
    },
    ...explainedBy(state.kind, probabilitySpec([tree], classes.length, state.nFeatures, normalize, probaOf))
  })
}

/** What create and scoring rely on in a DecisionTreeState (from a compiled file, or just built). */
function check (state: unknown, where: string): asserts state is DecisionTreeState {
  const f = new Fields(state, where)
  const k = f.strings('classes', 2).length
  checkTreeState(f.value('tree'), `${where}.tree`, f.int('nFeatures', 1, MAX_FEATURES), k)
  f.bool('normalize')
}

export const decisionTree = defineEstimator<DecisionTreeState, 'classifier'>({
  type: 'decision-tree',
  role: 'classifier',
  names: ['DecisionTreeClassifier', 'ExtraTreeClassifier'],
  build,
  check,
  create
})
