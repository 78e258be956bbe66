import type { SparseRow } from '../sparse-row.js'

/**
 * Feature values of one row rounded to float32, looked up per node without a dense copy
 * of the row: the row's entries are written into a zeroed scratch array and cleared after.
 */
export class RowLookup {
  readonly values: Float32Array
  #row: SparseRow | undefined

  constructor (nFeatures: number) {
    this.values = new Float32Array(nFeatures)
  }

  load (row: SparseRow): void {
    this.#row = row
    // Later entries win on a repeated index, as _apply_sparse_csr's X_sample fill does.
    for (let e = 0; e < row.indices.length; e++) this.values[row.indices[e]!] = row.values[e]!
  }

  clear (): void {
    const row = this.#row
    if (row !== undefined) for (let e = 0; e < row.indices.length; e++) this.values[row.indices[e]!] = 0
    this.#row = undefined
  }
}
