/**
 * scikit-learn's linear classifiers (LinearClassifierMixin): LogisticRegression,
 * LinearSVC, SGDClassifier, RidgeClassifier, Perceptron, PassiveAggressiveClassifier.
 * decision = X @ coef_.T + intercept_ (scipy's csr_matvecs order: row entries in
 * stored order, intercept added after), predict = decision > 0 or argmax.
 */
import type { Classifier, Scores } from './classifier.js'
import { argmax, expit, numpySum, softmaxInPlace, sparseDotPlus } from './math.js'
import type { SparseRow } from './sparse-row.js'

/**
 * - `ovr`: expit of each decision, normalised over classes (LogisticRegression ovr,
 *   SGDClassifier log_loss: `_predict_proba_lr`);
 * - `multinomial`: softmax of the decisions ([-d, d] for two classes);
 * - `modified_huber`: SGDClassifier's clipped (d + 1) / 2;
 * - `none`: no predict_proba.
 */
export type ProbaKind = 'ovr' | 'multinomial' | 'modified_huber' | 'none'

export interface LinearOptions {
  readonly kind: string
  /** coef_ transposed: nFeatures rows of nOutputs values (nOutputs is 1 for two classes). */
  readonly coefT: Float64Array
  readonly intercept: Float64Array
  readonly nFeatures: number
  readonly nClasses: number
  readonly proba: ProbaKind
  readonly params: Readonly<Record<string, unknown>>
}

export class LinearClassifier implements Classifier {
  readonly kind: string
  readonly nFeatures: number
  readonly nClasses: number
  readonly hasProba: boolean
  readonly hasDecision = true
  readonly params: Readonly<Record<string, unknown>>
  readonly #o: LinearOptions
  readonly #outputs: number

  constructor (options: LinearOptions) {
    this.#o = options
    this.kind = options.kind
    this.nFeatures = options.nFeatures
    this.nClasses = options.nClasses
    this.hasProba = options.proba !== 'none'
    this.params = options.params
    this.#outputs = options.intercept.length
  }

  decision (row: SparseRow): Float64Array {
    return sparseDotPlus(row.indices, row.values, this.#o.coefT, this.#outputs, this.#o.intercept)
  }

  score (row: SparseRow): Scores {
    const decision = this.decision(row)
    const classIndex = decision.length === 1 ? (decision[0]! > 0 ? 1 : 0) : argmax(decision)
    return { classIndex, decision, proba: this.#proba(decision) }
  }

  #proba (decision: Float64Array): Float64Array | undefined {
    switch (this.#o.proba) {
      case 'none': return undefined
      case 'ovr': {
        if (decision.length === 1) {
          const p = expit(decision[0]!)
          return Float64Array.of(1 - p, p)
        }
        const p = decision.map(expit)
        const sum = numpySum(p)
        return p.map(v => v / sum)
      }
      case 'multinomial':
        return softmaxInPlace(decision.length === 1 ? Float64Array.of(-decision[0]!, decision[0]!) : decision.slice())
      case 'modified_huber': return modifiedHuberProba(decision, this.nClasses)
    }
  }
}

/** SGDClassifier.predict_proba for loss='modified_huber'. */
function modifiedHuberProba (decision: Float64Array, nClasses: number): Float64Array {
  const clip = (d: number): number => (Math.min(1, Math.max(-1, d)) + 1) / 2
  if (decision.length === 1) {
    const p = clip(decision[0]!)
    return Float64Array.of(1 - p, p)
  }
  const p = decision.map(clip)
  let sum = numpySum(p)
  if (sum === 0) {
    p.fill(1)
    sum = nClasses
  }
  return p.map(v => v / sum)
}
