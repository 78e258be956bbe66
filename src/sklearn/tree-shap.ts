/**
 * Path-dependent TreeSHAP: what `shap.TreeExplainer(model)` computes with no background data
 * (feature_perturbation="tree_path_dependent"), following shap's C++ (`tree_shap.h`:
 * tree_shap_recursive's walk and unique paths) in float64, with each node's cover as the model
 * stored it, and each leaf's weights summed in a form that stays exact on deep trees (addLeaf).
 * LightGBM's own TreeSHAP (`Tree::TreeSHAP`) is the same recursion over its node counts.
 * XGBoost's runs in float32 and has its own module.
 *
 * Shapley values are linear in the model's output, so an ensemble's are its trees' summed
 * (each tree's values scaled as the ensemble scales them), and the expected value is the sum
 * of the trees' root values plus the ensemble's constant offset.
 */

/** One row's Shapley values: shap's answer for it, the features' shares of each explained output. */
export interface TreeAttribution {
  /** 'probability': predict_proba per class (scikit-learn trees and forests); 'margin': the raw score before the link. */
  readonly space: 'probability' | 'margin'
  /** The class (index into classes) each output belongs to. */
  readonly outputClasses: readonly number[]
  /** shap's expected_value, per output. */
  readonly expected: Float64Array
  /** The explained output the model gives the row, per output. */
  readonly output: Float64Array
  /** The features with a share (column indices of the classifier's input), ascending. */
  readonly features: Int32Array
  /** features.length rows of one share per output. */
  readonly contributions: Float64Array
}

/** A tree as TreeSHAP walks it, its split features renumbered into a model's feature slots. */
export interface ShapTree {
  /** Child node ids; -1 at a leaf. */
  readonly left: Int32Array
  readonly right: Int32Array
  /** The slot (ShapFeatures) of each node's split feature; unused at leaves. */
  readonly slot: Int32Array
  /** Each node's cover: its training weight (scikit-learn), count (LightGBM). */
  readonly cover: Float64Array
  /** `width` values per node, already scaled as the ensemble scales the tree. */
  readonly values: Float64Array
  readonly width: number
  /** The deepest leaf's depth (the root's is 0). */
  readonly maxDepth: number
}

/** The features a model splits on, each given a slot: explanations add shares per slot. */
export class ShapFeatures {
  /** Slot to column index, ascending. */
  readonly columns: Int32Array
  readonly #slotOf: Map<number, number>

  constructor (splitFeatures: Iterable<number>) {
    this.columns = Int32Array.from(new Set(splitFeatures)).sort()
    this.#slotOf = new Map(Array.from(this.columns, (c, s) => [c, s]))
  }

  slotOf (column: number): number {
    return this.#slotOf.get(column)!
  }
}

/**
 * The deepest trees explained: a leaf costs its depth squared and the walk recurses once per
 * level. Text forests left at scikit-learn's default depth reach 200 to 300.
 */
export const MAX_EXPLAINED_DEPTH = 1000

/** Why trees this deep are not explained, or undefined when they are. */
export function depthRefusal (deepest: number): string | undefined {
  return deepest > MAX_EXPLAINED_DEPTH ? `its trees are ${deepest} deep, and explanations are bounded at ${MAX_EXPLAINED_DEPTH} levels (a leaf costs its depth squared)` : undefined
}

/** The deepest leaf's depth. */
export function treeDepth (left: Int32Array, right: Int32Array): number {
  const depth = new Int32Array(left.length)
  let deepest = 0
  // Children come after their parents (checked when the tree was read).
  for (let node = 0; node < left.length; node++) {
    if (left[node]! < 0) continue
    depth[left[node]!] = depth[right[node]!] = depth[node]! + 1
    deepest = Math.max(deepest, depth[node]! + 1)
  }
  return deepest
}

/**
 * shap's compute_expectations: each internal node's values become its children's, weighted
 * by their covers, so that the root holds the tree's expected value whatever the model kept
 * there (gradient boosting's leaves are line-searched after the split values were set).
 */
export function fillExpectations (left: Int32Array, right: Int32Array, cover: Float64Array, values: Float64Array, width: number): void {
  // Children come after their parents: from the last node back, children are done first.
  for (let node = left.length - 1; node >= 0; node--) {
    const l = left[node]!
    const r = right[node]!
    if (l < 0) continue
    const lw = cover[l]!
    const rw = cover[r]!
    for (let j = 0; j < width; j++) {
      values[node * width + j] = lw === 0 && rw === 0 ? 0 : (lw * values[l * width + j]! + rw * values[r * width + j]!) / (lw + rw)
    }
  }
}

/** Gauss-Legendre nodes and weights on [0, 1]: exact for polynomials of degree up to 2n - 1. */
export function gaussLegendre (n: number): { readonly t: Float64Array, readonly w: Float64Array } {
  const t = new Float64Array(n)
  const w = new Float64Array(n)
  for (let i = 0; i < Math.ceil(n / 2); i++) {
    // Newton's method on the Legendre polynomial P_n from the usual first guess.
    let z = Math.cos(Math.PI * (i + 0.75) / (n + 0.5))
    let derivative = 1
    for (let iteration = 0; iteration < 100; iteration++) {
      let p1 = 1
      let p2 = 0
      for (let j = 1; j <= n; j++) {
        const p3 = p2
        p2 = p1
        p1 = ((2 * j - 1) * z * p2 - (j - 1) * p3) / j
      }
      derivative = n * (z * p1 - p2) / (z * z - 1)
      const step = p1 / derivative
      z -= step
      if (Math.abs(step) <= 1e-16) break
    }
    const weight = 1 / ((1 - z * z) * derivative * derivative)
    t[i] = (1 - z) / 2
    t[n - 1 - i] = (1 + z) / 2
    w[i] = w[n - 1 - i] = weight
  }
  return { t, w }
}

/**
 * The scratch one tree walk needs: the unique paths (one per depth, each after its
 * parent's), a leaf's running products and weights, and the quadratures by size.
 */
export class PathScratch {
  feature = new Int32Array(0)
  zero = new Float64Array(0)
  one = new Uint8Array(0)
  suffix = new Float64Array(0)
  weight = new Float64Array(0)
  readonly #rules: Array<ReturnType<typeof gaussLegendre>> = []

  fit (maxDepth: number): this {
    const maxd = maxDepth + 2
    const size = (maxd * (maxd + 1)) / 2
    if (this.feature.length < size) {
      this.feature = new Int32Array(size)
      this.zero = new Float64Array(size)
      this.one = new Uint8Array(size)
      this.suffix = new Float64Array(maxd + 1)
      this.weight = new Float64Array(maxd + 1)
    }
    return this
  }

  /** The n-point rule, made once. */
  rule (n: number): ReturnType<typeof gaussLegendre> {
    let r = this.#rules[n]
    if (r === undefined) this.#rules[n] = r = gaussLegendre(n)
    return r
  }
}

/**
 * Adds one tree's Shapley values for a row into `phi` (slots x outputs, the tree's values
 * going to outputs firstOutput.. firstOutput + width - 1). `hotChild(node)` is the child the
 * row goes to at an internal node.
 */
export function addTreeShap (tree: ShapTree, hotChild: (node: number) => number, phi: Float64Array, outputs: number, firstOutput: number, path: PathScratch): void {
  if (tree.left[0]! < 0) return
  path.fit(tree.maxDepth)
  recurse(tree, hotChild, phi, outputs, firstOutput, path, 0, 0, 0, 1, 1, -1)
}

/**
 * tree_shap_recursive's walk: each node's unique path (one element per feature split on above
 * it: the share of the training cover that goes this way, and whether the row does) follows
 * its parent's in the scratch, copied, then extended; a feature split on again is taken out
 * and comes back with both splits' fractions multiplied. Index 0 holds shap's root element,
 * which changes no weight.
 */
function recurse (t: ShapTree, hotChild: (node: number) => number, phi: Float64Array, outputs: number, firstOutput: number, p: PathScratch,
  node: number, depth: number, parentAt: number, parentZero: number, parentOne: number, parentFeature: number): void {
  const at = parentAt + depth + 1
  // A loop: paths are short, and copyWithin calls a node cost more than the copy.
  for (let i = 0; i < depth; i++) {
    p.feature[at + i] = p.feature[parentAt + i]!
    p.zero[at + i] = p.zero[parentAt + i]!
    p.one[at + i] = p.one[parentAt + i]!
  }
  p.feature[at + depth] = parentFeature
  p.zero[at + depth] = parentZero
  p.one[at + depth] = parentOne

  if (t.left[node]! < 0) {
    addLeaf(t, node, phi, outputs, firstOutput, p, at, depth)
    return
  }
  const hot = hotChild(node)
  const cold = hot === t.left[node] ? t.right[node]! : t.left[node]!
  const w = t.cover[node]!
  const hotZero = t.cover[hot]! / w
  const coldZero = t.cover[cold]! / w
  let incomingZero = 1
  let incomingOne = 1
  const split = t.slot[node]!
  // A feature split on higher up is taken out here and put back with this node's fractions.
  let index = 1
  while (index <= depth && p.feature[at + index] !== split) index++
  if (index <= depth) {
    incomingZero = p.zero[at + index]!
    incomingOne = p.one[at + index]!
    for (let i = index; i < depth; i++) {
      p.feature[at + i] = p.feature[at + i + 1]!
      p.zero[at + i] = p.zero[at + i + 1]!
      p.one[at + i] = p.one[at + i + 1]!
    }
    depth -= 1
  }
  recurse(t, hotChild, phi, outputs, firstOutput, p, hot, depth + 1, at, hotZero * incomingZero, incomingOne, split)
  recurse(t, hotChild, phi, outputs, firstOutput, p, cold, depth + 1, at, coldZero * incomingZero, 0, split)
}

/**
 * A leaf's share to each of the d features on its unique path (elements 1..d at `at`):
 *   phi_i += value * (one_i - zero_i) * W_i,  W_i = sum over coalitions S of the others of
 *   |S|! (d-1-|S|)! / d! * prod_{j in S} one_j * prod_{j not in S} zero_j,
 * which is what shap's unwound_path_sum computes. shap builds it from weights scaled by
 * 1 / C(d, k) whose differences lose every digit past a depth of about 40 (its additivity
 * check then fails). Here W_i is the integral over x in [0, 1] of
 *   prod_{j != i} (zero_j + (one_j - zero_j) x),
 * a polynomial of degree d - 1 that a ceil(d / 2)-point Gauss-Legendre rule integrates
 * exactly, as a sum of positive terms: the same values to rounding where shap's are sound,
 * and sound at any depth.
 */
function addLeaf (t: ShapTree, node: number, phi: Float64Array, outputs: number, firstOutput: number, p: PathScratch, at: number, d: number): void {
  if (d === 0) return
  const { zero, one, suffix, weight } = p
  const rule = p.rule(Math.ceil(d / 2))
  weight.fill(0, 0, d)
  for (let q = 0; q < rule.t.length; q++) {
    const x = rule.t[q]!
    // suffix[i]: the product of the factors after element i; the prefix is carried forward.
    suffix[d] = 1
    for (let i = d; i >= 1; i--) suffix[i - 1] = suffix[i]! * (zero[at + i]! + (one[at + i]! - zero[at + i]!) * x)
    let prefix = rule.w[q]!
    for (let i = 1; i <= d; i++) {
      weight[i - 1] = weight[i - 1]! + prefix * suffix[i]!
      prefix *= zero[at + i]! + (one[at + i]! - zero[at + i]!) * x
    }
  }
  const width = t.width
  const valuesAt = node * width
  for (let i = 1; i <= d; i++) {
    const share = (one[at + i]! - zero[at + i]!) * weight[i - 1]!
    const phiAt = p.feature[at + i]! * outputs + firstOutput
    for (let j = 0; j < width; j++) phi[phiAt + j] = phi[phiAt + j]! + share * t.values[valuesAt + j]!
  }
}

/** The attribution's shares, dropping slots no output moved. */
export function attribution (fields: Omit<TreeAttribution, 'features' | 'contributions'>, slots: ShapFeatures, phi: Float64Array): TreeAttribution {
  const outputs = fields.expected.length
  const kept: number[] = []
  for (let s = 0; s < slots.columns.length; s++) {
    for (let k = 0; k < outputs; k++) {
      if (phi[s * outputs + k] !== 0) { kept.push(s); break }
    }
  }
  const features = Int32Array.from(kept, s => slots.columns[s]!)
  const contributions = new Float64Array(kept.length * outputs)
  kept.forEach((s, i) => contributions.set(phi.subarray(s * outputs, (s + 1) * outputs), i * outputs))
  return { ...fields, features, contributions }
}

/** One member's part in a mean of attributions: its weight, and the ensemble class of each of its outputs. */
export interface WeightedAttribution {
  readonly a: TreeAttribution
  readonly weight: number
  readonly classOf: ArrayLike<number>
}

/**
 * The weighted mean of probability-space attributions (soft voting's np.average of the
 * members' predict_proba): Shapley values are linear in the output, so the mean's are the
 * members' averaged the same way, per feature and class.
 */
export function meanAttribution (parts: readonly WeightedAttribution[], total: number, nClasses: number, output: Float64Array): TreeAttribution {
  const expected = new Float64Array(nClasses)
  const shares = new Map<number, Float64Array>()
  for (const { a, weight, classOf } of parts) {
    const outputs = a.expected.length
    for (let k = 0; k < outputs; k++) expected[classOf[a.outputClasses[k]!]!]! += a.expected[k]! * weight
    a.features.forEach((j, i) => {
      let s = shares.get(j)
      if (s === undefined) shares.set(j, s = new Float64Array(nClasses))
      for (let k = 0; k < outputs; k++) s[classOf[a.outputClasses[k]!]!]! += a.contributions[i * outputs + k]! * weight
    })
  }
  const features = Int32Array.from(shares.keys()).sort()
  const contributions = new Float64Array(features.length * nClasses)
  features.forEach((j, i) => { shares.get(j)!.forEach((v, k) => { contributions[i * nClasses + k] = v / total }) })
  return { space: 'probability', outputClasses: Array.from({ length: nClasses }, (_, k) => k), expected: expected.map(v => v / total), output, features, contributions }
}
