/**
 * The one prediction interface the CLI, the workers and the HTTP layer share: a
 * vectorizer, the Pipeline steps after it and a classifier composed, with labels as
 * Python prints them and the confidence DECISIONS.md 16 defines.
 */
import type { Classifier, ConfidenceMethod, Step, Vectorizer } from './estimator.js'
import { expit, softmaxInPlace } from './math.js'

export interface Prediction {
  /** The class label as Python's str() prints it. */
  readonly label: string
  readonly classIndex: number
  /** The probability of the label, the largest pseudo-probability of the decision values, or the share of votes. */
  readonly confidence: number
  readonly proba: Float64Array | undefined
  readonly decision: Float64Array | undefined
}

export interface ModelInfo {
  readonly classifier: string
  /** The vectorizer, with a TfidfTransformer that directly follows it: 'CountVectorizer + TfidfTransformer'. */
  readonly vectorizer: string
  /** The other Pipeline steps between vectorizer and classifier, in order. */
  readonly steps: readonly string[]
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

/** Pseudo-probabilities of decision values: [1 - s(d), s(d)] for two classes, softmax for more; the largest. */
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
  readonly #vectorizer: Vectorizer
  readonly #steps: readonly Step[]
  readonly #classifier: Classifier

  constructor (vectorizer: Vectorizer, steps: readonly Step[], classifier: Classifier, sklearnVersions: Readonly<Record<string, string>>) {
    this.#vectorizer = vectorizer
    this.#steps = steps
    this.#classifier = classifier
    this.classes = Object.freeze([...classifier.classes])
    const leadingTfidf = steps.length > 0 && steps[0]!.kind === 'TfidfTransformer' ? 1 : 0
    this.info = Object.freeze({
      classifier: classifier.kind,
      vectorizer: [vectorizer.kind, ...steps.slice(0, leadingTfidf).map(s => s.kind)].join(' + '),
      steps: steps.slice(leadingTfidf).map(s => s.kind),
      classes: this.classes,
      nFeatures: vectorizer.nFeatures,
      confidence: classifier.confidence,
      classifierParams: classifier.params,
      vectorizerParams: { ...vectorizer.params, ...(leadingTfidf === 1 ? steps[0]!.params : {}) },
      sklearnVersions
    })
  }

  predict (text: string): Prediction {
    let row = this.#vectorizer.transform(text)
    for (const step of this.#steps) row = step.transform(row)
    const { proba, decision, classIndex, confidence } = this.#classifier.score(row)
    return {
      label: this.classes[classIndex]!,
      classIndex,
      confidence: confidence ?? (proba !== undefined ? proba[classIndex]! : decisionConfidence(decision!)),
      proba,
      decision
    }
  }
}
