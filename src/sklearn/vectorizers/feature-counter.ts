/**
 * Sums values per feature over one document without touching every feature: a dense
 * accumulator and two levels of bits (a bit per feature listed, a bit per 32-feature word
 * holding one), read back in increasing order and cleared as the row is taken. So the row
 * comes out with sorted indices, as scikit-learn's `sort_indices` / `sum_duplicates` leave
 * it, with no sort: its cost is the features seen plus one bit per 1,024 features.
 */
import type { SparseRow } from '../sparse-row.js'

export class FeatureCounter {
  readonly #sums: Float64Array
  /** A bit per feature: listed (a sum can return to zero with HashingVectorizer's signs). */
  readonly #words: Int32Array
  /** A bit per word of #words that is not zero. */
  readonly #summary: Int32Array
  #n = 0
  #added = 0
  /** Adds 1 to feature `j`; bound, to be passed as a callback. */
  readonly count = (j: number): void => { this.add(j, 1) }

  constructor (nFeatures: number) {
    this.#sums = new Float64Array(nFeatures)
    this.#words = new Int32Array((nFeatures + 31) >>> 5)
    this.#summary = new Int32Array((this.#words.length + 31) >>> 5)
  }

  /** Values added since the last row was taken (a feature counted twice counts twice). */
  get added (): number {
    return this.#added
  }

  add (j: number, value: number): void {
    this.#added++
    const word = j >>> 5
    const bit = 1 << (j & 31)
    const w = this.#words[word]!
    if ((w & bit) === 0) {
      if (w === 0) this.#summary[word >>> 5]! |= 1 << (word & 31)
      this.#words[word] = w | bit
      this.#n++
    }
    this.#sums[j]! += value
  }

  /**
   * The row so far, indices sorted, and a reset. Entries that summed to zero stay, as
   * scipy's `sum_duplicates` keeps explicit zeros; `binary` sets every value to 1.
   */
  takeRow (binary: boolean, float32: boolean): SparseRow {
    this.#added = 0
    const indices = new Int32Array(this.#n)
    const values = new Float64Array(this.#n)
    const sums = this.#sums
    const words = this.#words
    const summary = this.#summary
    let k = 0
    for (let s = 0; s < summary.length; s++) {
      let top = summary[s]!
      while (top !== 0) {
        const word = (s << 5) | (31 - Math.clz32(top & -top))
        top &= top - 1
        let w = words[word]!
        while (w !== 0) {
          const j = (word << 5) | (31 - Math.clz32(w & -w))
          w &= w - 1
          indices[k] = j
          values[k++] = binary ? 1 : float32 ? Math.fround(sums[j]!) : sums[j]!
          sums[j] = 0
        }
        words[word] = 0
      }
      summary[s] = 0
    }
    this.#n = 0
    return { indices, values, float32 }
  }
}
