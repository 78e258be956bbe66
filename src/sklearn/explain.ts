/**
 * Why a model gave a text its label: each feature's share of each score, and the intercept,
 * so that the shares plus the intercept are the score.
 * - A linear model or naive Bayes: x_j times its weight, the shares adding up to the decision
 *   function (or, for naive Bayes, the joint log-likelihood) scikit-learn computes.
 * - A tree model: shap's path-dependent TreeSHAP values (tree-shap.ts), the intercept shap's
 *   expected value, in probability space (scikit-learn's trees and forests) or margin space
 *   (boosting). A word absent from the text moves a tree's answer too: it can be listed, as absent.
 */
import type { Classifier, LinearForm, Vectorizer } from './estimator.js'
import type { SparseRow } from './sparse-row.js'
import type { TreeAttribution } from './tree-shap.js'

/** How the row's columns are named: their terms, and the vectorizer's columns they come from. */
export interface FeatureNames {
  readonly featureName: (j: number) => string | undefined
  readonly sourceFeature?: (j: number) => number
}

export interface FeatureShare {
  /** The vectorizer's column (the one a selected column came from); null in a mean over models whose vectorizers differ. */
  readonly feature: number | null
  /** The term or n-gram (null for a hashed feature). */
  readonly term: string | null
  /** The value the classifier sees (TF-IDF, after any step; 1 for a binarized BernoulliNB entry; 0 when absent). */
  readonly value: number
  /** The feature's weight in each score (linear models and naive Bayes). */
  readonly weight?: Float64Array
  /** Its share of each score: value * weight, or its Shapley value. */
  readonly contribution: Float64Array
  /** Not in the text's row: a tree model's answer depends on absent words too. */
  readonly absent?: boolean
}

export interface Explanation {
  readonly classIndex: number
  /** What the scores are: a linear model's, or what TreeSHAP explains (predict_proba or the margin). */
  readonly score: LinearForm['score'] | 'predict_proba' | 'margin'
  /** 'tree_shap' for tree models (with the output space), else 'linear'. */
  readonly method: 'linear' | 'tree_shap'
  readonly space?: TreeAttribution['space']
  /** The class (index into classes) each score belongs to. */
  readonly outputClasses: readonly number[]
  readonly intercept: Float64Array
  /** intercept plus every feature's contribution, per score (a tree model's own output, which they add up to within rounding). */
  readonly scores: Float64Array
  /** The `topK` features that moved the prediction most, most first. */
  readonly features: readonly FeatureShare[]
  /** The row's other features: how many, and their contributions summed. */
  readonly otherCount: number
  readonly otherContribution: Float64Array
}

/** Why each family explanations are not defined for is not explained. */
const NOT_ADDITIVE: ReadonlyArray<[RegExp, string]> = [
  [/^(SVC|NuSVC)\b/, 'a kernel SVM sums kernels over support vectors, which no per-word share adds up to'],
  [/^MLPClassifier\b/, 'a neural network\'s hidden layers mix the words'],
  [/Neighbors|NearestCentroid/, 'its answer comes from distances to stored texts, not from per-word shares'],
  [/^Stacking/, 'its final estimator reads the members\' outputs, which is not additive in their explanations'],
  [/^CalibratedClassifierCV\b/, 'each fold\'s output goes through a calibrator, which is not additive'],
  [/^VotingClassifier\b/, 'hard voting counts labels; soft voting is explained when every member\'s probabilities are']
]

/** Why this model's predictions cannot be explained, or undefined when they can. */
export function explainRefusal (text: Vectorizer, classifier: Classifier): string | undefined {
  if (classifier.linearForm === undefined && classifier.shapValues === undefined) {
    const why = classifier.explainRefusal ?? `${classifier.kind}: ${NOT_ADDITIVE.find(([kind]) => kind.test(classifier.kind))?.[1] ?? 'not among the families explained'}`
    return `${why}; explanations are defined for linear models, naive Bayes and tree models (TreeSHAP)`
  }
  if (text.featureName === undefined) return `explanations need features that are terms, and ${text.mixedBy ?? text.kind} mixes terms into other features`
  return undefined
}

/** The linear explanation of `row`, predicted as `classIndex`: the row's features, ranked (`ranking`). */
export function explainRow (row: SparseRow, form: LinearForm, text: FeatureNames, classIndex: number, topK: number): Explanation {
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
    shares.push({ feature: text.sourceFeature?.(j) ?? j, term: text.featureName(j) ?? null, value, weight, contribution: weight.map(w => value * w) })
  }
  // Summed in row order, the intercept after, as the classifier sums.
  const scores = new Float64Array(outputs)
  for (const s of shares) for (let k = 0; k < outputs; k++) scores[k]! += s.contribution[k]!
  for (let k = 0; k < outputs; k++) scores[k]! += form.intercept[k]!
  return { classIndex, score: form.score, method: 'linear', outputClasses: form.outputClasses, intercept: form.intercept.slice(), ...ranking(shares, outputs, form.outputClasses, classIndex, topK), scores }
}

/**
 * Features ranked by how much they favour the predicted class: with one score, the size of
 * their contribution to it; with one per class, their contribution to the predicted class's
 * score less their largest to another. The top `topK`, and the rest summed.
 */
function ranking (shares: FeatureShare[], outputs: number, outputClasses: readonly number[], classIndex: number, topK: number): Pick<Explanation, 'features' | 'otherCount' | 'otherContribution'> {
  const predicted = outputs === 1 ? 0 : outputClasses.indexOf(classIndex)
  const pull = (s: FeatureShare): number => {
    if (outputs === 1) return Math.abs(s.contribution[0]!)
    let rival = -Infinity
    for (let k = 0; k < outputs; k++) if (k !== predicted && s.contribution[k]! > rival) rival = s.contribution[k]!
    return Math.abs(s.contribution[predicted]! - rival)
  }
  const ranked = shares.map(s => ({ s, pull: pull(s) })).sort((a, b) => b.pull - a.pull || (a.s.feature ?? 0) - (b.s.feature ?? 0) || ((a.s.term ?? '') < (b.s.term ?? '') ? -1 : 1)).map(r => r.s)
  const top = ranked.slice(0, topK)
  const otherContribution = new Float64Array(outputs)
  for (const s of ranked.slice(topK)) for (let k = 0; k < outputs; k++) otherContribution[k]! += s.contribution[k]!
  return { features: top, otherCount: ranked.length - top.length, otherContribution }
}

/**
 * The TreeSHAP explanation of `row`, predicted as `classIndex`: every feature with a share,
 * present in the row or not, ranked as linear explanations are.
 */
export function explainTrees (row: SparseRow, a: TreeAttribution, text: FeatureNames, classIndex: number, topK: number): Explanation {
  const outputs = a.expected.length
  const valueOf = new Map<number, number>()
  for (let e = 0; e < row.indices.length; e++) valueOf.set(row.indices[e]!, row.values[e]!)
  const shares: FeatureShare[] = Array.from(a.features, (j, i) => {
    const value = valueOf.get(j)
    return { feature: text.sourceFeature?.(j) ?? j, term: text.featureName(j) ?? null, value: value ?? 0, contribution: a.contributions.slice(i * outputs, (i + 1) * outputs), ...(value === undefined ? { absent: true } : {}) }
  })
  return {
    classIndex,
    score: a.space === 'probability' ? 'predict_proba' : 'margin',
    method: 'tree_shap',
    space: a.space,
    outputClasses: a.outputClasses,
    intercept: a.expected,
    scores: a.output,
    ...ranking(shares, outputs, a.outputClasses, classIndex, topK)
  }
}

/**
 * The weighted mean of probability-space tree explanations (each with every feature listed),
 * for an ensemble that averages its members' predict_proba: Shapley values are linear in the
 * output, so the mean's are the members' averaged the same way, word by word (members may
 * have different vectorizers: a word's column is kept only when every member gives the same).
 * Undefined when a member's explanation is not one, or names a feature by no word.
 */
export function meanExplanation (parts: ReadonlyArray<{ readonly e: Explanation, readonly weight: number }>, classIndex: number, scores: Float64Array, topK: number): Explanation | undefined {
  const outputs = scores.length
  if (parts.some(({ e }) => e.space !== 'probability' || e.outputClasses.length !== outputs || e.otherCount !== 0 || e.features.some(f => f.term === null))) return undefined
  const total = parts.reduce((s, p) => s + p.weight, 0)
  const intercept = new Float64Array(outputs)
  const byTerm = new Map<string, { feature: number | null, value: number | undefined, contribution: Float64Array }>()
  for (const { e, weight } of parts) {
    for (let k = 0; k < outputs; k++) intercept[e.outputClasses[k]!]! += e.intercept[k]! * weight
    for (const f of e.features) {
      let t = byTerm.get(f.term!)
      if (t === undefined) byTerm.set(f.term!, t = { feature: f.feature, value: undefined, contribution: new Float64Array(outputs) })
      else if (t.feature !== f.feature) t.feature = null
      if (f.absent !== true && t.value === undefined) t.value = f.value
      for (let k = 0; k < outputs; k++) t.contribution[e.outputClasses[k]!]! += f.contribution[k]! * weight
    }
  }
  const shares: FeatureShare[] = Array.from(byTerm, ([term, t]) => ({
    feature: t.feature,
    term,
    value: t.value ?? 0,
    contribution: t.contribution.map(v => v / total),
    ...(t.value === undefined ? { absent: true } : {})
  }))
  const all = Array.from({ length: outputs }, (_, k) => k)
  return { classIndex, score: 'predict_proba', method: 'tree_shap', space: 'probability', outputClasses: all, intercept: intercept.map(v => v / total), scores, ...ranking(shares, outputs, all, classIndex, topK) }
}

/** `e` cut to its `topK` first features, the rest summed into `other`. */
export function topOf (e: Explanation, topK: number): Explanation {
  if (e.features.length <= topK) return e
  const otherContribution = e.otherContribution.slice()
  for (const f of e.features.slice(topK)) for (let k = 0; k < otherContribution.length; k++) otherContribution[k]! += f.contribution[k]!
  return { ...e, features: e.features.slice(0, topK), otherCount: e.otherCount + e.features.length - topK, otherContribution }
}
