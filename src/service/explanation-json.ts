/** An explanation as the API and the CLI write it: presentation, shared by both transports. */
import { displayLabel } from '../labels.js'
import type { EnsembleExplanation } from '../model/ensemble.js'
import type { Explanation } from '../sklearn/explain.js'

/** `e` as JSON, with `labels` for the class indices; an ensemble's, with each member's answer and explanation. */
export function explanationJson (text: string, e: Explanation | EnsembleExplanation, labels: readonly string[]): Record<string, unknown> {
  if ('members' in e) return ensembleJson(text, e, labels)
  return { text, ...explained(e, labels) }
}

function explained (e: Explanation, labels: readonly string[]): Record<string, unknown> {
  return {
    prediction: labels[e.classIndex],
    score: e.score,
    ...(e.method === 'tree_shap' ? { method: e.method, space: e.space } : {}),
    score_classes: e.outputClasses.map(k => labels[k]),
    intercept: Array.from(e.intercept),
    scores: Array.from(e.scores),
    features: e.features.map(f => ({
      feature: f.feature,
      term: f.term,
      value: f.value,
      ...(f.weight === undefined ? {} : { weight: Array.from(f.weight) }),
      contribution: Array.from(f.contribution),
      ...(f.absent === true ? { absent: true } : {})
    })),
    other_features: { count: e.otherCount, contribution: Array.from(e.otherContribution) }
  }
}

/** The ensemble's label and confidence (unrounded), then each member's as it answers alone, labels shown as the API shows any label. */
function ensembleJson (text: string, e: EnsembleExplanation, labels: readonly string[]): Record<string, unknown> {
  return {
    text,
    prediction: labels[e.classIndex],
    confidence: e.confidence,
    combine: e.combine,
    ...(e.explanation === undefined ? {} : { explanation: explained(e.explanation, labels) }),
    members: e.members.map(m => ({
      name: m.name,
      ...(e.combine === 'join' ? {} : { weight: m.weight }),
      prediction: displayLabel(m.label),
      confidence: m.confidence,
      explanation: m.explanation === null ? null : explained(m.explanation, m.classes.map(displayLabel)),
      ...(m.refusal === null ? {} : { explain_refusal: m.refusal })
    }))
  }
}
