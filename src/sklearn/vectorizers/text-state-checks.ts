/**
 * Checks of a vectorizer's text tables, as its module's `check` runs them on a state just
 * built from `vocabulary_` or read from a compiled file: what their look-ups rely on, every
 * index inside its array, every open-addressing table a power of two with an empty slot (a
 * probe always ends), every feature id below the vocabulary's size. The analyzer's options
 * go through buildAnalyzer, as readAnalyzerOptions sends a pickle's.
 */
import { buildAnalyzer, type AnalyzerOptions } from '../text/analyzer.js'
import type { TermList } from './term-list.js'
import type { TermTable } from './term-table.js'
import { STOP_WORD, type WordIndex } from './word-index.js'
import { Fields, shapeProblem } from '../state-fields.js'

const isPowerOfTwo = (n: number): boolean => n >= 1 && (n & (n - 1)) === 0

/** Terms packed one after another: ends never go back and stay within the units. */
export function checkTermList (value: unknown, where: string): TermList {
  const f = new Fields(value, where)
  const count = f.int('count', 0)
  const ends = f.array('ends', Int32Array, count)
  const units = f.array('units', Uint16Array)
  let last = 0
  for (let j = 0; j < count; j++) {
    if (!(ends[j]! >= last && ends[j]! <= units.length)) throw shapeProblem(`${where}.ends`, `[${j}] is ${ends[j]!}, outside ${last}..${units.length}`)
    last = ends[j]!
  }
  return { count, units, ends }
}

/**
 * An open-addressing table of `width` ints per slot whose first int is an entry (>= 0) or
 * empty (< 0): a power of two of slots, at least one empty, entries below `entries`.
 */
function checkSlots (slots: Int32Array, width: number, entries: number, where: string): void {
  const size = slots.length / width
  if (!Number.isInteger(size) || !isPowerOfTwo(size)) throw shapeProblem(where, `has ${slots.length} values, not ${width} per slot for a power of two of slots`)
  let empty = 0
  for (let s = 0; s < size; s++) {
    const e = slots[s * width]!
    if (e < 0) empty++
    else if (e >= entries) throw shapeProblem(where, `slot ${s} holds entry ${e} of ${entries}`)
  }
  if (empty === 0) throw shapeProblem(where, 'has no empty slot')
}

/** A string table whose values lie in min..max (a value may also be one of `also`). */
export function checkTermTable (value: unknown, where: string, min: number, max: number, also: readonly number[] = []): TermTable {
  const f = new Fields(value, where)
  const keys = checkTermList(f.value('keys'), `${where}.keys`)
  const values = f.array('values', Int32Array, keys.count)
  values.forEach((v, i) => { if (!(v >= min && v <= max) && !also.includes(v)) throw shapeProblem(`${where}.values`, `[${i}] is ${v}, outside ${min}..${max}`) })
  const slots = f.array('slots', Int32Array)
  checkSlots(slots, 2, keys.count, `${where}.slots`)
  return { keys, values, slots }
}

/** The word n-gram index: token ids within the unigram table, features within the vocabulary. */
export function checkWordIndex (value: unknown, where: string, nFeatures: number): WordIndex {
  const f = new Fields(value, where)
  const unigram = f.indices('unigram', -1, nFeatures - 1)
  const tokens = checkTermTable(f.value('tokens'), `${where}.tokens`, 0, unigram.length - 1, [STOP_WORD])
  const bigramSlots = f.object('bigrams').array('slots', Int32Array)
  checkSlots(bigramSlots, 3, 2 ** 31, `${where}.bigrams.slots`)
  for (let s = 0; s < bigramSlots.length; s += 3) {
    const feature = bigramSlots[s + 2]!
    if (bigramSlots[s]! >= 0 && !(feature >= 0 && feature < nFeatures)) throw shapeProblem(`${where}.bigrams.slots`, `slot ${s / 3} holds feature ${feature} of ${nFeatures}`)
  }
  return { tokens, unigram, bigrams: { slots: bigramSlots }, longer: f.nullable('longer', name => checkLonger(f.value(name), `${where}.longer`, nFeatures)) }
}

function checkLonger (value: unknown, where: string, nFeatures: number): NonNullable<WordIndex['longer']> {
  const f = new Fields(value, where)
  const features = f.indices('features', 0, nFeatures - 1)
  const ids = f.array('ids', Int32Array)
  const start = f.array('start', Int32Array, features.length + 1)
  if (start[0] !== 0 || start[features.length] !== ids.length) throw shapeProblem(`${where}.start`, `does not run from 0 to ${ids.length}`)
  for (let e = 0; e < features.length; e++) if (start[e + 1]! < start[e]!) throw shapeProblem(`${where}.start`, `goes back at ${e + 1}`)
  const slots = f.array('slots', Int32Array)
  checkSlots(slots, 1, features.length, `${where}.slots`)
  const hashes = f.array('hashes', Int32Array, slots.length)
  return { start, ids, features, slots, hashes }
}

/** A vectorizer's analyzer options, then built as the pickle path builds them (pattern, n-gram range, the app's functions). */
export function checkAnalyzerOptions (value: unknown, where: string): AnalyzerOptions {
  const f = new Fields(value, where)
  const ngramRange = f.numbers('ngramRange')
  if (ngramRange.length !== 2) throw shapeProblem(`${where}.ngramRange`, 'is not a pair')
  const options: AnalyzerOptions = {
    analyzer: f.oneOf('analyzer', ['word', 'char', 'char_wb'] as const),
    lowercase: f.bool('lowercase'),
    stripAccents: f.oneOf('stripAccents', ['ascii', 'unicode', null] as const),
    tokenPattern: f.string('tokenPattern'),
    stopWords: f.nullable('stopWords', name => f.strings(name)),
    ngramRange: [ngramRange[0]!, ngramRange[1]!],
    ...(f.has('callables') ? { callables: checkCallables(f.object('callables')) } : {})
  }
  buildAnalyzer(options)
  return options
}

function checkCallables (f: Fields): NonNullable<AnalyzerOptions['callables']> {
  const name = (key: string): string | null => f.nullable(key, k => f.string(k))
  return { preprocessor: name('preprocessor'), tokenizer: name('tokenizer'), analyzer: name('analyzer') }
}
