/**
 * A model made of other models, as its settings declare it (`ensemble`): each member is
 * decoded and created exactly as it is served alone (its files, its settings, its
 * preprocessing), and the ensemble's answer is combined from the members' answers in the
 * worker (ensemble-rules.ts). Its state is the members' states side by side, plain data, so
 * it is shared with the workers like any model's.
 */
import { ServiceError } from '../errors.js'
import type { CombineRule, TieRule } from '../settings/model-settings.js'
import type { TermCoverage } from '../sklearn/estimator.js'
import { meanExplanation, topOf, type Explanation } from '../sklearn/explain.js'
import type { ModelInfo, PhaseTimes, Prediction, Predictor, TextClassifier } from '../sklearn/predictor.js'
import { ensembleClasses, join, mean, vote, type EnsembleClasses, type MemberAnswer } from './ensemble-rules.js'
import { createServedPredictor, decodeServedModel, type AppSource, type ServedModelState } from './served-model.js'
import type { EnsembleSpec } from './ensemble-spec.js'

// Declared beside the layout that reads it (no decoder there); here for the callers that always found it here.
export { ensembleSpecOf, type EnsembleMemberSpec, type EnsembleSpec } from './ensemble-spec.js'

export interface EnsembleMemberState {
  readonly name: string
  readonly weight: number
  readonly state: ServedModelState
  readonly app: AppSource | null
}

/** A decoded ensemble: plain data, its members' arrays shared as any model's are. */
export interface EnsembleState {
  readonly ensemble: {
    readonly combine: CombineRule
    readonly ties: TieRule | null
    readonly separator: string
    readonly members: readonly EnsembleMemberState[]
  }
}

/** Any decoded model a worker can be handed. */
export type AnyModelState = ServedModelState | EnsembleState

export function isEnsembleState (state: AnyModelState): state is EnsembleState {
  return 'ensemble' in state
}

/** A member's answer to one text as `/explain` shows it: its label, confidence and weight, and its own explanation when it has one. */
export interface MemberDetail {
  readonly name: string
  readonly weight: number
  /** The member's label as it answers alone (as Python prints it, or its settings name it). */
  readonly label: string
  readonly confidence: number
  /** Its classes, to name the classes of its explanation. */
  readonly classes: readonly string[]
  readonly explanation: Explanation | null
  /** Why the member's prediction has no explanation (not a linear model or naive Bayes), or null. */
  readonly refusal: string | null
}

/** An ensemble's explanation: its answer and each member's. */
export interface EnsembleExplanation {
  readonly classIndex: number
  readonly confidence: number
  readonly combine: CombineRule
  readonly members: readonly MemberDetail[]
  /** A mean whose members are all explained in probability space: its own, the members' weighted mean. */
  readonly explanation?: Explanation
}

function memberFailure (name: string, err: unknown): ServiceError {
  if (err instanceof ServiceError) return new ServiceError(err.code, `ensemble member ${name}: ${err.detail}`, { file: err.file, offset: err.offset, subject: err.subject, cause: err })
  return new ServiceError('ERR_INTERNAL', `ensemble member ${name}: ${String(err)}`, { cause: err })
}

/**
 * Decodes every member as it is decoded alone, then checks the members fit the rule.
 * @throws ServiceError naming the member and its file when one cannot be served, or the
 * settings file when the members do not fit the rule (classes that differ for a mean, a
 * member without predict_proba for a mean).
 */
export async function decodeEnsemble (spec: EnsembleSpec): Promise<{ state: EnsembleState, info: ModelInfo, notes: string[] }> {
  const { state, predictor, notes } = await decodeAndCreate(spec)
  return { state, info: predictor.info, notes }
}

/** Decodes and creates an ensemble in this thread (the command line). */
export async function loadEnsemble (spec: EnsembleSpec): Promise<{ predictor: EnsemblePredictor, notes: string[] }> {
  const { predictor, notes } = await decodeAndCreate(spec)
  return { predictor, notes }
}

async function decodeAndCreate (spec: EnsembleSpec): Promise<{ state: EnsembleState, predictor: EnsemblePredictor, notes: string[] }> {
  const members: EnsembleMemberState[] = []
  const notes: string[] = []
  for (const m of spec.members) {
    try {
      const decoded = await decodeServedModel({ paths: m.paths, settingsFile: m.settingsFile, labels: m.labels ?? null })
      members.push({ name: m.name, weight: m.weight, state: decoded.state, app: decoded.app })
      notes.push(...decoded.notes.map(n => `ensemble member ${m.name}: ${n}`))
    } catch (err) {
      throw memberFailure(m.name, err)
    }
  }
  const state: EnsembleState = { ensemble: { combine: spec.combine, ties: spec.ties, separator: spec.separator, members } }
  // Created here once, as a worker will: a mismatch is refused at load, not on every request.
  const predictor = await createEnsemblePredictor(state).catch((err: unknown) => { throw err instanceof ServiceError ? err.withFile(spec.file) : err })
  return { state, predictor, notes }
}

/**
 * Creates each member's working predictor as a worker creates a model, and the ensemble over them.
 * @throws ServiceError ERR_MODEL_UNSUPPORTED when the members do not fit the rule.
 */
export async function createEnsemblePredictor (state: EnsembleState): Promise<EnsemblePredictor> {
  const { members } = state.ensemble
  const predictors: TextClassifier[] = []
  for (const m of members) {
    try {
      predictors.push(await createServedPredictor(m.state, m.app))
    } catch (err) {
      throw memberFailure(m.name, err)
    }
  }
  return new EnsemblePredictor(state, predictors)
}

/** Any model's working predictor: an ensemble's, or a single model's. */
export async function createAnyPredictor (state: AnyModelState, app: AppSource | null): Promise<TextClassifier | EnsemblePredictor> {
  return isEnsembleState(state) ? await createEnsemblePredictor(state) : await createServedPredictor(state, app)
}

const CONFIDENCE = { vote: 'votes', mean: 'predict_proba', join: 'product' } as const

export class EnsemblePredictor implements Predictor {
  readonly classes: readonly string[]
  readonly info: ModelInfo
  readonly #members: readonly TextClassifier[]
  readonly #names: readonly string[]
  readonly #weights: Float64Array
  readonly #combine: CombineRule
  readonly #ties: TieRule
  readonly #table: EnsembleClasses

  constructor (state: EnsembleState, members: readonly TextClassifier[]) {
    const { combine, ties, separator } = state.ensemble
    const names = state.ensemble.members.map(m => m.name)
    if (combine === 'mean') {
      // A member with no predict_proba (LinearSVC, a hard vote) has no probabilities to average.
      const without = members.findIndex(p => p.predict(' ').proba === undefined)
      if (without >= 0) throw new ServiceError('ERR_MODEL_UNSUPPORTED', `a mean averages the members' predict_proba, and member ${names[without]!} (${members[without]!.info.classifier}) has none: combine it by "vote" instead`)
    }
    const table = ensembleClasses(combine, ties, separator, members.map((p, i) => ({ name: names[i]!, classes: p.classes })))
    if (typeof table === 'string') throw new ServiceError('ERR_MODEL_UNSUPPORTED', table)
    this.#members = members
    this.#names = names
    this.#weights = Float64Array.from(state.ensemble.members, m => m.weight)
    this.#combine = combine
    this.#ties = ties ?? 'first'
    this.#table = table
    this.classes = Object.freeze([...table.classes])
    const first = members[0]!.info
    this.info = Object.freeze({
      classifier: `${combine}(${members.map(p => p.info.classifier).join(', ')})`,
      vectorizer: [...new Set(members.map(p => p.info.vectorizer))].join(', '),
      steps: [],
      classes: this.classes,
      nFeatures: first.nFeatures,
      confidence: CONFIDENCE[combine],
      classifierParams: {
        combine,
        ...(combine === 'vote' ? { ties } : {}),
        ...(combine === 'join' ? { separator } : {}),
        members: state.ensemble.members.map((m, i) => ({ name: m.name, ...(combine === 'join' ? {} : { weight: m.weight }), classifier: members[i]!.info.classifier }))
      },
      vectorizerParams: first.vectorizerParams,
      sklearnVersions: Object.assign({}, ...members.map(p => p.info.sklearnVersions)) as Record<string, string>
    })
  }

  /** Each member by name with its working predictor, in member order (verify checks each against the app's). */
  get members (): ReadonlyArray<{ readonly name: string, readonly predictor: TextClassifier }> {
    return this.#members.map((predictor, i) => ({ name: this.#names[i]!, predictor }))
  }

  /** The members' answers, each exactly as it answers alone; `coverage` counts the first member's terms. */
  #answers (text: string, coverage?: TermCoverage, phases?: PhaseTimes): Prediction[] {
    return this.#members.map((m, i) => m.predict(text, i === 0 ? coverage : undefined, phases))
  }

  #combined (answers: readonly MemberAnswer[]): { classIndex: number, confidence: number, proba: Float64Array | undefined } {
    const t = this.#table
    switch (this.#combine) {
      case 'vote': return vote(answers, t.maps, this.#weights, t.classes.length, this.#ties)
      case 'mean': return mean(answers, this.#weights, t.classes.length)
      case 'join': return join(answers, t.strides)
    }
  }

  predict (text: string, coverage?: TermCoverage, phases?: PhaseTimes): Prediction {
    const { classIndex, confidence, proba } = this.#combined(this.#answers(text, coverage, phases))
    return { label: this.classes[classIndex]!, classIndex, confidence, proba, decision: undefined }
  }

  /** An ensemble's answers are always explained, member by member. */
  get explainRefusal (): undefined {
    return undefined
  }

  /** The ensemble's answer and each member's: label, confidence, weight, and its own explanation where it has one. */
  explain (text: string, topK: number): EnsembleExplanation {
    const answers = this.#answers(text)
    const { classIndex, confidence, proba } = this.#combined(answers)
    // A mean's own explanation needs every feature of every member's; each member shows its top_k.
    const all = this.#members.map(m => m.explainRefusal === undefined ? m.explain(text, this.#combine === 'mean' ? Number.MAX_SAFE_INTEGER : topK) : null)
    const members = this.#members.map((m, i): MemberDetail => {
      const e = all[i]!
      return {
        name: this.#names[i]!,
        weight: this.#weights[i]!,
        label: answers[i]!.label,
        confidence: answers[i]!.confidence,
        classes: m.classes,
        explanation: e === null ? null : topOf(e, topK),
        refusal: m.explainRefusal ?? null
      }
    })
    const mean = this.#combine === 'mean' && all.every(e => e !== null)
      ? meanExplanation(all.map((e, i) => ({ e: e!, weight: this.#weights[i]! })), classIndex, proba!, topK)
      : undefined
    return { classIndex, confidence, combine: this.#combine, members, ...(mean === undefined ? {} : { explanation: mean }) }
  }
}
