/**
 * The estimator layer's contracts. Every scikit-learn class we serve is one module (or one
 * module per close family) that says how its pickle record becomes *state*, what must hold
 * of a state (`check`: run on every state built, and on every state a compiled file holds),
 * and how state becomes a working object:
 *
 *   pickle record --build--.
 *                           >--> state (plain data + typed arrays) --check--> --create--> Vectorizer | Step | Classifier
 *   compiled file --read---'
 *
 * State holds no functions, classes or per-feature/per-node objects: only numbers, strings,
 * booleans, typed arrays, arrays of those and nested states. So a model can be built once
 * and its state handed to any thread (structured clone, or typed arrays placed in shared
 * memory) without a case per estimator. The runtime objects keep their scratch buffers.
 */
import type { PyObject } from '../pickle/values.js'
import type { SparseRow } from './sparse-row.js'
import type { TreeAttribution } from './tree-shap.js'

/** What a module's `build` returns; `type` names the module that can `create` it. */
export interface EstimatorState {
  readonly type: string
  /** The scikit-learn class name, e.g. 'SVC'. */
  readonly kind: string
}

/**
 * How much of a text the vocabulary covers: the terms (n-grams, with repeats) the analyzer
 * made of it, and how many of those are features. Filled in by `transform` when passed.
 */
export interface TermCoverage {
  terms: number
  known: number
}

/** Text to a feature row (CountVectorizer, TfidfVectorizer, HashingVectorizer, FeatureUnion, ...). */
export interface Vectorizer {
  /** e.g. 'TfidfVectorizer', 'FeatureUnion(TfidfVectorizer, TfidfVectorizer)'. */
  readonly kind: string
  readonly nFeatures: number
  /** The parameters worth showing in `inspect`. */
  readonly params: Readonly<Record<string, unknown>>
  /** The text's row as scikit-learn's `transform([text])` holds it (entry order included). */
  transform: (text: string, coverage?: TermCoverage) => SparseRow
  /**
   * The term behind feature `j`, as `get_feature_names_out` names it (undefined for a hashed
   * feature). Absent when a step mixes terms into other features: `mixedBy` names it.
   */
  readonly featureName?: (j: number) => string | undefined
  /** The vectorizer's column that column `j` of the row comes from, when steps after the vectorizer select or scale (absent: the same column). */
  readonly sourceFeature?: (j: number) => number
  readonly mixedBy?: string
  /** The declared cleaning (settings) run on each text before the model, when there is any. */
  readonly clean?: (text: string) => string
}

/** A Pipeline step between vectorizer and classifier: one row in, one row out. */
export interface Step {
  readonly kind: string
  readonly nFeaturesIn: number
  readonly nFeaturesOut: number
  readonly params: Readonly<Record<string, unknown>>
  /** May write into its input's arrays: every row a step is given is made for it alone. */
  transform: (row: SparseRow) => SparseRow
  /**
   * The input feature that output feature `j` is made from, for a step that keeps each
   * feature apart (a selector, a per-column scaler); absent for one that mixes them.
   */
  readonly sourceFeature?: (j: number) => number
}

/**
 * How a model's confidence is derived (docs/http-api.md, "Answers"): its `predict_proba`, the
 * pseudo-probabilities of its decision values, or (hard voting) the weighted share of votes;
 * an ensemble of models that joins their labels: the product of their confidences.
 */
export type ConfidenceMethod = 'predict_proba' | 'decision_function' | 'votes' | 'product'

/** One row's outputs, arrays in `classes` order. */
export interface Scores {
  /** Index into `classes` of the label scikit-learn's `predict` returns. */
  readonly classIndex: number
  /** `predict_proba`, when the model has it. */
  readonly proba: Float64Array | undefined
  /** `decision_function` as scikit-learn returns it (one value for two classes), when the model has it. */
  readonly decision: Float64Array | undefined
  /** Set when the confidence is not derived from `proba` or `decision` (hard voting's share of votes). */
  readonly confidence?: number
}

/**
 * A classifier whose scores are linear in the row:
 *   score[k] = intercept[k] + sum over the row's entries j of x_j * weightT[j * outputs + k],
 * x_j binarized first when `binarize` is set (BernoulliNB).
 */
export interface LinearForm {
  /** What the scores are: the decision function (linear models) or the joint log-likelihood (naive Bayes). */
  readonly score: 'decision_function' | 'joint_log_likelihood'
  /** Index into `classes` of each output (a two-class linear model has one: the second class). */
  readonly outputClasses: readonly number[]
  /** nFeatures rows of outputs values. */
  readonly weightT: Float64Array
  readonly intercept: Float64Array
  readonly binarize: number | null
}

/** A fitted classifier over feature rows. */
export interface Classifier {
  readonly kind: string
  readonly nFeatures: number
  /** The labels as Python's str() prints each, in `classes_` order. */
  readonly classes: readonly string[]
  readonly hasProba: boolean
  readonly hasDecision: boolean
  readonly confidence: ConfidenceMethod
  readonly params: Readonly<Record<string, unknown>>
  score: (row: SparseRow) => Scores
  /** Set where the scores are linear in the row, which is what an explanation needs. */
  readonly linearForm?: LinearForm
  /** Set where shap's path-dependent TreeExplainer explains the model: the row's Shapley values (tree-shap.ts). */
  readonly shapValues?: (row: SparseRow) => TreeAttribution
  /** The space `shapValues` explains, known before any row (a soft vote averages only probabilities). */
  readonly shapSpace?: TreeAttribution['space']
  /** Why neither form explains this classifier, where a reason more telling than its kind applies. */
  readonly explainRefusal?: string
  /**
   * The `decision_function` a later version of the library that wrote the file has, where the
   * file's own version has none (an LGBMClassifier written before lightgbm 4.7.0). Not served,
   * so answers and meta-estimators stay as the file's version computes them; `verify` compares
   * it with answers recorded under the later version. `since`: that version, e.g. 'lightgbm 4.7.0'.
   */
  readonly laterDecision?: { readonly since: string, readonly score: (row: SparseRow) => Float64Array }
}

/** A classifier whose confidence is `predict_proba` and that has no `decision_function`. */
export function probabilistic (fields: Omit<Classifier, 'hasProba' | 'hasDecision' | 'confidence'>): Classifier {
  return { ...fields, hasProba: true, hasDecision: false, confidence: 'predict_proba' }
}

export type Role = 'vectorizer' | 'step' | 'classifier'

export interface RuntimeOf {
  vectorizer: Vectorizer
  step: Step
  classifier: Classifier
}

/** Builds inner estimators through the registry (ensembles, unions, meta-estimators). */
export interface BuildContext {
  build: <R extends Role>(role: R, value: unknown, where: string) => EstimatorState
}

/** Checks inner estimators' states through the registry. */
export interface CheckContext {
  check: (role: Role, value: unknown, where: string) => void
}

/** Creates inner estimators from their state through the registry. */
export interface CreateContext {
  create: <R extends Role>(role: R, state: EstimatorState) => RuntimeOf[R]
}

/**
 * One estimator module: the class names it serves, how a record of one becomes state, what
 * must be true of a state for `create` and scoring to be safe, and how state becomes a
 * working object.
 */
export interface EstimatorModule<S extends EstimatorState = EstimatorState, R extends Role = Role> {
  /** Unique; written into every state this module builds. */
  readonly type: string
  readonly role: R
  readonly names: readonly string[]
  // Method syntax: the table holds modules of every state type side by side.
  build (record: PyObject, ctx: BuildContext): S
  /**
   * Everything `create` and scoring rely on in a state of this type (array lengths and kinds,
   * indices inside their arrays, trees that are trees), inner states through `ctx`; `where`
   * names the state's path for messages. `type` and `kind` are checked by the registry.
   * @throws ServiceError ERR_MODEL_SHAPE naming the path of the first thing wrong.
   */
  check (state: unknown, where: string, ctx: CheckContext): asserts state is S
  create (state: S, ctx: CreateContext): RuntimeOf[R]
}

/** Declares a module with its state type checked against its functions. */
export function defineEstimator<S extends EstimatorState, R extends Role> (module: EstimatorModule<S, R>): EstimatorModule<S, R> {
  return Object.freeze(module)
}
