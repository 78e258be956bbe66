/**
 * `tfidf-serve verify`: does tfidf-serve answer what the app answered? The expected file
 * holds one JSON line per text with the app's own answer (`text`, `label`, and `proba`,
 * `decision` and `fed` when it has them: `fed` is the text as the app passed it to the
 * vectorizer). Each text goes through the model as served (declared preprocessing, the app's
 * functions, the model); labels must be equal and numbers within the tolerance. For an
 * ensemble, a line's label and `confidence` are the ensemble's, and its `members` the
 * members' own answers by name, each checked as a model's.
 */
import { readFile } from 'node:fs/promises'
import { ServiceError } from './errors.js'
import type { EnsemblePredictor } from './model/ensemble.js'
import type { TextClassifier } from './sklearn/predictor.js'

export const VERIFY_TOLERANCE = 1e-9

/** What the app answered for one text, from one model (or one member of an ensemble). */
interface Answer {
  readonly label: string
  readonly proba?: readonly number[]
  readonly decision?: readonly number[]
  readonly fed?: string
  /** The confidence of the label (docs/http-api.md, "Answers"): an ensemble's (votes, mean, product) or any model's. */
  readonly confidence?: number
}

interface Expected extends Answer {
  readonly text: string
  /** An ensemble's members' own answers, by member name (those the app recorded). */
  readonly members?: Readonly<Record<string, Answer>>
}

/** Our answer as a difference shows it. */
interface Ours {
  readonly label: string
  readonly confidence: number
  readonly proba?: number[]
  readonly decision?: number[]
  /** The text fed to the vectorizer (a single model's; an ensemble's members each have their own). */
  readonly fed?: string
  readonly members?: Readonly<Record<string, Ours>>
}

export interface Difference {
  readonly line: number
  readonly text: string
  /**
   * What differs: 'label', 'confidence', 'proba', 'decision', and 'fed' when the texts fed to
   * the vectorizer differ; a member's as 'members.<name>.label' and so on.
   */
  readonly differs: readonly string[]
  readonly expected: Expected
  readonly ours: Ours
}

export interface VerifyReport {
  readonly texts: number
  readonly agree: number
  readonly disagree: number
  readonly labels_equal: number
  /** Largest difference of a probability / a decision value / a confidence over the answers that have them (an ensemble's members' included). */
  readonly max_proba_difference: number | null
  readonly max_decision_difference: number | null
  readonly max_confidence_difference: number | null
  /** Texts whose text as fed to the vectorizer differs from the app's (when the file has `fed`). */
  readonly fed_differs: number
  /**
   * Texts whose recorded `decision` could not be compared: the model as served has no
   * decision_function, and no later version of its library gives one (never a disagreement).
   */
  readonly decision_not_comparable: number
  /** How fields were compared when not as served: a later library's decision_function, or none. */
  readonly notes: readonly string[]
  readonly tolerance: number
  readonly first_differences: readonly Difference[]
}

const SHAPE = '{"text": str, "label": str, "confidence"?: number, "proba"?: [numbers], "decision"?: [numbers], "fed"?: str, "members"?: {name: {"label": str, ...}}}'

/** Whether `v` is an answer (label and the optional fields, of their types). */
function isAnswer (v: unknown): v is Answer {
  const e = v as Partial<Answer> | null
  const numbers = (x: unknown): boolean => x === undefined || (Array.isArray(x) && x.every(y => typeof y === 'number'))
  return e !== null && typeof e === 'object' && (typeof e.label === 'string' || typeof e.label === 'number' || typeof e.label === 'boolean') &&
    numbers(e.proba) && numbers(e.decision) && (e.fed === undefined || typeof e.fed === 'string') && (e.confidence === undefined || typeof e.confidence === 'number')
}

const withLabel = (a: Answer): Answer => ({ ...a, label: String(a.label) })

function parseLine (line: string, n: number, file: string, members: readonly string[] | null): Expected {
  let v: unknown
  try {
    v = JSON.parse(line)
  } catch (err) {
    throw new ServiceError('ERR_CONFIG_INVALID', `line ${n} is not JSON: ${(err as Error).message}`, { file })
  }
  const e = v as Partial<Expected> | null
  const given = e?.members
  if (!isAnswer(e) || typeof (e as Partial<Expected>).text !== 'string' || (given !== undefined && (given === null || typeof given !== 'object' || Array.isArray(given) || !Object.values(given).every(isAnswer)))) {
    throw new ServiceError('ERR_CONFIG_INVALID', `line ${n} must be ${SHAPE}`, { file })
  }
  if (given === undefined) return withLabel(e) as Expected
  if (members === null) throw new ServiceError('ERR_CONFIG_INVALID', `line ${n} gives "members", but the model is not an ensemble`, { file })
  const unknown = Object.keys(given).find(k => !members.includes(k))
  if (unknown !== undefined) throw new ServiceError('ERR_CONFIG_INVALID', `line ${n} gives member ${JSON.stringify(unknown)}, which the ensemble has not (its members: ${members.join(', ')})`, { file })
  return { ...withLabel(e), members: Object.fromEntries(Object.entries(given).map(([k, a]) => [k, withLabel(a)])) } as Expected
}

/** The largest absolute difference of two rows, Infinity when their lengths differ. */
function distance (a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity
  let d = 0
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i]! - b[i]!))
  return d
}

/** The running tally of a verify: largest differences, counts, and where a later library's decision was used. */
class Tally {
  maxProba: number | null = null
  maxDecision: number | null = null
  maxConfidence: number | null = null
  decisionNotComparable = 0
  /** Recorded fed texts of an ensemble whose members feed different texts. */
  fedNotComparable = 0
  laterSince: string | undefined

  /** Records a difference `d` of one kind; whether it is within the tolerance. */
  within (kind: 'proba' | 'decision' | 'confidence', d: number): boolean {
    if (kind === 'proba') this.maxProba = Math.max(this.maxProba ?? 0, d)
    else if (kind === 'decision') this.maxDecision = Math.max(this.maxDecision ?? 0, d)
    else this.maxConfidence = Math.max(this.maxConfidence ?? 0, d)
    return d <= VERIFY_TOLERANCE
  }
}

/**
 * Compares one model's answer to `text` with the app's: the label, and each number the app
 * recorded. Returns what differs, our answer, and whether the fed texts differ.
 */
function compare (predictor: TextClassifier | EnsemblePredictor, text: string, e: Answer, tally: Tally): { differs: string[], ours: Ours, fedDiffers: boolean } {
  const p = predictor.predict(text)
  const single = 'fed' in predictor ? predictor : null
  const differs: string[] = []
  if (p.label !== e.label) differs.push('label')
  if (e.confidence !== undefined && !tally.within('confidence', Math.abs(p.confidence - e.confidence))) differs.push('confidence')
  if (e.proba !== undefined && !tally.within('proba', p.proba === undefined ? Infinity : distance(p.proba, e.proba))) differs.push('proba')
  // A file written before its library had decision_function, recorded with a version that
  // has one (lightgbm < 4.7 recorded by 4.7): that version's values, else not comparable.
  const later = e.decision === undefined || p.decision !== undefined ? undefined : single?.laterDecision(text)
  if (later !== undefined) tally.laterSince = later.since
  const decision = p.decision ?? later?.decision
  if (e.decision !== undefined && decision === undefined) tally.decisionNotComparable++
  else if (e.decision !== undefined && !tally.within('decision', distance(decision!, e.decision))) differs.push('decision')
  const fed = single !== null ? single.fed(text) : membersFed(predictor as EnsemblePredictor, text)
  if (e.fed !== undefined && fed === undefined) tally.fedNotComparable++
  const ours: Ours = { label: p.label, confidence: p.confidence, ...(p.proba === undefined ? {} : { proba: Array.from(p.proba) }), ...(decision === undefined ? {} : { decision: Array.from(decision) }), ...(fed === undefined ? {} : { fed }) }
  return { differs, ours, fedDiffers: e.fed !== undefined && fed !== undefined && e.fed !== fed }
}

/**
 * An ensemble's text as fed to the vectorizer: the one its members all feed (they share the
 * settings' preprocessing), or undefined when they feed different texts (each member's is then
 * compared on its own line of `members`).
 */
function membersFed (ensemble: EnsemblePredictor, text: string): string | undefined {
  const fed = new Set(ensemble.members.map(m => m.predictor.fed(text)))
  return fed.size === 1 ? [...fed][0] : undefined
}

/**
 * Compares the app's answers in `file` with the model's; at most `show` differences are kept.
 * For an ensemble, each line's label and confidence are the ensemble's, and `members` (when
 * the line gives it) holds members' own answers by name, each compared as a model's.
 * @throws ServiceError ERR_CONFIG_INVALID naming the file and line when a line is not an answer.
 */
export async function verify (predictor: TextClassifier | EnsemblePredictor, file: string, show = 5): Promise<VerifyReport> {
  const lines = (await readFile(file, 'utf8')).split(/\r?\n/)
  const members = 'members' in predictor ? predictor.members : null
  const names = members?.map(m => m.name) ?? null
  const tally = new Tally()
  let texts = 0
  let agree = 0
  let labelsEqual = 0
  let fedDiffers = 0
  const first: Difference[] = []
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue
    const e = parseLine(line, i + 1, file, names)
    texts++
    const top = compare(predictor, e.text, e, tally)
    if (!top.differs.includes('label')) labelsEqual++
    const differs = [...top.differs]
    let fedDiffer = top.fedDiffers
    const ourMembers: Record<string, Ours> = {}
    for (const [name, answer] of Object.entries(e.members ?? {})) {
      const member = compare(members!.find(m => m.name === name)!.predictor, e.text, answer, tally)
      differs.push(...member.differs.map(d => `members.${name}.${d}`))
      if (member.fedDiffers) {
        fedDiffer = true
        if (member.differs.length > 0) differs.push(`members.${name}.fed`)
      }
      ourMembers[name] = member.ours
    }
    if (fedDiffer) fedDiffers++
    if (differs.length === 0) {
      agree++
      continue
    }
    if (top.fedDiffers) differs.push('fed')
    if (first.length < show) first.push({ line: i + 1, text: e.text, differs, expected: e, ours: e.members === undefined ? top.ours : { ...top.ours, members: ourMembers } })
  }
  const notes = [
    ...(tally.laterSince === undefined ? [] : [`decision: the model file predates ${tally.laterSince}, which added decision_function; compared with ${tally.laterSince}'s (not served)`]),
    ...(tally.decisionNotComparable === 0 ? [] : [`decision: the model as served has no decision_function, so ${tally.decisionNotComparable} recorded decisions were not compared (labels and probabilities were)`]),
    ...(tally.fedNotComparable === 0 ? [] : [`fed: the ensemble's members feed their vectorizers different texts, so ${tally.fedNotComparable} recorded fed texts were not compared (give each member's under "members")`])
  ]
  return { texts, agree, disagree: texts - agree, labels_equal: labelsEqual, max_proba_difference: tally.maxProba, max_decision_difference: tally.maxDecision, max_confidence_difference: tally.maxConfidence, fed_differs: fedDiffers, decision_not_comparable: tally.decisionNotComparable, notes, tolerance: VERIFY_TOLERANCE, first_differences: first }
}
