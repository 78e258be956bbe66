/**
 * The one prediction interface the CLI, the workers and the HTTP layer share: a
 * vectorizer and a classifier composed, with labels as Python prints them and the
 * confidence DECISIONS.md 16 defines.
 */
import type { Classifier, ConfidenceMethod } from './classifier.js'
import { expit, softmaxInPlace } from './math.js'
import type { TextVectorizer } from './vectorizer.js'

export interface Prediction {
  /** The class label as Python's str() prints it. */
  readonly label: string
  readonly classIndex: number
  /** predict_proba of the label, or the largest pseudo-probability of the decision values. */
  readonly confidence: number
  readonly proba: Float64Array | undefined
  readonly decision: Float64Array | undefined
}

export interface ModelInfo {
  readonly classifier: string
  readonly vectorizer: string
  readonly classes: readonly string[]
  readonly nFeatures: number
  readonly confidence: ConfidenceMethod
  readonly classifierParams: Readonly<Record<string, unknown>>
  readonly vectorizerParams: Readonly<Record<string, unknown>>
  /** The scikit-learn version each file was written by (`_sklearn_version`), by file. */
  readonly sklearnVersions: Readonly<Record<string, string>>
}

export interface Predictor {
  readonly classes: readonly string[]
  readonly info: ModelInfo
  predict: (text: string) => Prediction
}

/** Pseudo-probabilities of decision values: [1 - s(d), s(d)] for two classes, softmax for more. */
export function decisionConfidence (decision: Float64Array): number {
  if (decision.length === 1) {
    const s = expit(decision[0]!)
    return Math.max(1 - s, s)
  }
  return Math.max(...softmaxInPlace(decision.slice()))
}

export class TextClassifier implements Predictor {
  readonly classes: readonly string[]
  readonly info: ModelInfo
  readonly #vectorizer: TextVectorizer
  readonly #classifier: Classifier

  constructor (vectorizer: TextVectorizer, classifier: Classifier, classes: readonly string[], info: Omit<ModelInfo, 'classes' | 'confidence' | 'classifier' | 'vectorizer' | 'nFeatures' | 'classifierParams'>) {
    this.#vectorizer = vectorizer
    this.#classifier = classifier
    this.classes = Object.freeze([...classes])
    this.info = Object.freeze({
      classifier: classifier.kind,
      vectorizer: vectorizer.options.kind,
      classes: this.classes,
      nFeatures: vectorizer.nFeatures,
      confidence: classifier.hasProba ? 'predict_proba' : 'decision_function',
      classifierParams: classifier.params,
      ...info
    })
  }

  predict (text: string): Prediction {
    const scores = this.#classifier.score(this.#vectorizer.transform(text))
    const { proba, decision, classIndex } = scores
    const confidence = proba !== undefined ? Math.max(...proba) : decisionConfidence(decision!)
    return { label: this.classes[classIndex]!, classIndex, confidence, proba, decision }
  }
}
