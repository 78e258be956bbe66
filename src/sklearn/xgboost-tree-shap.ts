/**
 * XGBoost's own TreeSHAP, which is what `shap.TreeExplainer(model).shap_values(X)` returns for
 * an XGBClassifier with no background data: shap hands the rows to `Booster.predict(DMatrix(X,
 * missing=...), iteration_range=(0, best_iteration + 1), pred_contribs=True)` and takes the last
 * column as the expected value. Reproduced bit for bit from xgboost's C++, which computes in
 * float32 (bst_float): 1.7.4's src/tree/tree_model.cc (ExtendPath, UnwindPath,
 * UnwoundPathSum, RegTree::TreeShap, CalculateContributions) and src/predictor/cpu_predictor.cc
 * (FillNodeMeanValues, PredictContribution); 3.2.0's src/predictor/treeshap.cc and
 * cpu_predictor.cc (PredictContributionKernel) do the same operations in the same order,
 * except that the bias adds each class's own base score (3.1+ keep one per class).
 *
 * Every float32 operation is one double operation rounded with Math.fround (exact: a double
 * holds a float32 sum, difference, product or quotient closely enough that rounding it once
 * gives the float32 result), in xgboost's order and parenthesisation, int operands converted
 * to float as C++ converts them. xgboost is built for plain x86-64 (SSE, no FMA), so nothing
 * is fused.
 *
 * Per row and class: each tree's contributions go to a zeroed float32 vector (the tree's root
 * mean to the bias, its recursion's shares to the features), which is then added, column by
 * column, to the row's float32 totals in tree order; the base margin is added to the bias last.
 * The recursion's hot child is the child the prediction takes (`value < split_condition`,
 * the default child for a missing value), so a `dense_rows` model explains dense rows.
 */
import { boosterMargins, BoosterRow, type BoosterState } from './classifiers/xgboost-booster.js'
import type { SparseRow } from './sparse-row.js'
import { attribution, ShapFeatures, type TreeAttribution } from './tree-shap.js'

const f32 = Math.fround

/** The unique-path scratch of xgboost's PathElement array, float32 as it is there. */
class Path32 {
  feature = new Int32Array(0)
  zero = new Float32Array(0)
  one = new Float32Array(0)
  weight = new Float32Array(0)

  fit (maxDepth: number): void {
    // CalculateContributions: maxd = MaxDepth() + 2, (maxd * (maxd + 1)) / 2 elements.
    const maxd = maxDepth + 2
    const size = (maxd * (maxd + 1)) / 2
    if (this.feature.length >= size) return
    this.feature = new Int32Array(size)
    this.zero = new Float32Array(size)
    this.one = new Float32Array(size)
    this.weight = new Float32Array(size)
  }
}

/** ExtendPath, on the path at `at` of length d + 1 after. */
function extendPath (p: Path32, at: number, d: number, zero: number, one: number, feature: number): void {
  const w = p.weight
  p.feature[at + d] = feature
  p.zero[at + d] = zero
  p.one[at + d] = one
  w[at + d] = d === 0 ? 1 : 0
  const d1 = d + 1
  for (let i = d - 1; i >= 0; i--) {
    // pweight[i+1] += one_fraction * pweight[i] * (i + 1) / float(d + 1)
    w[at + i + 1] = f32(w[at + i + 1]! + f32(f32(f32(one * w[at + i]!) * (i + 1)) / d1))
    // pweight[i] = zero_fraction * pweight[i] * (d - i) / float(d + 1)
    w[at + i] = f32(f32(f32(zero * w[at + i]!) * (d - i)) / d1)
  }
}

/** UnwindPath: undoes the extension by the element at `index`. */
function unwindPath (p: Path32, at: number, d: number, index: number): void {
  const w = p.weight
  const one = p.one[at + index]!
  const zero = p.zero[at + index]!
  let next = w[at + d]!
  const d1 = d + 1
  for (let i = d - 1; i >= 0; i--) {
    if (one !== 0) {
      const tmp = w[at + i]!
      // pweight[i] = next * (d + 1) / float((i + 1) * one)
      w[at + i] = f32(f32(next * d1) / f32((i + 1) * one))
      // next = tmp - pweight[i] * zero * (d - i) / float(d + 1)
      next = f32(tmp - f32(f32(f32(w[at + i]! * zero) * (d - i)) / d1))
    } else {
      // pweight[i] = (pweight[i] * (d + 1)) / float(zero * (d - i))
      w[at + i] = f32(f32(w[at + i]! * d1) / f32(zero * (d - i)))
    }
  }
  for (let i = index; i < d; i++) {
    p.feature[at + i] = p.feature[at + i + 1]!
    p.zero[at + i] = p.zero[at + i + 1]!
    p.one[at + i] = p.one[at + i + 1]!
  }
}

/** UnwoundPathSum: xgboost's own form (not shap's), the total already scaled. */
function unwoundPathSum (p: Path32, at: number, d: number, index: number): number {
  const w = p.weight
  const one = p.one[at + index]!
  const zero = p.zero[at + index]!
  let next = w[at + d]!
  let total = 0
  const d1 = d + 1
  for (let i = d - 1; i >= 0; i--) {
    if (one !== 0) {
      // tmp = next * (d + 1) / float((i + 1) * one)
      const tmp = f32(f32(next * d1) / f32((i + 1) * one))
      total = f32(total + tmp)
      // next = pweight[i] - tmp * zero * ((d - i) / float(d + 1))
      next = f32(w[at + i]! - f32(f32(tmp * zero) * f32((d - i) / d1)))
    } else if (zero !== 0) {
      // total += (pweight[i] / zero) / ((d - i) / float(d + 1))
      total = f32(total + f32(f32(w[at + i]! / zero) / f32((d - i) / d1)))
    }
    // (xgboost CHECKs that the weight is 0 when both fractions are: nothing is added)
  }
  return total
}

/** The per-tree tables TreeSHAP needs beyond the booster's own arrays, derived once. */
interface Tables {
  /** Each node's mean value (FillNodeMeanValues), float32. */
  readonly mean: Float32Array
  /** Each internal node's split feature as a slot (ShapFeatures). */
  readonly slot: Int32Array
  /** Each used tree's deepest leaf depth (RegTree::MaxDepth). */
  readonly maxDepth: Int32Array
  /** The distinct slots tree t splits on: slotList[slotStart[t] .. slotStart[t + 1] - 1]. */
  readonly slotStart: Int32Array
  readonly slotList: Int32Array
}

/** FillNodeMeanValues, from the root of the tree at `root` (global ids); fills `mean` and returns the root's. */
function fillMeans (b: BoosterState, node: number, mean: Float32Array): number {
  const l = b.left[node]!
  let result: number
  if (l === -1) {
    result = b.value[node]!
  } else {
    const r = l + 1
    // result = mean(left) * sum_hess(left); result += mean(right) * sum_hess(right); result /= sum_hess(node)
    result = f32(fillMeans(b, l, mean) * b.cover[l]!)
    result = f32(result + f32(fillMeans(b, r, mean) * b.cover[r]!))
    result = f32(result / b.cover[node]!)
  }
  mean[node] = result
  return result
}

/** The deepest leaf of any tree: a split's children come after it in its tree. */
export function boosterDepth (b: BoosterState): number {
  const depth = new Int32Array(b.left.length)
  let deepest = 0
  for (let node = 0; node < b.left.length; node++) {
    const l = b.left[node]!
    if (l === -1) continue
    depth[l] = depth[l + 1] = depth[node]! + 1
    deepest = Math.max(deepest, depth[node]! + 1)
  }
  return deepest
}

function tablesOf (b: BoosterState, slots: ShapFeatures): Tables {
  const trees = b.treeGroup.length
  const mean = new Float32Array(b.left.length)
  const slot = new Int32Array(b.left.length).fill(-1)
  const maxDepth = new Int32Array(trees)
  const slotStart = new Int32Array(trees + 1)
  const list: number[] = []
  const depth = new Int32Array(b.left.length)
  for (let t = 0; t < trees; t++) {
    const root = b.treeStart[t]!
    fillMeans(b, root, mean)
    const seen = new Set<number>()
    const stack = [root]
    depth[root] = 0
    let deepest = 0
    while (stack.length > 0) {
      const node = stack.pop()!
      deepest = Math.max(deepest, depth[node]!)
      const l = b.left[node]!
      if (l === -1) continue
      const s = slots.slotOf(b.feature[node]!)
      slot[node] = s
      seen.add(s)
      depth[l] = depth[l + 1] = depth[node]! + 1
      stack.push(l, l + 1)
    }
    maxDepth[t] = deepest
    list.push(...seen)
    slotStart[t + 1] = list.length
  }
  return { mean, slot, maxDepth, slotStart, slotList: Int32Array.from(list) }
}

/** The split features of the trees used (reachable internal nodes). */
function splitFeatures (b: BoosterState): number[] {
  const out: number[] = []
  for (let t = 0; t < b.treeGroup.length; t++) {
    const stack = [b.treeStart[t]!]
    while (stack.length > 0) {
      const node = stack.pop()!
      const l = b.left[node]!
      if (l === -1) continue
      out.push(b.feature[node]!)
      stack.push(l, l + 1)
    }
  }
  return out
}

/**
 * The row's Shapley values as xgboost's `pred_contribs` gives them, in margin space, and
 * its float32 margins (output_margin=True). Outputs: one (class 1) for binary:logistic, one
 * per class for the softmax objectives.
 */
export function xgboostShap (b: BoosterState): (row: SparseRow) => TreeAttribution {
  const slots = new ShapFeatures(splitFeatures(b))
  const nSlots = slots.columns.length
  const { mean, slot, maxDepth, slotStart, slotList } = tablesOf(b, slots)
  const K = b.nGroups
  const trees = b.treeGroup.length
  const { left, defaultChild, feature, value, cover } = b
  const absentChild = b.absentChild ?? defaultChild
  const outputClasses = K === 1 ? [1] : Array.from({ length: K }, (_, k) => k)

  // The bias column: each tree's root mean added in tree order, then the base margin.
  const bias = new Float32Array(K)
  for (let t = 0; t < trees; t++) bias[b.treeGroup[t]!] = f32(bias[b.treeGroup[t]!]! + mean[b.treeStart[t]!]!)
  for (let g = 0; g < K; g++) bias[g] = f32(bias[g]! + b.baseMargins[g]!)
  const expected = Float64Array.from(bias)

  const path = new Path32()
  path.fit(maxDepth.reduce((a, b) => Math.max(a, b), 0))
  const x = new BoosterRow(b)
  /** One tree's contributions (this_tree_contribs), by slot. */
  const treePhi = new Float32Array(nSlots)

  /** RegTree::TreeShap with condition 0 (condition_fraction stays 1, so its products are exact and left out). */
  const recurse = (node: number, d: number, parentAt: number, parentZero: number, parentOne: number, parentSlot: number): void => {
    const p = path
    const at = parentAt + d + 1
    // std::copy of the parent's d + 1 elements (a loop: paths are short, copyWithin's call costs more).
    for (let i = 0; i <= d; i++) {
      p.feature[at + i] = p.feature[parentAt + i]!
      p.zero[at + i] = p.zero[parentAt + i]!
      p.one[at + i] = p.one[parentAt + i]!
      p.weight[at + i] = p.weight[parentAt + i]!
    }
    extendPath(p, at, d, parentZero, parentOne, parentSlot)
    const l = left[node]!
    if (l === -1) {
      const leaf = value[node]!
      for (let i = 1; i <= d; i++) {
        const w = unwoundPathSum(p, at, d, i)
        // phi[feature] += w * (one - zero) * leaf_value * condition_fraction
        const s = p.feature[at + i]!
        treePhi[s] = f32(treePhi[s]! + f32(f32(w * f32(p.one[at + i]! - p.zero[at + i]!)) * leaf))
      }
      return
    }
    // GetNextNode: a present value goes left when value < split_condition; a missing one to the default child.
    const f = feature[node]!
    const present = x.present[f]
    const hot = present === 1 ? (x.values[f]! < value[node]! ? l : l + 1) : present === 0 ? absentChild[node]! : defaultChild[node]!
    const cold = hot === l ? l + 1 : l
    const w = cover[node]!
    const hotZero = f32(cover[hot]! / w)
    const coldZero = f32(cover[cold]! / w)
    let incomingZero = 1
    let incomingOne = 1
    const split = slot[node]!
    let index = 0
    while (index <= d && p.feature[at + index] !== split) index++
    if (index !== d + 1) {
      incomingZero = p.zero[at + index]!
      incomingOne = p.one[at + index]!
      unwindPath(p, at, d, index)
      d -= 1
    }
    recurse(hot, d + 1, at, f32(hotZero * incomingZero), incomingOne, split)
    recurse(cold, d + 1, at, f32(coldZero * incomingZero), 0, split)
  }

  return (row: SparseRow): TreeAttribution => {
    x.load(row)
    // p_contribs per class, by slot: float32 totals.
    const totals = new Float32Array(nSlots * K)
    for (let t = 0; t < trees; t++) {
      const g = b.treeGroup[t]!
      const root = b.treeStart[t]!
      const from = slotStart[t]!
      const to = slotStart[t + 1]!
      for (let j = from; j < to; j++) treePhi[slotList[j]!] = 0
      if (left[root] !== -1) {
        // TreeShap(feat, phi, 0, 0, path, 1, 1, -1, ...): the root's element has no feature.
        recurse(root, 0, 0, 1, 1, -1)
      }
      // p_contribs[ci] += this_tree_contribs[ci] * 1 (a Float32Array element rounds the sum).
      for (let j = from; j < to; j++) {
        const s = slotList[j]!
        totals[s * K + g] += treePhi[s]!
      }
    }
    const margin = boosterMargins(b, x)
    x.clear()
    return attribution({ space: 'margin', outputClasses, expected, output: Float64Array.from(margin) }, slots, Float64Array.from(totals))
  }
}
