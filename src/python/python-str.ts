/**
 * Python's str methods that scikit-learn's preprocessing calls, reproduced exactly:
 * `str.lower()` (full case mapping, Final_Sigma), `unicodedata.normalize('NFKD')` and
 * `unicodedata.combining`, `str.split()` and `str.isspace()`, all at Python's Unicode
 * version (14.0 for Python 3.11), where Node's ICU is newer: a code point Python does
 * not know is left as it is, as Python leaves it.
 */
import { CodePointSet } from './code-point-set.js'
import { mapByCodePoint } from './code-point-runs.js'
import { COMBINING_RANGES, DECIMAL_RANGES, SPACE_RANGES, UNASSIGNED_RANGES, WORD_RANGES } from './unicode-tables.js'

export const WORD = new CodePointSet(WORD_RANGES)
/** `\d` in a str pattern: str.isdecimal(). */
export const DIGIT = new CodePointSet(DECIMAL_RANGES)
export const SPACE = new CodePointSet(SPACE_RANGES)
/** `unicodedata.combining(c) != 0`. */
export const COMBINING = new CodePointSet(COMBINING_RANGES)
const UNASSIGNED = new CodePointSet(UNASSIGNED_RANGES)

/** A code point Python does not know, as itself; undefined for one it maps like JavaScript. */
const unknownAsItself = (cp: number): string | undefined => UNASSIGNED.has(cp) ? String.fromCodePoint(cp) : undefined

/** Python's `str.lower()`; JavaScript's toLowerCase has the same full mappings and Final_Sigma rule. */
export function pyLower (text: string): string {
  return mapByCodePoint(text, run => run.toLowerCase(), unknownAsItself)
}

/** `str.lower()` of the one BMP code point `c` (not a surrogate): pyLower of it, without a pass over a string. */
export function pyLowerUnit (c: number): string {
  const ch = String.fromCharCode(c)
  return c >= 0x80 && UNASSIGNED.has(c) ? ch : ch.toLowerCase()
}

/** `unicodedata.normalize('NFKD', text)`. */
export function pyNfkd (text: string): string {
  return mapByCodePoint(text, run => run.normalize('NFKD'), unknownAsItself)
}

/** One or more of Python's white-space code points (all in the BMP), for a native split. */
const SPACE_RUN = new RegExp(`[${Array.from({ length: SPACE_RANGES.length / 2 }, (_, i) => `\\u{${SPACE_RANGES[2 * i]!.toString(16)}}-\\u{${SPACE_RANGES[2 * i + 1]!.toString(16)}}`).join('')}]+`, 'u')

/** Python's `str.split()` with no arguments: runs of white space separate, none at the ends. */
export function pySplit (text: string): string[] {
  const parts = text.split(SPACE_RUN)
  // A leading or trailing run leaves an empty string at that end; Python keeps none.
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop()
  if (parts.length > 0 && parts[0] === '') parts.shift()
  return parts
}
