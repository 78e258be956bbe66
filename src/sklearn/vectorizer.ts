/**
 * CountVectorizer / TfidfVectorizer / CountVectorizer + TfidfTransformer `transform` of one
 * text, as scikit-learn 1.2 computes it:
 *
 * 1. counts of the analyzer's features found in `vocabulary_`, indices sorted
 *    (`_count_vocab` then `sort_indices`); `binary` sets every count to 1;
 * 2. TfidfTransformer, in the vectorizer's float dtype (float32 stays float32):
 *    `sublinear_tf` gives 1 + log(tf); `use_idf` multiplies by idf through the
 *    `_idf_diag` sparse product, which leaves each row's entries in reverse order;
 * 3. `norm` l2 or l1 with a double accumulator, as sparsefuncs_fast does.
 */
import { numpyLogFloat32 } from './math.js'
import { NgramIndex } from './ngram-index.js'
import { planWordRuns, wordTokens, type Analyzer, type AnalyzerOptions, type WordRunPlan } from './text/analyzer.js'
import type { SparseRow } from './sparse-row.js'

export interface TfidfOptions {
  readonly sublinearTf: boolean
  /** idf per feature, or null when use_idf is false. */
  readonly idf: Float64Array | null
  /** Whether idf was stored as float32 (then products stay float32 for float32 input). */
  readonly idfFloat32: boolean
  readonly norm: 'l1' | 'l2' | null
}

export interface VectorizerOptions {
  /** e.g. 'TfidfVectorizer', or 'CountVectorizer + TfidfTransformer' for a pipeline. */
  readonly kind: string
  readonly analyze: Analyzer
  /** The options `analyze` was built from, for `inspect`. */
  readonly analyzerOptions: AnalyzerOptions
  readonly vocabulary: ReadonlyMap<string, number>
  readonly nFeatures: number
  readonly binary: boolean
  /** The vectorizer's dtype is float32: TF-IDF arithmetic is rounded to float32 at each step. */
  readonly float32: boolean
  readonly tfidf: TfidfOptions | null
}

export class TextVectorizer {
  readonly options: VectorizerOptions
  readonly #counts: Float64Array
  #touched: Int32Array
  #n = 0
  /** The fast path for `\w`-run word analyzers: n-grams by token ids. */
  readonly #plan: WordRunPlan | undefined
  readonly #ngrams: NgramIndex | undefined
  readonly #count = (j: number): void => {
    const counts = this.#counts
    if (counts[j] === 0) {
      if (this.#n === this.#touched.length) this.#grow()
      this.#touched[this.#n++] = j
    }
    counts[j]!++
  }

  constructor (options: VectorizerOptions) {
    this.options = options
    this.#counts = new Float64Array(options.nFeatures)
    this.#touched = new Int32Array(256)
    this.#plan = planWordRuns(options.analyzerOptions)
    this.#ngrams = this.#plan === undefined ? undefined : new NgramIndex(options.vocabulary, this.#plan.stopWords)
  }

  get nFeatures (): number {
    return this.options.nFeatures
  }

  /** The document's feature row, as scikit-learn's `transform([text])` holds it. */
  transform (text: string): SparseRow {
    const { vocabulary, binary, tfidf } = this.options
    const counts = this.#counts
    this.#n = 0
    const [minN, maxN] = this.options.analyzerOptions.ngramRange
    if (this.#plan !== undefined && this.#ngrams !== undefined && (this.#ngrams.idsSuffice || maxN <= 2)) {
      this.#ngrams.forEachFeatureOfText(this.#plan.preprocess(text), this.#plan.minLength, minN, maxN, this.#count)
    } else if (this.#plan !== undefined && this.#ngrams !== undefined) {
      const tokens = wordTokens(this.#plan, text)
      const ids = new Int32Array(tokens.length)
      for (let i = 0; i < tokens.length; i++) ids[i] = this.#ngrams.tokenId(tokens[i]!)
      this.#ngrams.forEachFeature(tokens, ids, minN, maxN, this.#count)
    } else {
      this.options.analyze(text, feature => {
        const j = vocabulary.get(feature)
        if (j !== undefined) this.#count(j)
      })
    }
    const n = this.#n
    const indices = this.#touched.slice(0, n).sort()
    const values = new Float64Array(n)
    for (let k = 0; k < n; k++) {
      const j = indices[k]!
      values[k] = binary ? 1 : counts[j]!
      counts[j] = 0
    }
    if (tfidf === null) return { indices, values }
    return applyTfidf(indices, values, tfidf, this.options.float32)
  }

  #grow (): void {
    const grown = new Int32Array(this.#touched.length * 2)
    grown.set(this.#touched)
    this.#touched = grown
  }
}

const f32 = Math.fround

/** TfidfTransformer.transform of one sorted count row (scikit-learn 1.2.1). */
export function applyTfidf (indices: Int32Array, values: Float64Array, tfidf: TfidfOptions, float32: boolean): SparseRow {
  const round = float32 ? f32 : (x: number) => x
  if (tfidf.sublinearTf) {
    // np.log on float32 data is numpy's own SIMD kernel, not a correctly rounded log.
    const log = float32 ? numpyLogFloat32 : Math.log
    for (let k = 0; k < values.length; k++) values[k] = round(log(values[k]!) + 1)
  }
  let outIndices = indices
  let outValues = values
  let rowFloat32 = float32
  if (tfidf.idf !== null) {
    // X @ _idf_diag: scipy's csr_matmat emits each row's columns in reverse order.
    const idf = tfidf.idf
    rowFloat32 = float32 && tfidf.idfFloat32
    const product = rowFloat32 ? f32 : (x: number) => x
    const n = values.length
    outIndices = new Int32Array(n)
    outValues = new Float64Array(n)
    for (let k = 0; k < n; k++) {
      const j = indices[n - 1 - k]!
      outIndices[k] = j
      outValues[k] = product(values[n - 1 - k]! * idf[j]!)
    }
  }
  if (tfidf.norm !== null) normalizeRow(outValues, tfidf.norm, rowFloat32)
  return { indices: outIndices, values: outValues }
}

/** inplace_csr_row_normalize_l1 / _l2 on one row: double accumulator, division stored in the row's dtype. */
function normalizeRow (values: Float64Array, norm: 'l1' | 'l2', float32: boolean): void {
  let sum = 0
  if (norm === 'l2') {
    for (const v of values) sum += float32 ? f32(v * v) : v * v
    if (sum === 0) return
    sum = Math.sqrt(sum)
  } else {
    for (const v of values) sum += Math.abs(v)
    if (sum === 0) return
  }
  for (let k = 0; k < values.length; k++) values[k] = float32 ? f32(values[k]! / sum) : values[k]! / sum
}
