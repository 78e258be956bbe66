/**
 * Python 3.11's per-character properties (Unicode 14) as one two-stage table: a 16-bit
 * set of flags per code point, looked up in two steps (block of 128, then offset), with
 * identical blocks shared, so all of Unicode costs about 100 KB. Built on first use from
 * the generated range tables, so a thread that never cleans text never pays for it.
 */
import {
  ALPHA_RANGES, CASEFOLD_EXTRA, DECIMAL_RANGES, DIGIT_RANGES, LOWER_RANGES, NUMERIC_RANGES, SPACE_RANGES, TITLE_RANGES, UNASSIGNED_RANGES,
  UPPER_MAP, UPPER_RANGES
} from './unicode-tables.js'

export const ALPHA = 1 << 0
export const DECIMAL = 1 << 1
export const DIGIT = 1 << 2
export const NUMERIC = 1 << 3
/** Py_UNICODE_ISLOWER, Py_UNICODE_ISUPPER, Py_UNICODE_ISTITLE. */
export const LOWER = 1 << 4
export const UPPER = 1 << 5
export const TITLE = 1 << 6
/** str.isspace(), which is also what strip() and split() remove. */
export const SPACE = 1 << 7
/** Unassigned (Cn) in Python's Unicode: normalization and case mappings leave it alone. */
export const UNASSIGNED = 1 << 8
/** casefold() cannot use JavaScript's toLowerCase here: a CASEFOLD_EXTRA entry, Σ (Final_Sigma) or unassigned. */
export const FOLD_SPECIAL = 1 << 9
/** upper() changes it (non-ASCII: UPPER_MAP). */
export const UPPER_CHANGES = 1 << 10

const BLOCK_BITS = 7
const BLOCK = 1 << BLOCK_BITS

let index: Uint16Array | undefined
let blocks: Uint16Array = new Uint16Array(0)

function build (): Uint16Array {
  const flat = new Uint16Array(0x110000)
  const set = (ranges: readonly number[], bit: number): void => {
    for (let i = 0; i < ranges.length; i += 2) {
      for (let cp = ranges[i]!; cp <= ranges[i + 1]!; cp++) flat[cp]! |= bit
    }
  }
  set(ALPHA_RANGES, ALPHA)
  set(DECIMAL_RANGES, DECIMAL)
  set(DIGIT_RANGES, DIGIT)
  set(NUMERIC_RANGES, NUMERIC)
  set(LOWER_RANGES, LOWER)
  set(UPPER_RANGES, UPPER)
  set(TITLE_RANGES, TITLE)
  set(SPACE_RANGES, SPACE)
  set(UNASSIGNED_RANGES, UNASSIGNED | FOLD_SPECIAL)
  forEachMapping(CASEFOLD_EXTRA, cp => { flat[cp]! |= FOLD_SPECIAL })
  flat[0x3a3]! |= FOLD_SPECIAL
  forEachMapping(UPPER_MAP, cp => { flat[cp]! |= UPPER_CHANGES })
  for (let cp = 0x61; cp <= 0x7a; cp++) flat[cp]! |= UPPER_CHANGES

  const idx = new Uint16Array(0x110000 >>> BLOCK_BITS)
  const seen = new Map<string, number>()
  const unique: Uint16Array[] = []
  for (let b = 0; b < idx.length; b++) {
    const block = flat.subarray(b << BLOCK_BITS, (b + 1) << BLOCK_BITS)
    const key = String.fromCharCode(...block)
    let n = seen.get(key)
    if (n === undefined) {
      n = unique.length
      seen.set(key, n)
      unique.push(block)
    }
    idx[b] = n
  }
  blocks = new Uint16Array(unique.length * BLOCK)
  unique.forEach((block, n) => blocks.set(block, n * BLOCK))
  index = idx
  return idx
}

/** The flags of code point `cp` (0 to 0x10FFFF). */
export function charProps (cp: number): number {
  const idx = index ?? build()
  return blocks[(idx[cp >>> BLOCK_BITS]! << BLOCK_BITS) | (cp & (BLOCK - 1))]!
}

/** Calls `fn` with each code point of a flat [code point, length, ...mapped] table and its text. */
export function forEachMapping (table: readonly number[], fn: (cp: number, text: string) => void): void {
  for (let i = 0; i < table.length;) {
    const n = table[i + 1]!
    fn(table[i]!, String.fromCodePoint(...table.slice(i + 2, i + 2 + n)))
    i += 2 + n
  }
}

/** A generated mapping table as a Map from code point to text, built on first use. */
export function mappingTable (table: readonly number[]): () => ReadonlyMap<number, string> {
  let map: Map<number, string> | undefined
  return () => {
    if (map === undefined) {
      map = new Map()
      forEachMapping(table, (cp, text) => map!.set(cp, text))
    }
    return map
  }
}
