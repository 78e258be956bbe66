/**
 * How a LightGBM model reads a row: the dense row its predictor builds, and the walk of one
 * tree (include/LightGBM/tree.h NumericalDecision). See lightgbm.ts.
 */
import type { SparseRow } from '../sparse-row.js'
import type { LightGbmModel } from './lightgbm-model-text.js'

/** LightGBM's kZeroThreshold: the float literal 1e-35f, compared as a double. */
export const K_ZERO_THRESHOLD = Math.fround(1e-35)

const MISSING_ZERO = 1
const MISSING_NAN = 2
const DEFAULT_LEFT = 2

/**
 * Loads a row into `x` (all zeros) as LightGBM's predictor sees it; returns the features set,
 * for `clearRow`. A row holding every feature is a dense input: tiny values are dropped.
 */
export function loadRow (x: Float64Array, row: SparseRow): Int32Array {
  const { indices, values } = row
  const dense = indices.length === x.length
  for (let e = 0; e < indices.length; e++) {
    const v = values[e]!
    if (dense && !(Math.abs(v) > K_ZERO_THRESHOLD) && !Number.isNaN(v)) continue
    x[indices[e]!] = v
  }
  return indices
}

export function clearRow (x: Float64Array, indices: Int32Array): void {
  for (let e = 0; e < indices.length; e++) x[indices[e]!] = 0
}

/** The child (tree-local: >= 0 a node, < 0 the leaf ~id) the dense row `x` goes to at node `i` (all trees' numbering): NumericalDecision. */
export function nextNode (m: LightGbmModel, i: number, x: Float64Array): number {
  let v = x[m.splitFeature[i]!]!
  const type = m.decisionType[i]!
  const missing = (type >> 2) & 3
  if (Number.isNaN(v) && missing !== MISSING_NAN) v = 0
  if ((missing === MISSING_ZERO && v >= -K_ZERO_THRESHOLD && v <= K_ZERO_THRESHOLD) || (missing === MISSING_NAN && Number.isNaN(v))) {
    return (type & DEFAULT_LEFT) !== 0 ? m.left[i]! : m.right[i]!
  }
  return v <= m.threshold[i]! ? m.left[i]! : m.right[i]!
}

/** The leaf (tree-local index) tree `t` sends the dense row `x` to: Tree::GetLeaf. */
export function treeLeaf (m: LightGbmModel, t: number, x: Float64Array): number {
  const base = m.nodeStart[t]!
  if (m.nodeStart[t + 1] === base) return 0
  let node = 0
  while (node >= 0) node = nextNode(m, base + node, x)
  return ~node
}
