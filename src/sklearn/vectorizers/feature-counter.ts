/**
 * Sums values per feature over one document without touching every feature: a dense
 * accumulator, a bit per feature saying it is listed, and the list of features touched,
 * all reset after each row. The row comes out with sorted indices, as scikit-learn's
 * `sort_indices` / `sum_duplicates` leave it.
 */
import type { SparseRow } from '../sparse-row.js'

export class FeatureCounter {
  readonly #sums: Float64Array
  /** Listed features: a sum can return to zero (HashingVectorizer's alternating signs). */
  readonly #listed: Int32Array
  #touched = new Int32Array(256)
  #n = 0
  /** Adds 1 to feature `j`; bound, to be passed as a callback. */
  readonly count = (j: number): void => { this.add(j, 1) }

  constructor (nFeatures: number) {
    this.#sums = new Float64Array(nFeatures)
    this.#listed = new Int32Array((nFeatures + 31) >>> 5)
  }

  add (j: number, value: number): void {
    const bit = 1 << (j & 31)
    if ((this.#listed[j >>> 5]! & bit) === 0) {
      this.#listed[j >>> 5]! |= bit
      if (this.#n === this.#touched.length) this.#grow()
      this.#touched[this.#n++] = j
    }
    this.#sums[j]! += value
  }

  /**
   * The row so far, indices sorted, and a reset. Entries that summed to zero stay, as
   * scipy's `sum_duplicates` keeps explicit zeros; `binary` sets every value to 1.
   */
  takeRow (binary: boolean, float32: boolean): SparseRow {
    const n = this.#n
    const indices = this.#touched.slice(0, n)
    sortSmall(indices)
    const values = new Float64Array(n)
    for (let k = 0; k < n; k++) {
      const j = indices[k]!
      values[k] = binary ? 1 : float32 ? Math.fround(this.#sums[j]!) : this.#sums[j]!
      this.#sums[j] = 0
      this.#listed[j >>> 5] = 0
    }
    this.#n = 0
    return { indices, values, float32 }
  }

  #grow (): void {
    const grown = new Int32Array(this.#touched.length * 2)
    grown.set(this.#touched)
    this.#touched = grown
  }
}

/** Sorts in place: insertion sort for the few features of a short text, else the built-in sort. */
function sortSmall (a: Int32Array): void {
  if (a.length > 32) {
    a.sort()
    return
  }
  for (let i = 1; i < a.length; i++) {
    const v = a[i]!
    let j = i - 1
    while (j >= 0 && a[j]! > v) {
      a[j + 1] = a[j]!
      j--
    }
    a[j + 1] = v
  }
}
