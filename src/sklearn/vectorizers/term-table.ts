/**
 * A string -> integer table held in typed arrays only: open addressing over the UTF-16
 * code units of each key (FNV-1a), keys packed one after another. No JavaScript string per
 * key, so it can sit in a model's state and in memory shared between threads, and a key is
 * looked up straight from a range of a text without making a substring.
 */
import { packTerms, type TermList } from './term-list.js'

export interface TermTable {
  /** The keys, in insertion order. */
  readonly keys: TermList
  /** Per key: its value. */
  readonly values: Int32Array
  /**
   * Two ints per slot, side by side so a probe reads one cache line: a key index (or -1)
   * and that key's hash, compared before the key itself. A power of two of slots, at most
   * half full.
   */
  readonly slots: Int32Array
}

export const FNV_OFFSET = 0x811c9dc5 | 0
export const FNV_PRIME = 0x01000193

/** FNV-1a of `text[start, end)`. */
function hashRange (text: string, start: number, end: number): number {
  let h = FNV_OFFSET
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME)
  return h
}

/** A table of `keys` with their values; a repeated key keeps its first value. */
export function buildTermTable (keys: readonly string[], values: ArrayLike<number>): TermTable {
  let size = 16
  while (size < keys.length * 2) size *= 2
  const slots = new Int32Array(size * 2).fill(-1)
  const kept: string[] = []
  const keptValues: number[] = []
  keys.forEach((key, i) => {
    const h = hashRange(key, 0, key.length)
    for (let s = h & (size - 1); ; s = (s + 1) & (size - 1)) {
      const k = slots[2 * s]!
      if (k < 0) {
        slots[2 * s] = kept.length
        slots[2 * s + 1] = h
        kept.push(key)
        keptValues.push(values[i]!)
        return
      }
      if (slots[2 * s + 1] === h && kept[k] === key) return
    }
  })
  return { keys: packTerms(kept), values: Int32Array.from(keptValues), slots }
}

/**
 * The value of `text[start, end)` (or all of `text`), or -1. The word tokenizer's probe
 * (word-index.ts pushToken) is this loop written out, lowering as it compares.
 */
export function lookupRange (table: TermTable, text: string, start = 0, end = text.length): number {
  const { slots, keys: { units, ends }, values } = table
  const h = hashRange(text, start, end)
  const mask = (slots.length >> 1) - 1
  const length = end - start
  for (let s = h & mask; ; s = (s + 1) & mask) {
    const k = slots[2 * s]!
    if (k < 0) return -1
    if (slots[2 * s + 1] !== h) continue
    const from = k === 0 ? 0 : ends[k - 1]!
    if (ends[k]! - from !== length) continue
    let i = 0
    while (i < length && units[from + i] === text.charCodeAt(start + i)) i++
    if (i === length) return values[k]!
  }
}
