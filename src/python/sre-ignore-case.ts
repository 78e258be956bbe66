/**
 * Case-insensitive matching as CPython's `re` does it for str patterns (re/_compiler.py,
 * _sre): a character d matches a cased literal c when lower(d) == lower(c), and a class
 * when lower(d) is in the class's lowered members, with `_sre.unicode_tolower` (simple
 * lowercase mapping) and re._casefix's extra cases (i and dotless i, s and long s, ...).
 * JavaScript's /i folds differently (dotless i matches nothing), so (?i) patterns are
 * translated into explicit classes instead.
 */
import { CodePointSet } from './code-point-set.js'
import { SRE_CASED_RANGES, SRE_EXTRA_CASES, SRE_LOWER, SRE_UPPER } from './unicode-tables.js'

const CASED = new CodePointSet(SRE_CASED_RANGES)
const LOWER = pairsToMap(SRE_LOWER)
const UPPER = pairsToMap(SRE_UPPER)
const EXTRA = new Map<number, readonly number[]>(SRE_EXTRA_CASES)

function pairsToMap (pairs: readonly number[]): Map<number, number> {
  const map = new Map<number, number>()
  for (let i = 0; i < pairs.length; i += 2) map.set(pairs[i]!, pairs[i + 1]!)
  return map
}

export const sreLower = (cp: number): number => LOWER.get(cp) ?? cp
const sreUpper = (cp: number): number => UPPER.get(cp) ?? cp
export const isCased = (cp: number): boolean => CASED.has(cp)

/** A parsed character class: literal ranges and class escapes (\w, \D, ...). */
export interface ClassItems {
  readonly ranges: readonly number[]
  readonly escapes: ReadonlyArray<(cp: number) => boolean>
  readonly negated: boolean
}

/** Whether sre lowers the input for this class (some member is cased). */
export function hasCased (items: ClassItems): boolean {
  for (let i = 0; i < items.ranges.length; i += 2) {
    for (let cp = items.ranges[i]!; cp <= items.ranges[i + 1]!; cp++) if (isCased(cp)) return true
  }
  return false
}

/** The code points (as flat ranges) a class matches under IGNORECASE. */
export function ignoreCaseRanges (items: ClassItems): number[] {
  const lowered = new Set<number>()
  const tail: Array<[number, number]> = []
  for (let i = 0; i < items.ranges.length; i += 2) {
    const lo = items.ranges[i]!
    const hi = items.ranges[i + 1]!
    for (let cp = lo; cp <= Math.min(hi, 0xffff); cp++) {
      const l = sreLower(cp)
      lowered.add(l)
      for (const k of EXTRA.get(l) ?? []) lowered.add(k)
    }
    // sre keeps members beyond the BMP as raw ranges checked against lower(d) and upper(lower(d)).
    if (hi > 0xffff) tail.push([lo, hi])
  }
  const matches = (d: number): boolean => {
    const y = sreLower(d)
    if (lowered.has(y)) return true
    if (items.escapes.some(p => p(y))) return true
    if (tail.length > 0) {
      const u = sreUpper(y)
      return tail.some(([lo, hi]) => (y >= lo && y <= hi) || (u >= lo && u <= hi))
    }
    return false
  }
  const out: number[] = []
  let start = -1
  for (let d = 0; d <= 0x110000; d++) {
    const inside = d <= 0x10ffff && !(d >= 0xd800 && d <= 0xdfff) && matches(d) !== items.negated
    if (inside && start < 0) start = d
    if (!inside && start >= 0) {
      out.push(start, d - 1)
      start = -1
    }
  }
  return out
}
