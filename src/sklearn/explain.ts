/**
 * Why a linear model or naive Bayes gave a text its label: each feature's share of each
 * score (x_j times its weight), and the intercept, so that the shares plus the intercept are
 * the decision function (or, for naive Bayes, the joint log-likelihood) scikit-learn computes.
 */
import type { Classifier, LinearForm, Vectorizer } from './estimator.js'
import type { SparseRow } from './sparse-row.js'

export interface FeatureShare {
  readonly feature: number
  /** The term or n-gram (null for a hashed feature). */
  readonly term: string | null
  /** The value the classifier sees (TF-IDF, after any step; 1 for a binarized BernoulliNB entry). */
  readonly value: number
  /** The feature's weight in each score. */
  readonly weight: Float64Array
  /** value * weight, per score. */
  readonly contribution: Float64Array
}

export interface Explanation {
  readonly classIndex: number
  readonly score: LinearForm['score']
  /** The class (index into classes) each score belongs to. */
  readonly outputClasses: readonly number[]
  readonly intercept: Float64Array
  /** intercept plus every feature's contribution, per score. */
  readonly scores: Float64Array
  /** The `topK` features that moved the prediction most, most first. */
  readonly features: readonly FeatureShare[]
  /** The row's other features: how many, and their contributions summed. */
  readonly otherCount: number
  readonly otherContribution: Float64Array
}

/** Why this model's predictions cannot be explained, or undefined when they can. */
export function explainRefusal (text: Vectorizer, classifier: Classifier): string | undefined {
  if (classifier.linearForm === undefined) return `explanations are defined for linear models and naive Bayes, not ${classifier.kind}`
  if (text.featureName === undefined) return `explanations need features that are terms, and ${text.mixedBy ?? text.kind} mixes terms into other features`
  return undefined
}

/**
 * The explanation of `row`, predicted as `classIndex`. Features are ranked by how much they
 * favour the predicted class: with one score, the size of their contribution to it; with one
 * per class, their contribution to the predicted class's score less their largest to another.
 */
export function explainRow (row: SparseRow, form: LinearForm, featureName: (j: number) => string | undefined, classIndex: number, topK: number): Explanation {
  const outputs = form.intercept.length
  const shares: FeatureShare[] = []
  for (let e = 0; e < row.indices.length; e++) {
    const j = row.indices[e]!
    let value = row.values[e]!
    if (form.binarize !== null) {
      // sklearn's binarize(): values above the threshold become 1, the rest drop out.
      if (!(value > form.binarize)) continue
      value = 1
    }
    const weight = form.weightT.slice(j * outputs, (j + 1) * outputs)
    shares.push({ feature: j, term: featureName(j) ?? null, value, weight, contribution: weight.map(w => value * w) })
  }
  // Summed in row order, the intercept after, as the classifier sums.
  const scores = new Float64Array(outputs)
  for (const s of shares) for (let k = 0; k < outputs; k++) scores[k]! += s.contribution[k]!
  for (let k = 0; k < outputs; k++) scores[k]! += form.intercept[k]!
  const predicted = outputs === 1 ? 0 : form.outputClasses.indexOf(classIndex)
  const pull = (s: FeatureShare): number => {
    if (outputs === 1) return Math.abs(s.contribution[0]!)
    let rival = -Infinity
    for (let k = 0; k < outputs; k++) if (k !== predicted && s.contribution[k]! > rival) rival = s.contribution[k]!
    return Math.abs(s.contribution[predicted]! - rival)
  }
  const ranked = shares.map(s => ({ s, pull: pull(s) })).sort((a, b) => b.pull - a.pull || a.s.feature - b.s.feature).map(r => r.s)
  const top = ranked.slice(0, topK)
  const otherContribution = new Float64Array(outputs)
  for (const s of ranked.slice(topK)) for (let k = 0; k < outputs; k++) otherContribution[k]! += s.contribution[k]!
  return { classIndex, score: form.score, outputClasses: form.outputClasses, intercept: form.intercept.slice(), scores, features: top, otherCount: ranked.length - top.length, otherContribution }
}
