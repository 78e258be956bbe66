/**
 * LightGBM's own TreeSHAP, which shap's TreeExplainer calls for a LightGBM model
 * (`predict(pred_contrib=True)`; lightgbm 4.7 src/io/tree.cpp `Tree::TreeSHAP`,
 * `Tree::ExpectedValue`, src/boosting/gbdt.cpp `GBDT::PredictContrib`): in margin space, the
 * raw scores before the objective's transform, every tree's values added unscaled (boosting
 * 'rf' too, as raw_score is), the covers each node's and leaf's training row count.
 */
import type { SparseRow } from '../sparse-row.js'
import { PathScratch, ShapFeatures, addTreeShap, attribution, treeDepth, type ShapTree, type TreeAttribution } from '../tree-shap.js'
import { clearRow, loadRow, nextNode } from './lightgbm-trees.js'
import type { LightGbmModel } from './lightgbm-model-text.js'

/** Tree `t` in one numbering: its splits 0..n-1, then its leaves n..2n. */
function shapTree (m: LightGbmModel, t: number, slots: ShapFeatures): ShapTree {
  const base = m.nodeStart[t]!
  const n = m.nodeStart[t + 1]! - base
  const leafBase = m.leafStart[t]!
  const size = 2 * n + 1
  const left = new Int32Array(size).fill(-1)
  const right = new Int32Array(size).fill(-1)
  const slot = new Int32Array(size).fill(-1)
  const cover = new Float64Array(size)
  const values = new Float64Array(size)
  const id = (child: number): number => child >= 0 ? child : n + ~child
  for (let node = 0; node < n; node++) {
    left[node] = id(m.left[base + node]!)
    right[node] = id(m.right[base + node]!)
    slot[node] = slots.slotOf(m.splitFeature[base + node]!)
    cover[node] = m.internalCount[base + node]!
  }
  for (let leaf = 0; leaf <= n; leaf++) {
    cover[n + leaf] = m.leafCount[leafBase + leaf]!
    values[n + leaf] = m.leafValue[leafBase + leaf]!
  }
  // A one-leaf tree is its leaf alone, numbered 0.
  if (n === 0) values[0] = m.leafValue[leafBase]!
  return { left, right, slot, cover, values, width: 1, maxDepth: treeDepth(left, right) }
}

/** Tree::ExpectedValue: the leaf values weighted by their share of the root's rows. */
function expectedValue (m: LightGbmModel, t: number): number {
  const leafBase = m.leafStart[t]!
  const leaves = m.leafStart[t + 1]! - leafBase
  if (leaves === 1) return m.leafValue[leafBase]!
  const total = m.internalCount[m.nodeStart[t]!]!
  let value = 0
  for (let leaf = 0; leaf < leaves; leaf++) value += (m.leafCount[leafBase + leaf]! / total) * m.leafValue[leafBase + leaf]!
  return value
}

/** The deepest leaf of any of the model's trees. */
export function lightgbmDepth (m: LightGbmModel): number {
  let deepest = 0
  for (let t = 0; t < m.iterations * m.outputs; t++) {
    const base = m.nodeStart[t]!
    const n = m.nodeStart[t + 1]! - base
    // Children come after their parents: depths in one pass.
    const depth = new Int32Array(n)
    for (let node = 0; node < n; node++) {
      for (const c of [m.left[base + node]!, m.right[base + node]!]) {
        if (c >= 0) depth[c] = depth[node]! + 1
        else deepest = Math.max(deepest, depth[node]! + 1)
      }
    }
  }
  return deepest
}

/** The explainer of a LightGBM model: built on its first use, then reused (one per thread). */
export function lightgbmExplainer (m: LightGbmModel, rawOf: (row: SparseRow) => Float64Array): (row: SparseRow) => TreeAttribution {
  let built: { slots: ShapFeatures, trees: ShapTree[], expected: Float64Array, x: Float64Array } | undefined
  const path = new PathScratch()
  const k = m.outputs
  const trees = m.iterations * k
  const outputClasses = k === 1 ? [1] : Array.from({ length: k }, (_, c) => c)
  const build = (): NonNullable<typeof built> => {
    const slots = new ShapFeatures(m.splitFeature)
    const expected = new Float64Array(k)
    for (let t = 0; t < trees; t++) expected[t % k]! += expectedValue(m, t)
    return { slots, trees: Array.from({ length: trees }, (_, t) => shapTree(m, t, slots)), expected, x: new Float64Array(m.nFeatures) }
  }
  return row => {
    built ??= build()
    const { slots, expected, x } = built
    const phi = new Float64Array(slots.columns.length * k)
    const set = loadRow(x, row)
    try {
      built.trees.forEach((tree, t) => {
        const base = m.nodeStart[t]!
        const n = m.nodeStart[t + 1]! - base
        addTreeShap(tree, node => { const c = nextNode(m, base + node, x); return c >= 0 ? c : n + ~c }, phi, k, t % k, path)
      })
    } finally {
      clearRow(x, set)
    }
    return attribution({ space: 'margin', outputClasses, expected: expected.slice(), output: rawOf(row) }, slots, phi)
  }
}
