/**
 * A set of code points as a bitset over all of Unicode (139 KB), built once from a
 * flat [first, last] range table, for O(1) membership while tokenizing.
 */
export class CodePointSet {
  readonly #bits = new Uint32Array(0x110000 >>> 5)
  /** The ranges it was built from, for regular-expression classes. */
  readonly ranges: readonly number[]

  constructor (ranges: readonly number[]) {
    this.ranges = ranges
    const bits = this.#bits
    for (let i = 0; i < ranges.length; i += 2) {
      let cp = ranges[i]!
      const last = ranges[i + 1]!
      // Bit by bit to a word's edge, then whole words (a range of unassigned code points spans
      // 700,000 of them: a set is built in every thread that tokenizes, at start-up), then bits.
      for (; cp <= last && (cp & 31) !== 0; cp++) bits[cp >>> 5]! |= 1 << (cp & 31)
      for (; cp + 31 <= last; cp += 32) bits[cp >>> 5] = 0xffffffff
      for (; cp <= last; cp++) bits[cp >>> 5]! |= 1 << (cp & 31)
    }
  }

  has (cp: number): boolean {
    return (this.#bits[cp >>> 5]! & (1 << (cp & 31))) !== 0
  }
}
