/**
 * Case-insensitive matching as CPython's `re` does it for str patterns (re/_compiler.py,
 * _sre): a character d matches a cased literal c when lower(d) == lower(c), and a class
 * when lower(d) is in the class's lowered members, with `_sre.unicode_tolower` (simple
 * lowercase mapping) and re._casefix's extra cases (i and dotless i, s and long s, ...).
 * JavaScript's /i folds differently (dotless i matches nothing), so (?i) patterns are
 * translated into explicit classes instead.
 */
import { CodePointSet } from './code-point-set.js'
import { complement } from './code-point-ranges.js'
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

/** For each lowered code point, the code points sre lowers to it (itself included when it lowers to itself). */
let preimages: Map<number, number[]> | undefined
function lowersTo (y: number): readonly number[] {
  if (preimages === undefined) {
    preimages = new Map()
    for (const [d, l] of LOWER) {
      const list = preimages.get(l) ?? []
      list.push(d)
      preimages.set(l, list)
    }
  }
  const from = preimages.get(y) ?? []
  return sreLower(y) === y ? [y, ...from] : from
}

/** Sorted, merged flat ranges of a set of code points. */
function rangesOf (cps: Iterable<number>): number[] {
  const sorted = [...new Set(cps)].sort((a, b) => a - b)
  const out: number[] = []
  for (const cp of sorted) {
    if (out.length > 0 && out[out.length - 1] === cp - 1) out[out.length - 1] = cp
    else out.push(cp, cp)
  }
  return out
}

/** The code points (as flat ranges) a class matches under IGNORECASE. */
export function ignoreCaseRanges (items: ClassItems): number[] {
  // Members in the BMP and no class escapes: d matches when lower(d) is a lowered member, so the
  // answer is the members' lowered forms taken back through the inverse of lower (no full scan).
  let bmpOnly = items.escapes.length === 0
  for (let i = 1; i < items.ranges.length && bmpOnly; i += 2) bmpOnly = items.ranges[i]! <= 0xffff
  if (bmpOnly) {
    const matched: number[] = []
    const seen = new Set<number>()
    for (let i = 0; i < items.ranges.length; i += 2) {
      for (let cp = items.ranges[i]!; cp <= items.ranges[i + 1]!; cp++) {
        const l = sreLower(cp)
        for (const y of [l, ...(EXTRA.get(l) ?? [])]) {
          if (seen.has(y)) continue
          seen.add(y)
          for (const d of lowersTo(y)) if (!(d >= 0xd800 && d <= 0xdfff)) matched.push(d)
        }
      }
    }
    const ranges = rangesOf(matched)
    return items.negated ? complement(ranges, true) : ranges
  }
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
