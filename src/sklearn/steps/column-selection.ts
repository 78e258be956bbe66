/**
 * What every feature selector does at transform time: keep the columns of a support mask,
 * renumbered by rank, each row's entries in their stored order (scipy's `X[:, mask]`).
 */
import type { Step } from '../estimator.js'
import { dtypeOf, type SparseRow } from '../sparse-row.js'
import { type Fields, checkRange, shapeProblem } from '../state-fields.js'

/** Old column -> new column, or -1 for a column the mask drops. */
function columnMap (mask: Uint8Array): Int32Array {
  const map = new Int32Array(mask.length)
  let next = 0
  for (let j = 0; j < mask.length; j++) map[j] = mask[j] === 1 ? next++ : -1
  return map
}

function selectColumns (row: SparseRow, map: Int32Array): SparseRow {
  let n = 0
  for (let e = 0; e < row.indices.length; e++) if (map[row.indices[e]!]! >= 0) n++
  const indices = new Int32Array(n)
  const values = new Float64Array(n)
  let at = 0
  for (let e = 0; e < row.indices.length; e++) {
    const j = map[row.indices[e]!]!
    if (j >= 0) {
      indices[at] = j
      values[at++] = row.values[e]!
    }
  }
  return { indices, values, ...dtypeOf(row) }
}

/** A selector step from its mask. */
export function createSelection (kind: string, mask: Uint8Array, params: Readonly<Record<string, unknown>>): Step {
  const map = columnMap(mask)
  let kept = 0
  for (const m of mask) kept += m
  // New column -> old column, for naming a kept feature.
  const source = new Int32Array(kept)
  map.forEach((k, j) => { if (k >= 0) source[k] = j })
  return { kind, nFeaturesIn: mask.length, nFeaturesOut: kept, params: { ...params, features_kept: kept }, transform: row => selectColumns(row, map), sourceFeature: j => source[j]! }
}

/** A selector's support mask: zeros and ones, at least one feature kept. */
export function checkMask (f: Fields): void {
  const mask = f.array('mask', Uint8Array)
  checkRange(mask, `${f.where}.mask`, 0, 1)
  if (!mask.includes(1)) throw shapeProblem(`${f.where}.mask`, 'selects no feature')
}
