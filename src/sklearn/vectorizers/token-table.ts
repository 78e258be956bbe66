/**
 * Token ids looked up straight from the text: an open-addressing hash table over the
 * UTF-16 code units of each `\w` run, checked against the stored token, so no substring
 * is made and no string is hashed by the engine. Stop words are in the table too, marked,
 * because removing them changes which tokens are adjacent in n-grams.
 */
import { forEachWordRun } from '../text/word-runs.js'

export const UNKNOWN = -1
export const STOP_WORD = -2

function hashRange (text: string, start: number, end: number): number {
  let h = 0x811c9dc5
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h | 0
}

export class TokenTable {
  readonly #tokens: string[] = []
  readonly #values: number[] = []
  #slots: Int32Array
  #hashes: Int32Array
  #mask: number

  constructor (expected: number) {
    let size = 16
    while (size < expected * 2) size *= 2
    this.#slots = new Int32Array(size).fill(-1)
    this.#hashes = new Int32Array(size)
    this.#mask = size - 1
  }

  /** Adds `token` with `value` (a token id or STOP_WORD) unless present. */
  add (token: string, value: number): void {
    const h = hashRange(token, 0, token.length)
    for (let s = h & this.#mask; ; s = (s + 1) & this.#mask) {
      const k = this.#slots[s]!
      if (k < 0) {
        this.#slots[s] = this.#tokens.length
        this.#hashes[s] = h
        this.#tokens.push(token)
        this.#values.push(value)
        return
      }
      if (this.#hashes[s] === h && this.#tokens[k] === token) return
    }
  }

  /** The value stored for text[start..end), or UNKNOWN. */
  lookup (text: string, start: number, end: number): number {
    const h = hashRange(text, start, end)
    const length = end - start
    for (let s = h & this.#mask; ; s = (s + 1) & this.#mask) {
      const k = this.#slots[s]!
      if (k < 0) return UNKNOWN
      if (this.#hashes[s] !== h) continue
      const token = this.#tokens[k]!
      if (token.length !== length) continue
      let same = true
      for (let i = 0; i < length; i++) {
        if (token.charCodeAt(i) !== text.charCodeAt(start + i)) { same = false; break }
      }
      if (same) return this.#values[k]!
    }
  }
}

/**
 * The ids of the maximal `\w` runs of at least `minLength` code points in `text`, in order
 * (what `(?u)\b\w\w+\b` finds), with stop words dropped; written into `out`, returns the count.
 */
export function scanTokenIds (text: string, minLength: number, table: TokenTable, out: { ids: Int32Array }): number {
  let n = 0
  forEachWordRun(text, minLength, (start, end) => {
    const id = table.lookup(text, start, end)
    if (id === STOP_WORD) return
    if (n === out.ids.length) {
      const grown = new Int32Array(out.ids.length * 2)
      grown.set(out.ids)
      out.ids = grown
    }
    out.ids[n++] = id
  })
  return n
}
