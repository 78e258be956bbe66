/** An explanation as the API and the CLI write it: presentation, shared by both transports. */
import type { Explanation } from '../sklearn/explain.js'

/** `e` as JSON, with `labels` for the class indices. */
export function explanationJson (text: string, e: Explanation, labels: readonly string[]): Record<string, unknown> {
  return {
    text,
    prediction: labels[e.classIndex],
    score: e.score,
    score_classes: e.outputClasses.map(k => labels[k]),
    intercept: Array.from(e.intercept),
    scores: Array.from(e.scores),
    features: e.features.map(f => ({ feature: f.feature, term: f.term, value: f.value, weight: Array.from(f.weight), contribution: Array.from(f.contribution) })),
    other_features: { count: e.otherCount, contribution: Array.from(e.otherContribution) }
  }
}
