/**
 * An XGBClassifier's trees as predictions walk them: the booster's state (every used tree's
 * nodes side by side), a row as xgboost's FVec holds it, and the walk to a leaf and the float32
 * margins. xgboost.ts reads the booster into this state; xgboost-tree-shap.ts explains it.
 */
import type { SparseRow } from '../sparse-row.js'
import { type Fields, MAX_FEATURES, shapeProblem } from '../state-fields.js'

/** The trees a prediction uses, their nodes side by side (node ids global to all trees). */
export interface BoosterState {
  readonly nFeatures: number
  /** Margins per row: 1 for binary:logistic, the class count for the multi-class objectives. */
  readonly nGroups: number
  /** Tree t's nodes are treeStart[t] .. treeStart[t + 1] - 1, its root the first. */
  readonly treeStart: Int32Array
  /** The margin each tree adds to (`tree_info`). */
  readonly treeGroup: Int32Array
  /** Left child (global id), -1 at a leaf; the right child is always the left child + 1. */
  readonly left: Int32Array
  /** Where a missing feature goes (global id). */
  readonly defaultChild: Int32Array
  /**
   * Where a feature absent from the row goes: `defaultChild` for a sparse row (absent is
   * missing); for a dense row (denseBooster) where 0.0f goes, `missing` values still default.
   */
  readonly absentChild?: Int32Array
  readonly feature: Int32Array
  /** The split condition, or at a leaf the leaf value. */
  readonly value: Float32Array
  /**
   * Each node's cover, its training rows' summed hessian (`sum_hessian`, float32 as xgboost
   * keeps it): what TreeSHAP weighs the children by (xgboost-tree-shap.ts).
   */
  readonly cover: Float32Array
  /** The float32 margin each output starts from (one per class, or one for binary:logistic). */
  readonly baseMargins: Float32Array
  /** The wrapper's `missing` as float32; NaN (the default) matches no TF-IDF value. */
  readonly missing: number
}

/**
 * A row's feature values as xgboost's FVec holds them: float32 values of the present
 * features, and which are present; cleared after each row.
 */
export class BoosterRow {
  readonly values: Float32Array
  /** 1 for a value, 0 for a feature absent from the row, MISSING for a value xgboost reads as missing. */
  readonly present: Uint8Array
  readonly #missing: number
  /** What a `missing` value in the row becomes: absent in a sparse row, missing (not 0) in a dense one. */
  readonly #missingMark: number
  #row: SparseRow | undefined

  constructor (booster: BoosterState) {
    this.values = new Float32Array(booster.nFeatures)
    this.present = new Uint8Array(booster.nFeatures)
    this.#missing = booster.missing
    this.#missingMark = booster.absentChild === undefined ? 0 : MISSING
  }

  load (row: SparseRow): void {
    this.#row = row
    const { indices, values } = row
    for (let e = 0; e < indices.length; e++) {
      const v = Math.fround(values[e]!)
      // Both adapters skip NaN and the `missing` value; a later entry overwrites (FVec::Fill).
      if (v !== v || v === this.#missing) {
        if (this.#missingMark !== 0) this.present[indices[e]!] = this.#missingMark
        continue
      }
      this.values[indices[e]!] = v
      this.present[indices[e]!] = 1
    }
  }

  clear (): void {
    const row = this.#row
    if (row !== undefined) for (let e = 0; e < row.indices.length; e++) this.present[row.indices[e]!] = 0
    this.#row = undefined
  }
}

const MISSING = 2

/** The leaf (global node id) tree `t` reaches (GetLeafIndex). */
export function boosterLeaf (b: BoosterState, t: number, x: BoosterRow): number {
  const { left, defaultChild, feature, value } = b
  const absentChild = b.absentChild ?? defaultChild
  const { values, present } = x
  let node = b.treeStart[t]!
  while (left[node] !== -1) {
    const f = feature[node]!
    const p = present[f]
    node = p === 1 ? (values[f]! < value[node]! ? left[node]! : left[node]! + 1) : p === 0 ? absentChild[node]! : defaultChild[node]!
  }
  return node
}

/** The float32 margins of a row (PredictByAllTrees over InitOutPredictions' base margin). */
export function boosterMargins (b: BoosterState, x: BoosterRow): Float32Array {
  const margin = Float32Array.from(b.baseMargins)
  // A Float32Array element rounds each sum to float32, as `preds[...] += leaf` does.
  for (let t = 0; t < b.treeGroup.length; t++) margin[b.treeGroup[t]!] += b.value[boosterLeaf(b, t, x)]!
  return margin
}

/**
 * An xgboost booster's trees side by side (with each node's cover): each tree's nodes within its range, each split's
 * children two adjacent nodes after it in the same tree reached once from the root (so a walk
 * ends at a leaf), its missing-value child one of them, its feature inside the row.
 */
export function checkBooster (f: Fields, nGroups: number): void {
  const nFeatures = f.int('nFeatures', 1, MAX_FEATURES)
  if (f.int('nGroups', 1) !== nGroups) throw shapeProblem(`${f.where}.nGroups`, `is not ${nGroups}`)
  const treeGroup = f.indices('treeGroup', 0, nGroups - 1)
  const trees = treeGroup.length
  const left = f.array('left', Int32Array)
  const nodes = left.length
  const start = f.array('treeStart', Int32Array, trees + 1)
  const defaultChild = f.array('defaultChild', Int32Array, nodes)
  const feature = f.array('feature', Int32Array, nodes)
  f.array('value', Float32Array, nodes)
  // Each node's cover (sum_hessian), which TreeSHAP divides by: any float32, as xgboost's divisions take any.
  f.array('cover', Float32Array, nodes)
  f.array('baseMargins', Float32Array, nGroups)
  f.number('missing')
  if (start[0] !== 0 || start[trees]! > nodes) throw shapeProblem(`${f.where}.treeStart`, `does not run from 0 to at most ${nodes}`)
  const seen = new Uint8Array(nodes)
  for (let t = 0; t < trees; t++) {
    const base = start[t]!
    const end = start[t + 1]!
    if (!(end > base)) throw shapeProblem(`${f.where}.treeStart`, `gives tree ${t} no nodes`)
    const stack = [base]
    while (stack.length > 0) {
      const node = stack.pop()!
      const l = left[node]!
      if (l === -1) continue
      if (!(l > node && l + 1 < end)) throw shapeProblem(`${f.where}.left`, `[${node}] is ${l}, not two nodes after it in tree ${t}`)
      if (defaultChild[node] !== l && defaultChild[node] !== l + 1) throw shapeProblem(`${f.where}.defaultChild`, `[${node}] is neither child`)
      if (!(feature[node]! >= 0 && feature[node]! < nFeatures)) throw shapeProblem(`${f.where}.feature`, `[${node}] is ${feature[node]!}, outside 0..${nFeatures - 1}`)
      for (const child of [l, l + 1]) {
        if (seen[child] === 1) throw shapeProblem(`${f.where}.left`, `reaches node ${child} twice`)
        seen[child] = 1
        stack.push(child)
      }
    }
  }
}
