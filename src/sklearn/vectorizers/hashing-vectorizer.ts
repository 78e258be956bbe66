/**
 * HashingVectorizer (FeatureHasher over the analyzer's features), as scikit-learn 1.2 to
 * 1.9 compute it: each feature's signed MurmurHash3 h gives the column |h| % n_features
 * (h = -2^31 included: 2^31 % n) and, with `alternate_sign`, the value -1 when h < 0;
 * equal columns are summed (`sum_duplicates` sorts them and keeps an explicit zero when
 * signs cancel); `binary` then sets every stored value to 1; `norm` l1 or l2 last. It keeps
 * no vocabulary, so any text maps to some columns.
 */
import type { PyObject } from '../../pickle/values.js'
import { defineEstimator, type EstimatorState, type TermCoverage, type Vectorizer } from '../estimator.js'
import { bool, describe, dtypeName, int, param, unsupported } from '../record.js'
import type { SparseRow } from '../sparse-row.js'
import { buildAnalyzer, buildWordTokenizer, forEachWordNgram, type AnalyzerOptions } from '../text/analyzer.js'
import { FeatureCounter } from './feature-counter.js'
import { murmurhash3Utf8, murmurhash3Words } from './murmurhash.js'
import { normalizeInPlace } from './tfidf-transformer.js'
import { analyzerParams, readAnalyzerOptions } from './vocabulary-vectorizer.js'
import { checkAnalyzerOptions } from './text-state-checks.js'
import { Fields, MAX_FEATURES } from '../state-fields.js'

interface HashingVectorizerState extends EstimatorState {
  readonly analyzer: AnalyzerOptions
  readonly nFeatures: number
  readonly alternateSign: boolean
  readonly binary: boolean
  readonly norm: 'l1' | 'l2' | null
  readonly float32: boolean
}

function build (obj: PyObject): HashingVectorizerState {
  const nFeatures = int(obj, 'n_features', 2 ** 20)
  if (!(nFeatures >= 1 && nFeatures <= 2 ** 31 - 1)) unsupported(`${obj.name}.n_features is ${nFeatures}`)
  const norm = param(obj, 'norm', 'l2')
  if (norm !== null && norm !== 'l1' && norm !== 'l2') unsupported(`${obj.name}.norm is ${describe(norm)}`)
  const dtype = dtypeName(obj)
  if (dtype !== 'float64' && dtype !== 'float32') unsupported(`${obj.name}.dtype ${dtype} is not supported`)
  return {
    type: 'hashing-vectorizer',
    kind: obj.name,
    analyzer: readAnalyzerOptions(obj),
    nFeatures,
    alternateSign: bool(obj, 'alternate_sign', true),
    binary: bool(obj, 'binary', false),
    norm,
    float32: dtype === 'float32'
  }
}

function create (state: HashingVectorizerState): Vectorizer {
  const { nFeatures, alternateSign, binary, norm, float32 } = state
  const counter = new FeatureCounter(nFeatures)
  const addHash = (h: number): void => { counter.add(Math.abs(h) % nFeatures, alternateSign && h < 0 ? -1 : 1) }
  let analyze: (text: string) => void
  if (state.analyzer.analyzer === 'word') {
    // Word n-grams hashed from their tokens: no joined string per n-gram.
    const tokenize = buildWordTokenizer(state.analyzer)
    const [minN, maxN] = state.analyzer.ngramRange
    analyze = text => {
      const tokens = tokenize(text)
      forEachWordNgram(tokens.length, minN, maxN, (start, n) => { addHash(murmurhash3Words(tokens, start, n)) })
    }
  } else {
    const analyzeChars = buildAnalyzer(state.analyzer)
    analyze = text => { analyzeChars(text, feature => { addHash(murmurhash3Utf8(feature)) }) }
  }
  return {
    kind: state.kind,
    nFeatures,
    // A hashed feature has no one term behind it.
    featureName: () => undefined,
    params: { ...analyzerParams(state.analyzer), n_features: nFeatures, alternate_sign: alternateSign, binary, norm, dtype: float32 ? 'float32' : 'float64' },
    // Every term hashes to a feature: the vocabulary covers every text whole.
    transform: (text: string, coverage?: TermCoverage): SparseRow => {
      analyze(text)
      if (coverage !== undefined) {
        coverage.terms += counter.added
        coverage.known += counter.added
      }
      const row = counter.takeRow(binary, float32)
      if (norm !== null) normalizeInPlace(row.values, norm, float32)
      return row
    }
  }
}

/** What create and scoring rely on in a HashingVectorizerState (from a compiled file, or just built). */
function check (state: unknown, where: string): asserts state is HashingVectorizerState {
  const f = new Fields(state, where)
  checkAnalyzerOptions(f.value('analyzer'), `${where}.analyzer`)
  f.int('nFeatures', 1, MAX_FEATURES)
  f.bool('alternateSign')
  f.bool('binary')
  f.oneOf('norm', ['l1', 'l2', null])
  f.bool('float32')
}

export const hashingVectorizer = defineEstimator<HashingVectorizerState, 'vectorizer'>({
  type: 'hashing-vectorizer',
  role: 'vectorizer',
  names: ['HashingVectorizer'],
  build,
  check,
  create
})
