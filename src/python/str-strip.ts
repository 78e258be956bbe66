/**
 * Python 3.11's `str.strip()`, `lstrip()` and `rstrip()` by code point: with no argument
 * (or None) they remove Python's white space (str.isspace(): also '\x1c'-'\x1f', '\x85',
 * '\u2028' ...), otherwise any of the given characters.
 */
import { SPACE, charProps } from './char-props.js'

export type StripSide = 'both' | 'left' | 'right'

/** Every white-space code point is in the BMP and none is a surrogate, so units suffice. */
const isSpaceUnit = (unit: number): boolean => unit < 0x80 ? unit === 0x20 || (unit >= 0x09 && unit <= 0x0d) || (unit >= 0x1c && unit <= 0x1f) : (charProps(unit) & SPACE) !== 0

function stripSpace (s: string, side: StripSide): string {
  let start = 0
  let end = s.length
  if (side !== 'right') while (start < end && isSpaceUnit(s.charCodeAt(start))) start++
  if (side !== 'left') while (end > start && isSpaceUnit(s.charCodeAt(end - 1))) end--
  return start === 0 && end === s.length ? s : s.slice(start, end)
}

let lastChars = ''
let lastSet: ReadonlySet<number> = new Set()

/** The code points of `chars`, for membership tests (the last set is kept: a step strips the same characters from every text). */
function codePointSet (chars: string): ReadonlySet<number> {
  if (chars === lastChars) return lastSet
  const set = new Set<number>()
  for (const ch of chars) set.add(ch.codePointAt(0)!)
  lastChars = chars
  lastSet = set
  return set
}

function stripChars (s: string, set: ReadonlySet<number>, side: StripSide): string {
  if (set.size === 0 || s.length === 0) return s
  let start = 0
  let end = s.length
  if (side !== 'right') {
    while (start < end) {
      const cp = s.codePointAt(start)!
      if (!set.has(cp)) break
      start += cp > 0xffff ? 2 : 1
    }
  }
  if (side !== 'left') {
    while (end > start) {
      const low = s.charCodeAt(end - 1)
      // A pair ends here when a low surrogate follows a high one (and the pair is inside the kept part).
      const pair = low >= 0xdc00 && low <= 0xdfff && end - 2 >= start && (s.charCodeAt(end - 2) & 0xfc00) === 0xd800
      const cp = pair ? s.codePointAt(end - 2)! : low
      if (!set.has(cp)) break
      end -= pair ? 2 : 1
    }
  }
  return start === 0 && end === s.length ? s : s.slice(start, end)
}

function strip (s: string, chars: string | null | undefined, side: StripSide): string {
  return chars === undefined || chars === null ? stripSpace(s, side) : stripChars(s, codePointSet(chars), side)
}

/** `s.strip(chars)`; `chars` undefined or null strips white space. */
export const pyStrip = (s: string, chars?: string | null): string => strip(s, chars, 'both')
/** `s.lstrip(chars)`; `chars` undefined or null strips white space. */
export const pyLstrip = (s: string, chars?: string | null): string => strip(s, chars, 'left')
/** `s.rstrip(chars)`; `chars` undefined or null strips white space. */
export const pyRstrip = (s: string, chars?: string | null): string => strip(s, chars, 'right')

/** A strip with its characters read once, for calling per text. */
export function createStripper (chars: string | null | undefined, side: StripSide = 'both'): (s: string) => string {
  if (chars === undefined || chars === null) return s => stripSpace(s, side)
  const set = codePointSet(chars)
  return s => stripChars(s, set, side)
}
