/**
 * `feature_importances_` of tree models, which scikit-learn computes from the pickled node
 * arrays rather than storing: SelectFromModel over a forest needs them to know its mask.
 * Tree.compute_feature_importances (mean decrease in weighted impurity, in node order,
 * divided by the root's weighted samples, then by their numpy sum), averaged over the trees
 * with more than one node in list order for forests and gradient boosting (1.2.1-1.9.1).
 */
import { NdArray } from '../../pickle/numpy.js'
import { PyObject, type PyValue } from '../../pickle/values.js'
import { nodeColumn } from '../classifiers/tree.js'
import { numpySum } from '../math.js'
import { attr, describe, int, items, recordAttr, shapeError, sklearnClass, unsupported } from '../record.js'

/** Tree.compute_feature_importances(normalize) of a Tree record. */
function treeImportances (tree: PyObject, what: string, nFeatures: number, normalize: boolean): Float64Array {
  const nodes = tree.get('nodes')
  if (!(nodes instanceof NdArray) || !(nodes.data instanceof Map)) return shapeError(`${what}.nodes is ${describe(nodes)}`)
  const left = nodeColumn(nodes.data, 'left_child', what)
  const right = nodeColumn(nodes.data, 'right_child', what)
  const feature = nodeColumn(nodes.data, 'feature', what)
  const impurity = nodeColumn(nodes.data, 'impurity', what)
  const weighted = nodeColumn(nodes.data, 'weighted_n_node_samples', what)
  const n = nodes.size
  const out = new Float64Array(nFeatures)
  for (let node = 0; node < n; node++) {
    const l = Number(left[node])
    if (l === -1) continue
    const r = Number(right[node])
    const f = Number(feature[node])
    if (!(l > node && l < n && r > node && r < n && f >= 0 && f < nFeatures)) shapeError(`${what}.nodes: node ${node} does not fit the tree`)
    out[f]! += Number(weighted[node]) * Number(impurity[node]) - Number(weighted[l]) * Number(impurity[l]) - Number(weighted[r]) * Number(impurity[r])
  }
  const root = Number(weighted[0])
  for (let j = 0; j < nFeatures; j++) out[j] = out[j]! / root
  if (normalize) {
    const sum = numpySum(out)
    if (sum > 0) for (let j = 0; j < nFeatures; j++) out[j] = out[j]! / sum
  }
  return out
}

function nodeCount (est: PyValue): number {
  return int(recordAttr(est as PyObject, 'tree_'), 'node_count')
}

/** np.mean(rows, axis=0) (rows added in order), then divided by its numpy sum. */
function meanNormalized (rows: Float64Array[], nFeatures: number): Float64Array {
  if (rows.length === 0) return new Float64Array(nFeatures)
  const mean = new Float64Array(nFeatures)
  for (const row of rows) for (let j = 0; j < nFeatures; j++) mean[j]! += row[j]!
  for (let j = 0; j < nFeatures; j++) mean[j] = mean[j]! / rows.length
  const sum = numpySum(mean)
  return mean.map(v => v / sum)
}

/**
 * The `feature_importances_` scikit-learn derives for a fitted tree, forest or gradient
 * boosting record.
 * @throws ServiceError ERR_MODEL_UNSUPPORTED for any other estimator.
 */
export function featureImportances (est: PyObject, nFeatures: number): Float64Array {
  const name = sklearnClass(est) ?? ''
  if (name === 'DecisionTreeClassifier' || name === 'ExtraTreeClassifier' || name === 'DecisionTreeRegressor') {
    return treeImportances(recordAttr(est, 'tree_'), `${name}.tree_`, nFeatures, true)
  }
  if (name === 'RandomForestClassifier' || name === 'ExtraTreesClassifier') {
    const trees = items(attr(est, 'estimators_'), `${name}.estimators_`).filter(t => nodeCount(t) > 1)
    return meanNormalized(trees.map((t, i) => treeImportances(recordAttr(t as PyObject, 'tree_'), `${name}.estimators_[${i}].tree_`, nFeatures, true)), nFeatures)
  }
  if (name === 'GradientBoostingClassifier') {
    const stages = attr(est, 'estimators_')
    const trees = stages instanceof NdArray && Array.isArray(stages.data) ? stages.data.filter(t => nodeCount(t) > 1) : []
    return meanNormalized(trees.map((t, i) => treeImportances(recordAttr(t as PyObject, 'tree_'), `${name}.estimators_[${i}].tree_`, nFeatures, false)), nFeatures)
  }
  return unsupported(`feature importances of ${describe(est)} are not supported (trees, forests and gradient boosting are)`)
}
