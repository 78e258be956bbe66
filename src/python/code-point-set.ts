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
    for (let i = 0; i < ranges.length; i += 2) {
      for (let cp = ranges[i]!; cp <= ranges[i + 1]!; cp++) this.#bits[cp >>> 5]! |= 1 << (cp & 31)
    }
  }

  has (cp: number): boolean {
    return (this.#bits[cp >>> 5]! & (1 << (cp & 31))) !== 0
  }
}
