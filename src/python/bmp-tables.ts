/**
 * Python's `\w` and `str.lower()` as tables over the 65,536 UTF-16 code units, for a
 * tokenizer that lowers and tests each unit with one look-up instead of lowering the text
 * first. A unit whose lowercase is not one unit ('İ' gives 'i̇') or depends on context
 * (Σ gives σ or, ending a word, ς) is marked: a text holding one takes the exact path
 * that lowers the whole string as Python does. Built once per thread (about 200 KB).
 */
import { WORD, pyLowerUnit } from './python-str.js'

export interface BmpTables {
  /** `str.lower()` of each unit, where that is one unit. */
  readonly lower: Uint16Array
  /**
   * All of it in one look-up per unit, for the tokenizer's inner loop: per unit, the unit it
   * is read as (its lowercase in `lowered`, itself in `asIs`) in the low 16 bits, then
   * WORD_BIT if that is `\w`, SPECIAL_BIT (`lowered` only) if it cannot be lowered alone,
   * SURROGATE_BIT for a surrogate.
   */
  readonly lowered: Int32Array
  readonly asIs: Int32Array
}

export const WORD_BIT = 1 << 16
export const SPECIAL_BIT = 1 << 17
export const SURROGATE_BIT = 1 << 18

let tables: BmpTables | undefined

export function bmpTables (): BmpTables {
  if (tables !== undefined) return tables
  // 1 where the unit is a `\w` code point (surrogates: 0); 1 where its lowercase is not one
  // unit or depends on the units around it.
  const word = new Uint8Array(0x10000)
  const lower = new Uint16Array(0x10000)
  const special = new Uint8Array(0x10000)
  for (let c = 0; c < 0x10000; c++) {
    if (c >= 0xd800 && c <= 0xdfff) {
      lower[c] = c
      continue
    }
    word[c] = WORD.has(c) ? 1 : 0
    const l = pyLowerUnit(c)
    // Final_Sigma makes U+03A3's lowercase depend on its neighbours.
    if (l.length !== 1 || c === 0x3a3) {
      special[c] = 1
      lower[c] = c
    } else {
      lower[c] = l.charCodeAt(0)
    }
  }
  const lowered = new Int32Array(0x10000)
  const asIs = new Int32Array(0x10000)
  for (let c = 0; c < 0x10000; c++) {
    const surrogate = c >= 0xd800 && c <= 0xdfff ? SURROGATE_BIT : 0
    // A special unit never carries WORD_BIT, so the inner loop's first test sends it to the slow branch.
    lowered[c] = special[c] === 1 ? c | SPECIAL_BIT : lower[c]! | (word[lower[c]!] === 1 ? WORD_BIT : 0) | surrogate
    asIs[c] = c | (word[c] === 1 ? WORD_BIT : 0) | surrogate
  }
  tables = { lower, lowered, asIs }
  return tables
}
