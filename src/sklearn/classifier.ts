import type { SparseRow } from './sparse-row.js'

/** How a classifier's confidence is derived (DECISIONS.md 16). */
export type ConfidenceMethod = 'predict_proba' | 'decision_function'

/** One text's scores, arrays in `classes_` order. */
export interface Scores {
  /** Index into the classes of the label scikit-learn's `predict` returns. */
  readonly classIndex: number
  /** `predict_proba`, when the model has it. */
  readonly proba: Float64Array | undefined
  /** `decision_function`, when the model has it; one value for two classes, as scikit-learn returns. */
  readonly decision: Float64Array | undefined
}

/** A fitted scikit-learn classifier over TF-IDF rows. */
export interface Classifier {
  /** The scikit-learn class name, e.g. 'LogisticRegression'. */
  readonly kind: string
  readonly nFeatures: number
  readonly nClasses: number
  readonly hasProba: boolean
  readonly hasDecision: boolean
  /** Parameters worth showing (multi_class, loss, alpha, ...). */
  readonly params: Readonly<Record<string, unknown>>
  score: (row: SparseRow) => Scores
}
