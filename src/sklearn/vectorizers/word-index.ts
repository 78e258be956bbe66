/**
 * Word n-grams looked up by token ids, for word analyzers whose tokens are maximal `\w`
 * runs (`(?u)\b\w\w+\b` and its kin: no token holds a space, so every vocabulary term splits
 * back into its tokens). Held in typed arrays only, built once from the vocabulary:
 *
 * - a token table (term-table.ts) from each token's code units to its id, with stop words
 *   marked, since scikit-learn drops them before forming n-grams;
 * - per token id its unigram feature; bigrams and longer n-grams in open-addressing tables
 *   keyed by their id pairs and id sequences.
 *
 * A text is scanned once (scanTokenIds): each run of `\w` is lowered and hashed unit by unit
 * as it is read and looked up without making a string.
 */
import { SPECIAL_BIT, SURROGATE_BIT, WORD_BIT, bmpTables } from '../../python/bmp-tables.js'
import { WORD } from '../../python/python-str.js'
import { FNV_OFFSET, FNV_PRIME, TermTableBuilder, grownInt32, type TermTable } from './term-table.js'

export const UNKNOWN = -1
export const STOP_WORD = -2

/** n-grams of three tokens or more, keyed by their token ids. */
export interface IdSequenceTable {
  /** The ids of entry e: ids[start[e] .. start[e + 1]). */
  readonly start: Int32Array
  readonly ids: Int32Array
  readonly features: Int32Array
  readonly slots: Int32Array
  readonly hashes: Int32Array
}

export interface WordIndex {
  readonly tokens: TermTable
  /** Feature of each token id as a unigram, or -1. */
  readonly unigram: Int32Array
  readonly bigrams: IdPairTable
  readonly longer: IdSequenceTable | null
}

/**
 * Bigrams, open addressing with each entry held in its slot: three ints (first id, second
 * id, feature; first -1 when empty), so a probe is one cache line, which matters when a
 * 200,000-term vocabulary's table is far bigger than the caches. Slots: a power of two, at
 * most half full.
 */
export interface IdPairTable {
  readonly slots: Int32Array
}

function hashPair (a: number, b: number): number {
  return Math.imul(Math.imul(a, 0x9e3779b1) ^ b, 0x85ebca6b) ^ (a >>> 15)
}

/** The table of `count` bigrams, given as (first id, second id, feature) triples one after another. */
function buildIdPairTable (triples: Int32Array, count: number): IdPairTable {
  let size = 16
  while (size < count * 2) size *= 2
  const slots = new Int32Array(size * 3).fill(-1)
  for (let e = 0; e < count; e++) {
    const a = triples[3 * e]!
    const b = triples[3 * e + 1]!
    let slot = hashPair(a, b) & (size - 1)
    while (slots[3 * slot] !== -1) slot = (slot + 1) & (size - 1)
    slots[3 * slot] = a
    slots[3 * slot + 1] = b
    slots[3 * slot + 2] = triples[3 * e + 2]!
  }
  return { slots }
}

function lookupPair (t: IdPairTable, a: number, b: number): number {
  const slots = t.slots
  const mask = slots.length / 3 - 1
  for (let s = hashPair(a, b) & mask; ; s = (s + 1) & mask) {
    const first = slots[3 * s]!
    if (first < 0) return -1
    if (first === a && slots[3 * s + 1] === b) return slots[3 * s + 2]!
  }
}

function hashIds (ids: ArrayLike<number>, start: number, n: number): number {
  let h = FNV_OFFSET
  for (let k = 0; k < n; k++) h = Math.imul(h ^ ids[start + k]!, FNV_PRIME)
  return h
}

/** The table of n-grams of three or more: entry e's ids are ids[start[e] .. start[e + 1]). */
function buildIdSequenceTable (start: Int32Array, ids: Int32Array, features: Int32Array): IdSequenceTable {
  const count = features.length
  let size = 16
  while (size < count * 2) size *= 2
  const slots = new Int32Array(size).fill(-1)
  const hashes = new Int32Array(size)
  for (let e = 0; e < count; e++) {
    const h = hashIds(ids, start[e]!, start[e + 1]! - start[e]!)
    let slot = h & (size - 1)
    while (slots[slot] !== -1) slot = (slot + 1) & (size - 1)
    slots[slot] = e
    hashes[slot] = h
  }
  return { start, ids, features, slots, hashes }
}

function lookupIds (t: IdSequenceTable, ids: Int32Array, at: number, n: number): number {
  const h = hashIds(ids, at, n)
  const mask = t.slots.length - 1
  for (let s = h & mask; ; s = (s + 1) & mask) {
    const e = t.slots[s]!
    if (e < 0) return -1
    if (t.hashes[s] !== h || t.start[e + 1]! - t.start[e]! !== n) continue
    let same = true
    for (let k = 0; k < n; k++) if (t.ids[t.start[e]! + k] !== ids[at + k]) { same = false; break }
    if (same) return t.features[e]!
  }
}

/**
 * The index of a vocabulary (terms in feature order) whose terms are tokens joined by spaces.
 * Each term is read once, its tokens put in the token table straight from it: no string,
 * array or object per term (a 200,000-term vocabulary made 400,000 of them).
 */
export function buildWordIndex (vocabulary: readonly string[], stopWords: readonly string[] | null): WordIndex {
  const tokens = new TermTableBuilder(16)
  // Stop words first: a stop word is dropped even if some term holds it (scikit-learn never
  // forms such a term), so a term holding one can never be found and is left out.
  for (const word of stopWords ?? []) tokens.add(word, 0, word.length, STOP_WORD)
  let nextId = 0
  let unigram = new Int32Array(1024).fill(-1)
  const bigrams = new IntList()
  const longStart = new IntList()
  const longIds = new IntList()
  const longFeatures = new IntList()
  let ids: Int32Array<ArrayBuffer> = new Int32Array(16)
  for (let f = 0; f < vocabulary.length; f++) {
    const term = vocabulary[f]!
    let n = 0
    let stopped = false
    // The tokens of term.split(' '), empty ones included.
    for (let start = 0, i = 0; i <= term.length; i++) {
      if (i < term.length && term.charCodeAt(i) !== 0x20) continue
      const id = tokens.add(term, start, i, nextId)
      if (id === nextId) nextId++
      if (id === STOP_WORD) stopped = true
      if (n === ids.length) ids = grownInt32(ids, n + 1)
      ids[n++] = id
      start = i + 1
    }
    if (stopped) continue
    if (n === 1) {
      if (ids[0]! >= unigram.length) unigram = grownInt32(unigram, ids[0]! + 1, -1)
      unigram[ids[0]!] = f
    } else if (n === 2) {
      bigrams.push(ids[0]!)
      bigrams.push(ids[1]!)
      bigrams.push(f)
    } else {
      longStart.push(longIds.length)
      for (let k = 0; k < n; k++) longIds.push(ids[k]!)
      longFeatures.push(f)
    }
  }
  longStart.push(longIds.length)
  // One entry per token id, -1 for a token that is no unigram feature.
  const unigrams = new Int32Array(nextId).fill(-1)
  unigrams.set(unigram.subarray(0, Math.min(nextId, unigram.length)))
  return {
    tokens: tokens.build(),
    unigram: unigrams,
    bigrams: buildIdPairTable(bigrams.items, bigrams.length / 3),
    longer: longFeatures.length === 0 ? null : buildIdSequenceTable(longStart.take(), longIds.take(), longFeatures.take())
  }
}

/** A growing list of int32s. */
class IntList {
  items: Int32Array<ArrayBuffer> = new Int32Array(1024)
  length = 0

  push (v: number): void {
    if (this.length === this.items.length) this.items = grownInt32(this.items, this.length + 1)
    this.items[this.length++] = v
  }

  /** The values, in an array of their own length. */
  take (): Int32Array {
    return this.items.slice(0, this.length)
  }
}

/** Token ids scanned from a text; grows as needed and is reused from text to text. */
export interface IdBuffer {
  ids: Int32Array
}

/** Returned by scanTokenIds when the text needs the exact path: lowered as a whole first, then scanned as it is. */
export const NEEDS_EXACT_PATH = -1

/**
 * The ids of the maximal `\w` runs of at least `minLength` code points in `text`, stop words
 * dropped, into `out`; returns their count. With `lowercase`, each unit is lowered through
 * the BMP table as it is read, and a text holding a unit the table cannot lower alone, or a
 * `\w` code point beyond the BMP, gives NEEDS_EXACT_PATH; without, the text is taken as it is
 * (already preprocessed) and astral `\w` code points count as one.
 */
export function scanTokenIds (text: string, lowercase: boolean, minLength: number, tokens: TermTable, out: IdBuffer): number {
  const tables = bmpTables()
  const units = lowercase ? tables.lowered : tables.asIs
  const table = lowercase ? tables.lower : null
  let n = 0
  let start = -1
  // Astral code points in the current run: it has (units - astral) code points.
  let astral = 0
  let h = 0
  const length = text.length
  for (let i = 0; i < length; i++) {
    const u = units[text.charCodeAt(i)]!
    if ((u & WORD_BIT) !== 0) {
      if (start < 0) {
        start = i
        astral = 0
        h = FNV_OFFSET
      }
      h = Math.imul(h ^ (u & 0xffff), FNV_PRIME)
      continue
    }
    if ((u & (SPECIAL_BIT | SURROGATE_BIT)) !== 0) {
      if ((u & SPECIAL_BIT) !== 0) return NEEDS_EXACT_PATH
      // A surrogate pair is one code point of two units (never lowered: see above).
      const c = u & 0xffff
      const next = i + 1 < length ? text.charCodeAt(i + 1) : 0
      if (c <= 0xdbff && (next & 0xfc00) === 0xdc00) {
        if (WORD.has(0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00))) {
          if (lowercase) return NEEDS_EXACT_PATH
          if (start < 0) {
            start = i
            astral = 0
            h = FNV_OFFSET
          }
          astral++
          h = Math.imul(Math.imul(h ^ c, FNV_PRIME) ^ next, FNV_PRIME)
          i++
          continue
        }
        if (start >= 0 && i - start - astral >= minLength) n = pushToken(tokens, h, text, start, i, table, out, n)
        start = -1
        i++
        continue
      }
    }
    if (start >= 0) {
      if (i - start - astral >= minLength) n = pushToken(tokens, h, text, start, i, table, out, n)
      start = -1
    }
  }
  if (start >= 0 && length - start - astral >= minLength) n = pushToken(tokens, h, text, start, length, table, out, n)
  return n
}

/**
 * Appends the id of text[start, end) (hash `h`, units through `lower` when given) unless it
 * is a stop word; returns the new count. The table probe is written out here rather than
 * called, so the scan pays no call per token.
 */
function pushToken (tokens: TermTable, h: number, text: string, start: number, end: number, lower: Uint16Array | null, out: IdBuffer, n: number): number {
  const { slots, values } = tokens
  const { units, ends } = tokens.keys
  const mask = (slots.length >> 1) - 1
  const length = end - start
  let id = UNKNOWN
  for (let s = h & mask; ; s = (s + 1) & mask) {
    const k = slots[2 * s]!
    if (k < 0) break
    if (slots[2 * s + 1] !== h) continue
    const from = k === 0 ? 0 : ends[k - 1]!
    if (ends[k]! - from !== length) continue
    let i = 0
    if (lower === null) {
      while (i < length && units[from + i] === text.charCodeAt(start + i)) i++
    } else {
      while (i < length && units[from + i] === lower[text.charCodeAt(start + i)]) i++
    }
    if (i === length) {
      id = values[k]!
      break
    }
  }
  if (id === STOP_WORD) return n
  if (n === out.ids.length) out.ids = grownInt32(out.ids, n + 1)
  out.ids[n] = id
  return n + 1
}

/** Emits the feature of every n-gram (minN <= n <= maxN) of the first `count` ids that is in the vocabulary, in `_word_ngrams` order. */
export function forEachFeatureOfIds (index: WordIndex, ids: Int32Array, count: number, minN: number, maxN: number, emit: (feature: number) => void): void {
  if (minN <= 1 && maxN >= 1) {
    const unigram = index.unigram
    for (let i = 0; i < count; i++) {
      const id = ids[i]!
      if (id >= 0) {
        const f = unigram[id]!
        if (f >= 0) emit(f)
      }
    }
  }
  if (minN <= 2 && maxN >= 2) {
    for (let i = 0; i + 1 < count; i++) {
      const a = ids[i]!
      const b = ids[i + 1]!
      if (a >= 0 && b >= 0) {
        const f = lookupPair(index.bigrams, a, b)
        if (f >= 0) emit(f)
      }
    }
  }
  const longer = index.longer
  if (longer === null) return
  for (let n = Math.max(minN, 3); n <= Math.min(maxN, count); n++) {
    for (let i = 0; i + n <= count; i++) {
      let known = true
      for (let k = i; k < i + n; k++) {
        if (ids[k]! < 0) { known = false; break }
      }
      if (!known) continue
      const f = lookupIds(longer, ids, i, n)
      if (f >= 0) emit(f)
    }
  }
}
