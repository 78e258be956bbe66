/**
 * The one prediction interface the CLI, the workers and the HTTP layer share: a
 * vectorizer, the Pipeline steps after it and a classifier composed, with labels as
 * Python prints them and the confidence docs/http-api.md, "Answers" defines.
 */
import { ServiceError } from '../errors.js'
import type { Classifier, ConfidenceMethod, TermCoverage, Vectorizer } from './estimator.js'
import { explainRefusal, explainRow, explainTrees, type Explanation } from './explain.js'
import { expit, softmaxInPlace } from './math.js'
import type { SearchInfo } from './search.js'
import type { SparseRow } from './sparse-row.js'

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
  /** The vectorizer's features (before any step selects or reduces them). */
  readonly nFeatures: number
  readonly confidence: ConfidenceMethod
  readonly classifierParams: Readonly<Record<string, unknown>>
  readonly vectorizerParams: Readonly<Record<string, unknown>>
  /** The scikit-learn version each file was written by (`_sklearn_version`), by file. */
  readonly sklearnVersions: Readonly<Record<string, string>>
  /** The search object (GridSearchCV, ...) that wrapped the model, and its best_params_. */
  readonly search?: SearchInfo
}

/** Milliseconds spent turning texts into rows and scoring the rows, added up by `predict` when asked. */
export interface PhaseTimes {
  vectorizeMs: number
  scoreMs: number
}

export interface Predictor {
  readonly classes: readonly string[]
  readonly info: ModelInfo
  /** With `coverage`, also adds up the text's terms and the known ones into it; with `phases`, the time of each step. */
  predict: (text: string, coverage?: TermCoverage, phases?: PhaseTimes) => Prediction
}

/** Pseudo-probabilities of decision values: [1 - s(d), s(d)] for two classes, softmax for more; the largest. */
export function decisionConfidence (decision: Float64Array): number {
  if (decision.length === 1) {
    const s = expit(decision[0]!)
    return Math.max(1 - s, s)
  }
  return Math.max(...softmaxInPlace(decision.slice()))
}

/** How a model's text side is described (the classifier describes itself). */
export type TextSideInfo = Pick<ModelInfo, 'vectorizer' | 'steps' | 'nFeatures' | 'vectorizerParams' | 'sklearnVersions' | 'search'>

export class TextClassifier implements Predictor {
  readonly classes: readonly string[]
  readonly info: ModelInfo
  readonly #text: Vectorizer
  readonly #classifier: Classifier

  readonly #side: TextSideInfo

  /**
   * @param text the vectorizer with the Pipeline steps after it chained in.
   * @param labels the app's names for the classes (its settings), in class order; else the classes as Python prints them.
   */
  constructor (text: Vectorizer, classifier: Classifier, info: TextSideInfo, labels?: readonly string[] | null) {
    this.#text = text
    this.#classifier = classifier
    this.#side = info
    this.classes = Object.freeze([...(labels ?? classifier.classes)])
    this.info = Object.freeze({
      ...info,
      classifier: classifier.kind,
      classes: this.classes,
      confidence: classifier.confidence,
      classifierParams: classifier.params
    })
  }

  /** The width of the rows the classifier takes (the vectorizer's, after every step). */
  get rowWidth (): number {
    return this.#text.nFeatures
  }

  /** The same model with the classes named `labels` (in class order). */
  withLabels (labels: readonly string[]): TextClassifier {
    return new TextClassifier(this.#text, this.#classifier, this.#side, labels)
  }

  /** `text` as the app passed it to its model: after the cleaning its settings declare. */
  fed (text: string): string {
    return this.#text.clean?.(text) ?? text
  }

  /** The row the classifier sees for `text` (after the vectorizer and every step). */
  transform (text: string): SparseRow {
    return this.#text.transform(text)
  }

  predict (text: string, coverage?: TermCoverage, phases?: PhaseTimes): Prediction {
    const { proba, decision, classIndex, confidence } = phases === undefined ? this.#classifier.score(this.#text.transform(text, coverage)) : this.#timedScore(text, coverage, phases)
    return {
      label: this.classes[classIndex]!,
      classIndex,
      confidence: confidence ?? (proba !== undefined ? proba[classIndex]! : decisionConfidence(decision!)),
      proba,
      decision
    }
  }

  /**
   * The decision values a later version of the model's library gives `text` where the file's
   * own version has no decision_function (Classifier.laterDecision), with that version.
   */
  laterDecision (text: string): { since: string, decision: Float64Array } | undefined {
    const later = this.#classifier.laterDecision
    return later === undefined ? undefined : { since: later.since, decision: later.score(this.#text.transform(text)) }
  }

  /** The classifier's scores of `text`, each step's time added into `phases` (a traced task). */
  #timedScore (text: string, coverage: TermCoverage | undefined, phases: PhaseTimes): ReturnType<Classifier['score']> {
    const t0 = performance.now()
    const row = this.#text.transform(text, coverage)
    const t1 = performance.now()
    const scores = this.#classifier.score(row)
    phases.vectorizeMs += t1 - t0
    phases.scoreMs += performance.now() - t1
    return scores
  }

  /** Why this model's predictions cannot be explained, or undefined when they can. */
  get explainRefusal (): string | undefined {
    return explainRefusal(this.#text, this.#classifier)
  }

  /**
   * The features that moved `text`'s prediction most (`topK` of them) and every score's parts.
   * @throws ServiceError ERR_NOT_EXPLAINABLE (422) for a model explanations are not defined for.
   */
  explain (text: string, topK: number): Explanation {
    const refusal = this.explainRefusal
    if (refusal !== undefined) throw new ServiceError('ERR_NOT_EXPLAINABLE', refusal)
    const row = this.#text.transform(text)
    const { classIndex } = this.#classifier.score(row)
    const form = this.#classifier.linearForm
    const names = { featureName: this.#text.featureName!, sourceFeature: this.#text.sourceFeature }
    if (form !== undefined) return explainRow(row, form, names, classIndex, topK)
    return explainTrees(row, this.#classifier.shapValues!(row), names, classIndex, topK)
  }
}
