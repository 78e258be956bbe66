/**
 * MultinomialNB, ComplementNB and BernoulliNB `_joint_log_likelihood`, `predict` and
 * `predict_proba` (exp of jll - logsumexp(jll)), as scikit-learn 1.2 computes them.
 */
import type { Classifier, Scores } from './classifier.js'
import { argmax, logSumExp, sparseDotPlus } from './math.js'
import type { SparseRow } from './sparse-row.js'

export interface NaiveBayesOptions {
  readonly kind: 'MultinomialNB' | 'ComplementNB' | 'BernoulliNB'
  /** Per-feature weights, transposed: nFeatures rows of nClasses (Bernoulli: flp - log(1 - exp(flp))). */
  readonly weightT: Float64Array
  /** Added to every jll after the product (class_log_prior_, plus Bernoulli's neg_prob sums). */
  readonly offset: Float64Array
  readonly nFeatures: number
  readonly nClasses: number
  /** BernoulliNB's `binarize` threshold, or null. */
  readonly binarize: number | null
  readonly params: Readonly<Record<string, unknown>>
}

export class NaiveBayes implements Classifier {
  readonly kind: string
  readonly nFeatures: number
  readonly nClasses: number
  readonly hasProba = true
  readonly hasDecision = false
  readonly params: Readonly<Record<string, unknown>>
  readonly #o: NaiveBayesOptions

  constructor (options: NaiveBayesOptions) {
    this.#o = options
    this.kind = options.kind
    this.nFeatures = options.nFeatures
    this.nClasses = options.nClasses
    this.params = options.params
  }

  jointLogLikelihood (row: SparseRow): Float64Array {
    const { weightT, offset, binarize } = this.#o
    let { indices, values } = row
    if (binarize !== null) {
      // sklearn's binarize(): values above the threshold become 1, the rest drop out.
      const keep = Array.from(values.keys()).filter(e => values[e]! > binarize)
      indices = Int32Array.from(keep, e => indices[e]!)
      values = new Float64Array(keep.length).fill(1)
    }
    return sparseDotPlus(indices, values, weightT, this.nClasses, offset)
  }

  score (row: SparseRow): Scores {
    const jll = this.jointLogLikelihood(row)
    const lse = logSumExp(jll)
    return { classIndex: argmax(jll), proba: jll.map(v => Math.exp(v - lse)), decision: undefined }
  }
}
