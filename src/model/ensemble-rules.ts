/**
 * How an ensemble's answer is made of its members' answers, as the apps' Python made it:
 * a hard vote (weighted, with a declared tie rule), the weighted mean of the members'
 * predict_proba, or the members' labels joined. Pure functions over class indices and
 * numbers; which classes the ensemble has is decided once, at load (`ensembleClasses`).
 */
import type { CombineRule, TieRule } from '../settings/model-settings.js'

/** Most classes a join may make (the product of its members' class counts). */
export const MAX_JOINED_CLASSES = 65536

/** The ensemble's classes and, per member, where each of its classes is among them. */
export interface EnsembleClasses {
  readonly classes: readonly string[]
  /** Per member, its class index -> the ensemble's class index (vote and mean); a join's member k -> k. */
  readonly maps: readonly Int32Array[]
  /** A join's place value of each member's class index (the first member's changes slowest). */
  readonly strides: readonly number[]
}

/** A member's answer to one text, as the combination needs it. */
export interface MemberAnswer {
  readonly classIndex: number
  readonly confidence: number
  readonly proba: Float64Array | undefined
}

export interface Combined {
  readonly classIndex: number
  readonly confidence: number
  readonly proba: Float64Array | undefined
}

const same = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((c, i) => c === b[i])

/**
 * The ensemble's classes from its members' (in class order, as they answer alone), or why
 * they do not fit the rule (one line naming the members and their classes).
 * - vote: every class any member has, in the order first met (the members in order); `lowest`
 *   needs every member to have the same classes in the same order, or "lowest" is not defined;
 * - mean: the same classes in the same order for every member (the probabilities are added column by column);
 * - join: every combination of the members' classes, joined with `separator`, the first
 *   member's class changing slowest (itertools.product's order).
 */
export function ensembleClasses (rule: CombineRule, ties: TieRule | null, separator: string, members: ReadonlyArray<{ readonly name: string, readonly classes: readonly string[] }>): EnsembleClasses | string {
  const [first] = members
  const differ = members.find(m => !same(m.classes, first!.classes))
  const show = (m: { name: string, classes: readonly string[] }): string => `${m.name} has ${m.classes.join(', ')}`
  if (rule === 'mean' || (rule === 'vote' && ties === 'lowest')) {
    if (differ !== undefined) return `${rule === 'mean' ? 'a mean adds the members\' probabilities class by class, so every member needs the same classes in the same order' : 'ties "lowest" needs every member to have the same classes in the same order'}: ${show(first!)}, ${show(differ)}`
  }
  if (rule === 'vote' || rule === 'mean') {
    const classes: string[] = []
    const at = new Map<string, number>()
    const maps = members.map(m => Int32Array.from(m.classes, c => {
      let k = at.get(c)
      if (k === undefined) {
        k = classes.length
        classes.push(c)
        at.set(c, k)
      }
      return k
    }))
    return { classes, maps, strides: [] }
  }
  const count = members.reduce((n, m) => n * m.classes.length, 1)
  if (count > MAX_JOINED_CLASSES) return `a join of these members makes ${count} labels, more than ${MAX_JOINED_CLASSES}`
  let classes = ['']
  for (const [i, m] of members.entries()) classes = classes.flatMap(c => m.classes.map(x => i === 0 ? x : c + separator + x))
  const seen = new Map<string, number>()
  for (const [k, c] of classes.entries()) {
    const before = seen.get(c)
    if (before !== undefined) return `a join of these members gives the label ${JSON.stringify(c)} twice (from different member labels): choose a "separator"`
    seen.set(c, k)
  }
  const strides: number[] = []
  let stride = 1
  for (let i = members.length - 1; i >= 0; i--) {
    strides[i] = stride
    stride *= members[i]!.classes.length
  }
  return { classes, maps: members.map(m => Int32Array.from(m.classes, (_, k) => k)), strides }
}

/**
 * A hard vote: each member adds its weight to its label, in member order, as
 * `scores[label] += w` (or Counter) does; the largest sum wins. A tie goes to the label
 * voted first among the tied (`first`: Counter(votes).most_common(1)[0][0], whose sort is
 * stable over the order labels were first counted) or to the tied class first in class order
 * (`lowest`). Confidence: the winner's share of the weights (the "votes" confidence: docs/http-api.md, "Answers").
 */
export function vote (answers: readonly MemberAnswer[], maps: readonly Int32Array[], weights: Float64Array, classCount: number, ties: TieRule): Combined {
  const sums = new Float64Array(classCount)
  const order: number[] = []
  let total = 0
  for (const [m, a] of answers.entries()) {
    const k = maps[m]![a.classIndex]!
    if (!order.includes(k)) order.push(k)
    sums[k]! += weights[m]!
    total += weights[m]!
  }
  let best = -1
  const candidates = ties === 'first' ? order : order.slice().sort((a, b) => a - b)
  for (const k of candidates) if (best < 0 || sums[k]! > sums[best]!) best = k
  return { classIndex: best, confidence: sums[best]! / total, proba: undefined }
}

/**
 * The weighted mean of the members' probabilities, `sum(w * p) / sum(w)` added in member
 * order; the label is its first largest class (numpy's argmax), the confidence its mean probability.
 */
export function mean (answers: readonly MemberAnswer[], weights: Float64Array, classCount: number): Combined {
  const proba = new Float64Array(classCount)
  let total = 0
  for (const [m, a] of answers.entries()) {
    const w = weights[m]!
    const p = a.proba!
    for (let j = 0; j < classCount; j++) proba[j]! += w * p[j]!
    total += w
  }
  let best = 0
  for (let j = 0; j < classCount; j++) {
    proba[j]! /= total
    if (proba[j]! > proba[best]!) best = j
  }
  return { classIndex: best, confidence: proba[best]!, proba }
}

/**
 * The members' labels joined in member order: the joined class's index, and as confidence
 * the product of the members' confidences (each letter's probability, the chance the whole
 * label is right when the members err independently).
 */
export function join (answers: readonly MemberAnswer[], strides: readonly number[]): Combined {
  let classIndex = 0
  let confidence = 1
  for (const [m, a] of answers.entries()) {
    classIndex += a.classIndex * strides[m]!
    confidence *= a.confidence
  }
  return { classIndex, confidence, proba: undefined }
}
