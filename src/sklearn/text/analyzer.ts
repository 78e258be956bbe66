/**
 * scikit-learn's `build_analyzer()` (feature_extraction/text.py, checked against 1.2-1.7):
 * preprocess (lowercase, then strip accents), then word tokens with stop words removed
 * and word n-grams, or character n-grams ('char', 'char_wb'). Features go to a callback
 * instead of a list, so counting allocates nothing per feature beyond its string.
 */
import { ServiceError } from '../../errors.js'
import { pyLower, pySplit } from '../../python/python-str.js'
import { stripAccentsAscii, stripAccentsUnicode } from './strip-accents.js'
import { squeezeWhiteSpace } from './white-spaces.js'
import { forEachWordRun } from '../../python/word-runs.js'
import { translatePythonPattern } from '../../python/python-regex.js'
import { currentUserFunctions, textFunction, tokensFunction } from './user-callables.js'

/** The app's Python functions a vectorizer names, by qualified name (resolved through user-callables.ts). */
export interface AnalyzerCallables {
  readonly preprocessor: string | null
  readonly tokenizer: string | null
  readonly analyzer: string | null
}

export interface AnalyzerOptions {
  readonly analyzer: 'word' | 'char' | 'char_wb'
  readonly lowercase: boolean
  readonly stripAccents: 'ascii' | 'unicode' | null
  readonly tokenPattern: string
  /** Plain data (a list), so options can sit in a model's state; made a Set where used. */
  readonly stopWords: readonly string[] | null
  readonly ngramRange: readonly [number, number]
  /** Callables the pickle names in place of scikit-learn's own steps; absent when none. */
  readonly callables?: AnalyzerCallables
}

export type Analyzer = (text: string, emit: (feature: string) => void) => void

export function buildPreprocessor (options: AnalyzerOptions): (text: string) => string {
  // A callable preprocessor replaces lowercasing and accent stripping (build_preprocessor).
  const own = options.callables?.preprocessor ?? null
  if (own !== null) return textFunction(currentUserFunctions(), own, 'the vectorizer\'s preprocessor')
  const strip = options.stripAccents === 'unicode' ? stripAccentsUnicode : options.stripAccents === 'ascii' ? stripAccentsAscii : undefined
  const lower = options.lowercase
  return text => {
    const lowered = lower ? pyLower(text) : text
    return strip === undefined ? lowered : strip(lowered)
  }
}

/** `token_pattern.findall` as a function; the default pattern gets a scanner instead of a regex. */
export function buildTokenizer (tokenPattern: string): (text: string) => string[] {
  const translated = translatePythonPattern(tokenPattern)
  if (translated.groups > 1) {
    throw new ServiceError('ERR_MODEL_UNSUPPORTED', `token_pattern ${JSON.stringify(tokenPattern)} has ${translated.groups} capturing groups; scikit-learn allows at most one`)
  }
  const minLength = translated.wordRunMinLength
  if (minLength !== undefined) return text => wordRuns(text, minLength)
  const { regex, groups } = translated
  return text => {
    const out: string[] = []
    for (const m of text.matchAll(regex)) out.push(groups === 1 ? (m[1] ?? '') : m[0])
    return out
  }
}

/** Maximal runs of Python `\w` of at least `minLength` code points: what `\b\w\w+\b` finds. */
function wordRuns (text: string, minLength: number): string[] {
  const out: string[] = []
  forEachWordRun(text, minLength, (start, end) => { out.push(text.slice(start, end)) })
  return out
}

/** A word analyzer whose tokens are maximal `\w` runs: what it needs to tokenize without a regex. */
export interface WordRunPlan {
  readonly preprocess: (text: string) => string
  readonly minLength: number
}

/** The plan when the analyzer's tokens are `\w` runs (no token holds a space); otherwise undefined. */
export function planWordRuns (options: AnalyzerOptions): WordRunPlan | undefined {
  const c = options.callables
  if (options.analyzer !== 'word' || (c !== undefined && (c.preprocessor !== null || c.tokenizer !== null || c.analyzer !== null))) return undefined
  const minLength = translatePythonPattern(options.tokenPattern).wordRunMinLength
  if (minLength === undefined) return undefined
  return { preprocess: buildPreprocessor(options), minLength }
}

export function buildAnalyzer (options: AnalyzerOptions): Analyzer {
  // A callable analyzer makes the features itself from the raw text (_analyze).
  const own = options.callables?.analyzer ?? null
  if (own !== null) {
    const analyze = tokensFunction(currentUserFunctions(), own, 'the vectorizer\'s analyzer')
    return (text, emit) => { for (const feature of analyze(text)) emit(feature) }
  }
  const preprocess = buildPreprocessor(options)
  const [minN, maxN] = options.ngramRange
  if (!Number.isInteger(minN) || !Number.isInteger(maxN) || minN < 1 || maxN < minN) {
    throw new ServiceError('ERR_MODEL_UNSUPPORTED', `ngram_range (${minN}, ${maxN}) is invalid`)
  }
  if (options.analyzer === 'char') return (text, emit) => charNgrams(squeezeWhiteSpace(preprocess(text)), minN, maxN, emit)
  if (options.analyzer === 'char_wb') return (text, emit) => charWbNgrams(squeezeWhiteSpace(preprocess(text)), minN, maxN, emit)
  const tokens = buildWordTokenizer(options)
  return (text, emit) => { wordNgrams(tokens(text), minN, maxN, emit) }
}

/** The word analyzer's tokens: preprocessed, tokenized, stop words removed (before n-grams). */
export function buildWordTokenizer (options: AnalyzerOptions): (text: string) => string[] {
  const preprocess = buildPreprocessor(options)
  const own = options.callables?.tokenizer ?? null
  const tokenize = own !== null ? tokensFunction(currentUserFunctions(), own, 'the vectorizer\'s tokenizer') : buildTokenizer(options.tokenPattern)
  const stopWords = options.stopWords === null ? null : new Set(options.stopWords)
  return text => {
    const tokens = tokenize(preprocess(text))
    return stopWords === null ? tokens : tokens.filter(t => !stopWords.has(t))
  }
}

/** How many n-grams (minN <= n <= maxN) `count` tokens make, as `_word_ngrams` forms them. */
export function wordNgramCount (count: number, minN: number, maxN: number): number {
  let total = 0
  for (let n = minN; n <= Math.min(maxN, count); n++) total += count - n + 1
  return total
}

/**
 * Calls `onNgram(start, n)` for each word n-gram of `count` tokens in `_word_ngrams`'s
 * order (unigrams first, then by length), for callers that need no joined string.
 */
export function forEachWordNgram (count: number, minN: number, maxN: number, onNgram: (start: number, n: number) => void): void {
  for (let n = minN; n <= Math.min(maxN, count); n++) {
    for (let i = 0; i + n <= count; i++) onNgram(i, n)
  }
}

/** `_word_ngrams`: n-grams of the tokens left after stop words, so they span removed ones. */
function wordNgrams (tokens: readonly string[], minN: number, maxN: number, emit: (f: string) => void): void {
  if (maxN === 1) {
    for (const t of tokens) emit(t)
    return
  }
  let n0 = minN
  if (minN === 1) {
    for (const t of tokens) emit(t)
    n0 = 2
  }
  const count = tokens.length
  for (let n = n0; n <= Math.min(maxN, count); n++) {
    for (let i = 0; i + n <= count; i++) {
      let gram = tokens[i]!
      for (let k = 1; k < n; k++) gram += ' ' + tokens[i + k]!
      emit(gram)
    }
  }
}

/**
 * UTF-16 offsets of each code point of `text`, and its length at the end, so n-grams of
 * code points are slices (no array of characters joined per n-gram); null when every code
 * point is one unit, the common case, where the offsets are the indices themselves.
 */
function codePointOffsets (text: string): Int32Array | null {
  let astral = false
  for (let i = 0; i < text.length && !astral; i++) astral = (text.charCodeAt(i) & 0xfc00) === 0xd800
  if (!astral) return null
  const offsets: number[] = []
  for (let i = 0; i < text.length; i += text.codePointAt(i)! > 0xffff ? 2 : 1) offsets.push(i)
  offsets.push(text.length)
  return Int32Array.from(offsets)
}

/** Calls `emit` with every n-gram of code points of `text` (n in [minN, maxN]) in scikit-learn's order. */
function forEachCharNgram (text: string, offsets: Int32Array | null, n: number, emit: (f: string) => void): void {
  const count = offsets === null ? text.length : offsets.length - 1
  for (let i = 0; i + n <= count; i++) emit(offsets === null ? text.slice(i, i + n) : text.slice(offsets[i]!, offsets[i + n]!))
}

/** `_char_ngrams`: every substring of n code points, unigrams first. */
function charNgrams (text: string, minN: number, maxN: number, emit: (f: string) => void): void {
  const offsets = codePointOffsets(text)
  const count = offsets === null ? text.length : offsets.length - 1
  for (let n = minN; n <= Math.min(maxN, count); n++) forEachCharNgram(text, offsets, n, emit)
}

/** `_char_wb_ngrams`: n-grams inside each space-padded word; a word shorter than n gives itself once. */
function charWbNgrams (text: string, minN: number, maxN: number, emit: (f: string) => void): void {
  for (const word of pySplit(text)) {
    const w = ' ' + word + ' '
    const offsets = codePointOffsets(w)
    const length = offsets === null ? w.length : offsets.length - 1
    for (let n = minN; n <= maxN; n++) {
      if (n >= length) {
        // A word no longer than n gives itself once, and nothing for larger n.
        emit(w)
        break
      }
      forEachCharNgram(w, offsets, n, emit)
    }
  }
}
