/**
 * RandomForestClassifier and ExtraTreesClassifier: `predict_proba` is each tree's
 * predict_proba added in `estimators_` order (scikit-learn's sequential order with
 * n_jobs=None), divided by the number of trees; `predict` is its argmax. Every tree reads
 * the same float32 row (tree.ts). Checked on 1.2.1, 1.6.1 and 1.9.1.
 */
import type { PyObject } from '../../pickle/values.js'
import { defineEstimator, probabilistic, type Classifier, type EstimatorState, type Scores } from '../estimator.js'
import { argmax } from '../math.js'
import { attr, items, readClasses, shapeError, sklearnClass, unsupported, int } from '../record.js'
import type { SparseRow } from '../sparse-row.js'
import { explainedBy, probabilitySpec } from './tree-explainer.js'
import { RowLookup, applyTree, checkTreeState, featureCount, readEstimatorTree, storesCounts, addTreeProba, type TreeState } from './tree.js'
import { Fields, MAX_FEATURES } from '../state-fields.js'

interface ForestState extends EstimatorState {
  readonly classes: readonly string[]
  readonly nFeatures: number
  readonly trees: readonly TreeState[]
  /** Trees written before 1.4.1 hold counts, normalised per tree. */
  readonly normalize: boolean
}

const TREE_CLASSES = new Set(['DecisionTreeClassifier', 'ExtraTreeClassifier'])

function build (obj: PyObject): ForestState {
  if (obj.has('n_outputs_') && int(obj, 'n_outputs_') !== 1) unsupported(`${obj.name} has ${int(obj, 'n_outputs_')} outputs: multi-output forests are not supported`)
  const classes = readClasses(attr(obj, 'classes_'), obj.name)
  const nFeatures = featureCount(obj)
  const estimators = items(attr(obj, 'estimators_'), `${obj.name}.estimators_`)
  if (estimators.length === 0) shapeError(`${obj.name}.estimators_ is empty`)
  const trees = estimators.map((est, i) => {
    const what = `${obj.name}.estimators_[${i}]`
    if (!TREE_CLASSES.has(sklearnClass(est) ?? '')) return unsupported(`${what} is not a decision tree`)
    return readEstimatorTree(est as PyObject, what, nFeatures, classes.length)
  })
  return { type: 'forest', kind: obj.name, classes, nFeatures, trees, normalize: storesCounts(obj) }
}

function create (state: ForestState): Classifier {
  const { trees, classes, normalize } = state
  const lookup = new RowLookup(state.nFeatures)
  const n = classes.length
  const probaOf = (row: SparseRow): Float64Array => {
    lookup.load(row)
    const proba = new Float64Array(n)
    for (const tree of trees) addTreeProba(tree, applyTree(tree, lookup.values), n, normalize, proba)
    lookup.clear()
    for (let c = 0; c < n; c++) proba[c] = proba[c]! / trees.length
    return proba
  }
  return probabilistic({
    kind: state.kind,
    nFeatures: state.nFeatures,
    classes,
    params: { n_estimators: trees.length },
    score: (row: SparseRow): Scores => {
      const proba = probaOf(row)
      return { classIndex: argmax(proba), proba, decision: undefined }
    },
    // shap scales each tree's probabilities by 1 / n_trees (TreeEnsemble's `scaling`).
    ...explainedBy(state.kind, probabilitySpec(trees, n, state.nFeatures, normalize, probaOf))
  })
}

/** What create and scoring rely on in a ForestState (from a compiled file, or just built). */
function check (state: unknown, where: string): asserts state is ForestState {
  const f = new Fields(state, where)
  const k = f.strings('classes', 2).length
  const n = f.int('nFeatures', 1, MAX_FEATURES)
  f.list('trees', 1).forEach((t, i) => checkTreeState(t, `${where}.trees[${i}]`, n, k))
  f.bool('normalize')
}

export const forest = defineEstimator<ForestState, 'classifier'>({
  type: 'forest',
  role: 'classifier',
  names: ['RandomForestClassifier', 'ExtraTreesClassifier'],
  build,
  check,
  create
})
