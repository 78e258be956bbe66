/**
 * shap's TreeExplainer (path-dependent) over scikit-learn's trees, as shap's `TreeEnsemble`
 * reads them (shap/explainers/_tree.py): each tree's values (class counts normalised to
 * probabilities for a classifier's trees), scaled as the ensemble scales them (1 / n_trees
 * for a forest, learning_rate for gradient boosting), `weighted_n_node_samples` as the
 * covers, internal values recomputed from the leaves (compute_expectations), and the row cast
 * to float32 as the trees read it. The expected value is the trees' root values summed, plus
 * the ensemble's constant start (gradient boosting's init).
 */
import type { Classifier } from '../estimator.js'
import type { SparseRow } from '../sparse-row.js'
import { numpySum } from '../math.js'
import { PathScratch, ShapFeatures, addTreeShap, attribution, depthRefusal, fillExpectations, treeDepth, type ShapTree, type TreeAttribution } from '../tree-shap.js'
import { RowLookup } from './row-lookup.js'
import type { TreeState } from './tree-state.js'

/** One tree's part in an explanation. */
export interface ExplainedTree {
  readonly tree: TreeState
  /** Its first `width` value columns are explained, into outputs firstOutput.. firstOutput + width - 1. */
  readonly width: number
  readonly firstOutput: number
  /** Each value is multiplied by this. */
  readonly scale: number
  /** Each node's values divided by their numpy sum first (class counts written before 1.4.1). */
  readonly normalize: boolean
}

export interface TreeExplainerSpec {
  readonly space: TreeAttribution['space']
  readonly outputClasses: readonly number[]
  readonly nFeatures: number
  readonly trees: readonly ExplainedTree[]
  /** The ensemble's constant start per output (zeros for a forest). */
  readonly offset: Float64Array
  /** The explained output the model gives the row (its predict_proba or decision_function). */
  readonly output: (row: SparseRow) => Float64Array
}

/** Why these trees cannot be explained, or undefined when they can. */
function treesRefusal (trees: readonly TreeState[]): string | undefined {
  return trees.every(t => t.cover.length === t.nodeCount) ? undefined : 'its trees store no node weights (weighted_n_node_samples), which TreeSHAP splits paths by'
}

/** The classifier fields that explain `spec`'s trees, or say why `kind` is not explained (`refusal` first). */
export function explainedBy (kind: string, spec: TreeExplainerSpec, refusal?: string): Pick<Classifier, 'shapSpace' | 'shapValues' | 'explainRefusal'> {
  if (refusal !== undefined) return { explainRefusal: `${kind}: ${refusal}` }
  // Each tree's depth once: the bound reads it now, the explainer's path scratch later.
  const depths = spec.trees.map(({ tree }) => treeDepth(tree.left, tree.right))
  const why = treesRefusal(spec.trees.map(t => t.tree)) ?? depthRefusal(depths.reduce((a, b) => Math.max(a, b), 0))
  return why !== undefined ? { explainRefusal: `${kind}: ${why}` } : { shapSpace: spec.space, shapValues: treeExplainer(spec, depths) }
}

/** The spec of trees explained in probability space, each tree's class counts or fractions scaled by `scale`. */
export function probabilitySpec (trees: readonly TreeState[], nClasses: number, nFeatures: number, normalize: boolean, output: TreeExplainerSpec['output']): TreeExplainerSpec {
  return {
    space: 'probability',
    outputClasses: Array.from({ length: nClasses }, (_, k) => k),
    nFeatures,
    trees: trees.map(tree => ({ tree, width: nClasses, firstOutput: 0, scale: 1 / trees.length, normalize })),
    offset: new Float64Array(nClasses),
    output
  }
}

function shapTree (part: ExplainedTree, slots: ShapFeatures, maxDepth: number): ShapTree {
  const { tree, width, scale, normalize } = part
  const values = new Float64Array(tree.nodeCount * width)
  for (let node = 0; node < tree.nodeCount; node++) {
    const v = tree.values.subarray(node * tree.width, node * tree.width + width)
    let sum = 1
    if (normalize) {
      sum = numpySum(v)
      if (sum === 0) sum = 1
    }
    for (let c = 0; c < width; c++) values[node * width + c] = (normalize ? v[c]! / sum : v[c]!) * scale
  }
  fillExpectations(tree.left, tree.right, tree.cover, values, width)
  const slot = Int32Array.from(tree.feature, (f, node) => tree.left[node]! < 0 ? -1 : slots.slotOf(f))
  return { left: tree.left, right: tree.right, slot, cover: tree.cover, values, width, maxDepth }
}

/** The child a float32 row goes to at each internal node (`apply`'s test). */
function hotChildOf (tree: TreeState, x: Float32Array): (node: number) => number {
  const { left, right, feature, threshold, missingGoLeft } = tree
  return node => {
    const v = x[feature[node]!]!
    return v <= threshold[node]! || (v !== v && missingGoLeft[node] === 1) ? left[node]! : right[node]!
  }
}

/** The explainer of `spec`'s trees: built on its first use, then reused (one per thread). */
function treeExplainer (spec: TreeExplainerSpec, depths: readonly number[]): (row: SparseRow) => TreeAttribution {
  let built: { slots: ShapFeatures, trees: ShapTree[], hot: Array<(node: number) => number>, lookup: RowLookup, expected: Float64Array } | undefined
  const path = new PathScratch()
  const outputs = spec.offset.length
  const build = (): NonNullable<typeof built> => {
    const splits: number[] = []
    for (const { tree } of spec.trees) for (let node = 0; node < tree.nodeCount; node++) if (tree.left[node]! >= 0) splits.push(tree.feature[node]!)
    const slots = new ShapFeatures(splits)
    const trees = spec.trees.map((part, i) => shapTree(part, slots, depths[i]!))
    const lookup = new RowLookup(spec.nFeatures)
    const hot = spec.trees.map(part => hotChildOf(part.tree, lookup.values))
    // shap's expected value: every tree's root values (scaled) plus the constant start.
    const expected = spec.offset.slice()
    trees.forEach((t, i) => {
      for (let c = 0; c < t.width; c++) expected[spec.trees[i]!.firstOutput + c]! += t.values[c]!
    })
    return { slots, trees, hot, lookup, expected }
  }
  return row => {
    built ??= build()
    const { slots, trees, hot, lookup, expected } = built
    const phi = new Float64Array(slots.columns.length * outputs)
    lookup.load(row)
    try {
      trees.forEach((t, i) => addTreeShap(t, hot[i]!, phi, outputs, spec.trees[i]!.firstOutput, path))
    } finally {
      lookup.clear()
    }
    return attribution({ space: spec.space, outputClasses: spec.outputClasses, expected: expected.slice(), output: spec.output(row) }, slots, phi)
  }
}
