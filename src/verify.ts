/**
 * `tfidf-serve verify`: does tfidf-serve answer what the app answered? The expected file
 * holds one JSON line per text with the app's own answer (`text`, `label`, and `proba`,
 * `decision` and `fed` when it has them: `fed` is the text as the app passed it to the
 * vectorizer). Each text goes through the model as served (declared preprocessing, the app's
 * functions, the model); labels must be equal and numbers within the tolerance.
 */
import { readFile } from 'node:fs/promises'
import { ServiceError } from './errors.js'
import type { TextClassifier } from './sklearn/predictor.js'

export const VERIFY_TOLERANCE = 1e-9

interface Expected {
  readonly text: string
  readonly label: string
  readonly proba?: readonly number[]
  readonly decision?: readonly number[]
  readonly fed?: string
}

export interface Difference {
  readonly line: number
  readonly text: string
  /** What differs: 'label', 'proba', 'decision', and 'fed' when the texts fed to the vectorizer differ. */
  readonly differs: readonly string[]
  readonly expected: Expected
  readonly ours: { readonly label: string, readonly proba?: number[], readonly decision?: number[], readonly fed: string }
}

export interface VerifyReport {
  readonly texts: number
  readonly agree: number
  readonly disagree: number
  readonly labels_equal: number
  /** Largest difference of a probability / a decision value over the texts that have them. */
  readonly max_proba_difference: number | null
  readonly max_decision_difference: number | null
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

function parseLine (line: string, n: number, file: string): Expected {
  let v: unknown
  try {
    v = JSON.parse(line)
  } catch (err) {
    throw new ServiceError('ERR_CONFIG_INVALID', `line ${n} is not JSON: ${(err as Error).message}`, { file })
  }
  const e = v as Partial<Expected> | null
  const numbers = (x: unknown): boolean => x === undefined || (Array.isArray(x) && x.every(y => typeof y === 'number'))
  if (e === null || typeof e !== 'object' || typeof e.text !== 'string' || (typeof e.label !== 'string' && typeof e.label !== 'number' && typeof e.label !== 'boolean') || !numbers(e.proba) || !numbers(e.decision) || (e.fed !== undefined && typeof e.fed !== 'string')) {
    throw new ServiceError('ERR_CONFIG_INVALID', `line ${n} must be {"text": str, "label": str, "proba"?: [numbers], "decision"?: [numbers], "fed"?: str}`, { file })
  }
  return { ...e, label: String(e.label) } as Expected
}

/** The largest absolute difference of two rows, Infinity when their lengths differ. */
function distance (a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity
  let d = 0
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i]! - b[i]!))
  return d
}

/** Compares the app's answers in `file` with the model's; at most `show` differences are kept. */
export async function verify (predictor: TextClassifier, file: string, show = 5): Promise<VerifyReport> {
  const lines = (await readFile(file, 'utf8')).split(/\r?\n/)
  let texts = 0
  let agree = 0
  let labelsEqual = 0
  let fedDiffers = 0
  let maxProba: number | null = null
  let maxDecision: number | null = null
  let decisionNotComparable = 0
  let laterSince: string | undefined
  const first: Difference[] = []
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue
    const e = parseLine(line, i + 1, file)
    texts++
    const p = predictor.predict(e.text)
    const fed = predictor.fed(e.text)
    const differs: string[] = []
    if (p.label !== e.label) differs.push('label')
    else labelsEqual++
    if (e.proba !== undefined) {
      const d = p.proba === undefined ? Infinity : distance(p.proba, e.proba)
      maxProba = Math.max(maxProba ?? 0, d)
      if (!(d <= VERIFY_TOLERANCE)) differs.push('proba')
    }
    // A file written before its library had decision_function, recorded with a version that
    // has one (lightgbm < 4.7 recorded by 4.7): that version's values, else not comparable.
    const later = e.decision === undefined || p.decision !== undefined ? undefined : predictor.laterDecision(e.text)
    if (later !== undefined) laterSince = later.since
    const decision = p.decision ?? later?.decision
    if (e.decision !== undefined && decision === undefined) decisionNotComparable++
    else if (e.decision !== undefined) {
      const d = distance(decision!, e.decision)
      maxDecision = Math.max(maxDecision ?? 0, d)
      if (!(d <= VERIFY_TOLERANCE)) differs.push('decision')
    }
    const fedDiffer = e.fed !== undefined && e.fed !== fed
    if (fedDiffer) fedDiffers++
    if (differs.length === 0) {
      agree++
      continue
    }
    if (fedDiffer) differs.push('fed')
    if (first.length < show) {
      first.push({
        line: i + 1,
        text: e.text,
        differs,
        expected: e,
        ours: { label: p.label, ...(p.proba === undefined ? {} : { proba: Array.from(p.proba) }), ...(decision === undefined ? {} : { decision: Array.from(decision) }), fed }
      })
    }
  }
  const notes = [
    ...(laterSince === undefined ? [] : [`decision: the model file predates ${laterSince}, which added decision_function; compared with ${laterSince}'s (not served)`]),
    ...(decisionNotComparable === 0 ? [] : [`decision: the model as served has no decision_function, so ${decisionNotComparable} recorded decisions were not compared (labels and probabilities were)`])
  ]
  return { texts, agree, disagree: texts - agree, labels_equal: labelsEqual, max_proba_difference: maxProba, max_decision_difference: maxDecision, fed_differs: fedDiffers, decision_not_comparable: decisionNotComparable, notes, tolerance: VERIFY_TOLERANCE, first_differences: first }
}
