/**
 * A string -> integer table held in typed arrays only: open addressing over the UTF-16
 * code units of each key (FNV-1a), keys packed one after another. No JavaScript string per
 * key, so it can sit in a model's state and in memory shared between threads, and a key is
 * looked up straight from a range of a text without making a substring.
 */
import type { TermList } from './term-list.js'

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
  const builder = new TermTableBuilder(keys.length)
  for (let i = 0; i < keys.length; i++) builder.add(keys[i]!, 0, keys[i]!.length, values[i]!)
  return builder.build()
}

/**
 * A TermTable filled key by key, each key a range of a string: no string is made for a key
 * and no object per key (a 200,000-term vocabulary's tokens go in straight from its terms).
 */
export class TermTableBuilder {
  #units: Uint16Array
  #ends: Int32Array
  #values: Int32Array
  #slots: Int32Array
  #count = 0
  #unitCount = 0

  /** `expected`: about how many keys will come (the arrays grow past it). */
  constructor (expected: number) {
    let size = 16
    while (size < expected * 2) size *= 2
    this.#slots = new Int32Array(size * 2).fill(-1)
    this.#units = new Uint16Array(Math.max(16, expected * 8))
    this.#ends = new Int32Array(Math.max(16, expected))
    this.#values = new Int32Array(Math.max(16, expected))
  }

  /** Adds `text[start, end)` with `value` unless the key is there already; returns the key's value. */
  add (text: string, start: number, end: number, value: number): number {
    const h = hashRange(text, start, end)
    const length = end - start
    const units = this.#units
    const ends = this.#ends
    let slots = this.#slots
    let mask = (slots.length >> 1) - 1
    let s = h & mask
    for (; ; s = (s + 1) & mask) {
      const k = slots[2 * s]!
      if (k < 0) break
      if (slots[2 * s + 1] !== h) continue
      const from = k === 0 ? 0 : ends[k - 1]!
      if (ends[k]! - from !== length) continue
      let i = 0
      while (i < length && units[from + i] === text.charCodeAt(start + i)) i++
      if (i === length) return this.#values[k]!
    }
    const k = this.#count++
    this.#reserve(k, length)
    const at = this.#unitCount
    for (let i = 0; i < length; i++) this.#units[at + i] = text.charCodeAt(start + i)
    this.#unitCount = at + length
    this.#ends[k] = this.#unitCount
    this.#values[k] = value
    if (this.#count * 2 > slots.length >> 1) {
      slots = this.#rehash()
      mask = (slots.length >> 1) - 1
      for (s = h & mask; slots[2 * s]! >= 0; s = (s + 1) & mask);
    }
    slots[2 * s] = k
    slots[2 * s + 1] = h
    return value
  }

  build (): TermTable {
    return { keys: { count: this.#count, units: this.#units.slice(0, this.#unitCount), ends: this.#ends.slice(0, this.#count) }, values: this.#values.slice(0, this.#count), slots: this.#slots }
  }

  /** Room for key `k` of `length` units. */
  #reserve (k: number, length: number): void {
    if (k >= this.#ends.length) {
      this.#ends = grownInt32(this.#ends, k + 1)
      this.#values = grownInt32(this.#values, k + 1)
    }
    if (this.#unitCount + length > this.#units.length) {
      const units = new Uint16Array(Math.max(this.#units.length * 2, this.#unitCount + length))
      units.set(this.#units)
      this.#units = units
    }
  }

  /** Twice the slots, every key placed again by its kept hash. */
  #rehash (): Int32Array {
    const old = this.#slots
    const slots = new Int32Array(old.length * 2).fill(-1)
    const mask = (slots.length >> 1) - 1
    for (let o = 0; o < old.length; o += 2) {
      const k = old[o]!
      if (k < 0) continue
      const h = old[o + 1]!
      let s = h & mask
      while (slots[2 * s]! >= 0) s = (s + 1) & mask
      slots[2 * s] = k
      slots[2 * s + 1] = h
    }
    this.#slots = slots
    return slots
  }
}

/** `array` in one at least `least` long (and twice as long at least), new entries `fill`. */
export function grownInt32 (array: Int32Array, least: number, fill = 0): Int32Array<ArrayBuffer> {
  const out = new Int32Array(Math.max(array.length * 2, least))
  if (fill !== 0) out.fill(fill, array.length)
  out.set(array)
  return out
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
