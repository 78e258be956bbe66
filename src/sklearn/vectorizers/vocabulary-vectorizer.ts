/**
 * CountVectorizer and TfidfVectorizer: `transform` of one text as scikit-learn computes it.
 * Counts of the analyzer's features found in `vocabulary_`, indices sorted (`_count_vocab`
 * then `sort_indices`), `binary` sets every count to 1; a TfidfVectorizer then applies its
 * TfidfTransformer (tfidf-transformer.ts) in the vectorizer's float dtype.
 *
 * The vocabulary and its look-up tables are built once, into typed arrays only (no string
 * per term): for `\w`-run word analyzers a token table with n-grams by token ids
 * (word-index.ts), scanned straight from the text; for the others a table of the terms
 * themselves (term-table.ts). State is then plain data any thread can share.
 */
import { PyGlobal, PyObject } from '../../pickle/values.js'
import { defineEstimator, type EstimatorState, type TermCoverage, type Vectorizer } from '../estimator.js'
import { attr, bool, describe, dtypeName, param, setItems, shapeError, unsupported } from '../record.js'
import type { SparseRow } from '../sparse-row.js'
import { buildAnalyzer, planWordRuns, wordNgramCount, type AnalyzerOptions } from '../text/analyzer.js'
import { ENGLISH_STOP_WORDS } from '../text/english-stop-words.js'
import { FeatureCounter } from './feature-counter.js'
import { packTerms, termAt, type TermList } from './term-list.js'
import { buildTermTable, lookupRange, type TermTable } from './term-table.js'
import { NEEDS_EXACT_PATH, buildWordIndex, forEachFeatureOfIds, scanTokenIds, type IdBuffer, type WordIndex } from './word-index.js'
import { countCast } from './count-dtype.js'
import { applyTfidf, checkTfidf, readTfidf, tfidfParams, type TfidfState } from './tfidf-transformer.js'
import { summarize } from '../../pickle/summarize.js'
import { checkAnalyzerOptions, checkTermList, checkTermTable, checkWordIndex } from './text-state-checks.js'
import { Fields, shapeProblem } from '../state-fields.js'

export interface VocabularyVectorizerState extends EstimatorState {
  readonly analyzer: AnalyzerOptions
  readonly vocabulary: TermList
  /** For a `\w`-run word analyzer: n-grams by token ids. */
  readonly words: WordIndex | null
  /** For any other analyzer: the terms themselves (its keys are `vocabulary`). */
  readonly terms: TermTable | null
  readonly binary: boolean
  /** dtype float32: counts and TF-IDF arithmetic are rounded to float32. */
  readonly float32: boolean
  /** A CountVectorizer's integer or bool dtype (its counts are cast to it), or null: a float one. */
  readonly integerDtype: string | null
  readonly tfidf: TfidfState | null
}

function stopWords (obj: PyObject): string[] | null {
  const v = param(obj, 'stop_words', null)
  if (v === null) return null
  if (v === 'english') return [...ENGLISH_STOP_WORDS]
  if (typeof v === 'string') return unsupported(`${obj.name}.stop_words '${v}' is not a built-in stop list`)
  const words = setItems(v)
  if (words === undefined || words.some(w => typeof w !== 'string')) return unsupported(`${obj.name}.stop_words is ${describe(v)}`)
  return words as string[]
}

function ngramRange (obj: PyObject): [number, number] {
  const v = param(obj, 'ngram_range', null)
  if (v === null) return [1, 1]
  const [a, b] = setItems(v) ?? []
  if (typeof a !== 'number' || typeof b !== 'number') return unsupported(`${obj.name}.ngram_range is ${describe(v)}`)
  return [a, b]
}

/** A callable parameter: the Python function's name when the pickle names one (the app's own), else null. */
function callableName (obj: PyObject, name: string): string | null {
  const v = param(obj, name, null)
  if (v === null || (name === 'analyzer' && typeof v === 'string')) return null
  if (v instanceof PyGlobal) return v.qualifiedName
  return unsupported(`${obj.name}.${name} is ${describe(v)}, which cannot be served without Python`)
}

/** The analyzer's options; refuses anything a file cannot carry (file input, scikit-learn's own callables). */
export function readAnalyzerOptions (obj: PyObject): AnalyzerOptions {
  const callables = { preprocessor: callableName(obj, 'preprocessor'), tokenizer: callableName(obj, 'tokenizer'), analyzer: callableName(obj, 'analyzer') }
  const analyzer = callables.analyzer !== null ? 'word' : param(obj, 'analyzer', 'word')
  if (analyzer !== 'word' && analyzer !== 'char' && analyzer !== 'char_wb') unsupported(`${obj.name}.analyzer is ${summarize(analyzer)}`)
  const input = param(obj, 'input', 'content')
  if (input !== 'content') unsupported(`${obj.name}.input is ${summarize(input)}; only 'content' can be served`)
  const strip = param(obj, 'strip_accents', null)
  if (strip !== null && strip !== 'ascii' && strip !== 'unicode') unsupported(`${obj.name}.strip_accents is ${describe(strip)}`)
  const tokenPattern = param(obj, 'token_pattern', '(?u)\\b\\w\\w+\\b')
  // A tokenizer of the app's own makes token_pattern unused (scikit-learn warns it is None then).
  const patternUsed = analyzer === 'word' && callables.tokenizer === null && callables.analyzer === null
  if (patternUsed && typeof tokenPattern !== 'string') unsupported(`${obj.name}.token_pattern is ${describe(tokenPattern)}`)
  const options = {
    analyzer,
    lowercase: bool(obj, 'lowercase', true),
    stripAccents: strip,
    tokenPattern: typeof tokenPattern === 'string' && patternUsed ? tokenPattern : '',
    stopWords: stopWords(obj),
    ngramRange: ngramRange(obj),
    ...(callables.preprocessor !== null || callables.tokenizer !== null || callables.analyzer !== null ? { callables } : {})
  } as const
  buildAnalyzer(options) // refuses an untranslatable pattern, a bad ngram_range or a function the app's module lacks, at load
  return options
}

export function analyzerParams (a: AnalyzerOptions): Record<string, unknown> {
  return {
    analyzer: a.analyzer,
    ngram_range: a.ngramRange,
    lowercase: a.lowercase,
    strip_accents: a.stripAccents,
    ...(a.analyzer === 'word' ? { token_pattern: a.tokenPattern, stop_words: a.stopWords === null ? null : a.stopWords.length } : {}),
    ...(a.callables === undefined ? {} : { preprocessor: a.callables.preprocessor, tokenizer: a.callables.tokenizer, analyzer: a.callables.analyzer ?? a.analyzer })
  }
}

/** `vocabulary_`, checked (terms are strings, indices 0..n-1 each once), as terms by feature index. */
function readVocabulary (obj: PyObject): string[] {
  const v = attr(obj, 'vocabulary_')
  if (!(v instanceof Map)) return shapeError(`${obj.name}.vocabulary_ is ${describe(v)}, not a dict`)
  const byIndex: string[] = new Array<string>(v.size)
  for (const [term, index] of v) {
    if (typeof term !== 'string' || typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= v.size || byIndex[index] !== undefined) {
      shapeError(`${obj.name}.vocabulary_ maps ${summarize(term)} to ${summarize(index)}; indices must be 0..${v.size - 1}, each once`)
    }
    byIndex[index] = term
  }
  return byIndex
}

function build (obj: PyObject): VocabularyVectorizerState {
  const terms = readVocabulary(obj)
  const dtype = dtypeName(obj, 'int64')
  if (dtype === 'float16') unsupported(`${obj.name}.dtype float16 is not supported`)
  let tfidf: TfidfState | null = null
  if (obj.name === 'TfidfVectorizer') {
    const inner = obj.get('_tfidf')
    tfidf = readTfidf(inner instanceof PyObject ? inner : obj)
    if (tfidf.idf !== null && tfidf.idf.length !== terms.length) {
      shapeError(`the vectorizer has ${terms.length} features but its idf has ${tfidf.idf.length}`)
    }
  }
  const analyzer = readAnalyzerOptions(obj)
  const wordRuns = planWordRuns(analyzer) !== undefined
  const table = wordRuns ? null : buildTermTable(terms, Int32Array.from(terms, (_, j) => j))
  return {
    type: 'vocabulary-vectorizer',
    kind: obj.name,
    analyzer,
    // The term table's keys are the vocabulary in feature order: one copy, not two.
    vocabulary: table?.keys ?? packTerms(terms),
    words: wordRuns ? buildWordIndex(terms, analyzer.stopWords) : null,
    terms: table,
    binary: bool(obj, 'binary', false),
    float32: dtype === 'float32',
    // TfidfVectorizer computes in float64 whatever its dtype (scikit-learn warns and converts)
    integerDtype: tfidf === null && countCast(dtype) !== null ? dtype : null,
    tfidf
  }
}

/**
 * Counts features by token ids where the analyzer allows it, by feature strings otherwise;
 * returns how many terms the analyzer made (known or not).
 */
function createCounting (state: VocabularyVectorizerState): (text: string, counter: FeatureCounter) => number {
  const plan = planWordRuns(state.analyzer)
  const [minN, maxN] = state.analyzer.ngramRange
  if (plan !== undefined && state.words !== null) {
    const words = state.words
    const buffer: IdBuffer = { ids: new Int32Array(256) }
    // Lowering inline is exact without strip_accents; with it, the text is preprocessed first.
    const inline = state.analyzer.stripAccents === null
    const lowercase = state.analyzer.lowercase
    return (text, counter) => {
      let n = inline ? scanTokenIds(text, lowercase, plan.minLength, words.tokens, buffer) : NEEDS_EXACT_PATH
      if (n === NEEDS_EXACT_PATH) n = scanTokenIds(plan.preprocess(text), false, plan.minLength, words.tokens, buffer)
      forEachFeatureOfIds(words, buffer.ids, n, minN, maxN, counter.count)
      return wordNgramCount(n, minN, maxN)
    }
  }
  const terms = state.terms!
  const analyze = buildAnalyzer(state.analyzer)
  return (text, counter) => {
    let made = 0
    analyze(text, feature => {
      made++
      const j = lookupRange(terms, feature)
      if (j >= 0) counter.count(j)
    })
    return made
  }
}

function create (state: VocabularyVectorizerState): Vectorizer {
  const counter = new FeatureCounter(state.vocabulary.count)
  const countText = createCounting(state)
  const { binary, float32, tfidf } = state
  const cast = state.integerDtype === null ? null : countCast(state.integerDtype)
  return {
    kind: state.kind,
    nFeatures: state.vocabulary.count,
    featureName: j => termAt(state.vocabulary, j),
    params: {
      ...analyzerParams(state.analyzer),
      binary,
      dtype: state.integerDtype ?? (float32 ? 'float32' : 'float64'),
      ...(tfidf === null ? {} : tfidfParams(tfidf))
    },
    transform: (text: string, coverage?: TermCoverage): SparseRow => {
      const made = countText(text, counter)
      if (coverage !== undefined) {
        coverage.terms += made
        coverage.known += counter.added
      }
      const counts = counter.takeRow(binary, float32)
      if (cast === null) return tfidf === null ? counts : applyTfidf(counts, tfidf, true)
      if (!binary) for (let e = 0; e < counts.values.length; e++) counts.values[e] = cast(counts.values[e]!)
      return { ...counts, integer: true }
    }
  }
}

/** What create and scoring rely on in a VocabularyVectorizerState (from a compiled file, or just built). */
function check (state: unknown, where: string): asserts state is VocabularyVectorizerState {
  const f = new Fields(state, where)
  const analyzer = checkAnalyzerOptions(f.value('analyzer'), `${where}.analyzer`)
  const vocabulary = checkTermList(f.value('vocabulary'), `${where}.vocabulary`)
  const n = vocabulary.count
  // The vectorizer scans by token ids when the analyzer allows it, else looks terms up.
  if (planWordRuns(analyzer) !== undefined) checkWordIndex(f.value('words'), `${where}.words`, n)
  else checkTermTable(f.value('terms'), `${where}.terms`, 0, n - 1)
  f.bool('binary')
  f.bool('float32')
  const dtype = f.nullable('integerDtype', name => f.string(name))
  if (dtype !== null && countCast(dtype) === null) throw shapeProblem(`${where}.integerDtype`, `is ${JSON.stringify(dtype.slice(0, 40))}, not an integer dtype`)
  f.nullable('tfidf', name => checkTfidf(f.value(name), `${where}.${name}`, n))
}

export const vocabularyVectorizer = defineEstimator<VocabularyVectorizerState, 'vectorizer'>({
  type: 'vocabulary-vectorizer',
  role: 'vectorizer',
  names: ['CountVectorizer', 'TfidfVectorizer'],
  build,
  check,
  create
})
