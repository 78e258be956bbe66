/**
 * Python's str methods that scikit-learn's preprocessing calls, reproduced exactly:
 * `str.lower()` (full case mapping, Final_Sigma), `unicodedata.normalize('NFKD')` and
 * `unicodedata.combining`, `str.split()` and `str.isspace()`, all at Python's Unicode
 * version (14.0 for Python 3.11), where Node's ICU is newer: a code point Python does
 * not know is left as it is, as Python leaves it.
 */
import { CodePointSet } from './code-point-set.js'
import { COMBINING_RANGES, DIGIT_RANGES, SPACE_RANGES, UNASSIGNED_RANGES, WORD_RANGES } from './unicode-tables.js'

export const WORD = new CodePointSet(WORD_RANGES)
export const DIGIT = new CodePointSet(DIGIT_RANGES)
export const SPACE = new CodePointSet(SPACE_RANGES)
/** `unicodedata.combining(c) != 0`. */
export const COMBINING = new CodePointSet(COMBINING_RANGES)
const UNASSIGNED = new CodePointSet(UNASSIGNED_RANGES)

// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/

export function isAscii (text: string): boolean {
  return ASCII.test(text)
}

/** Applies `convert` to the runs of code points Python knows, leaving the others untouched. */
function mapKnown (text: string, convert: (run: string) => string): string {
  let hasUnknown = false
  for (const ch of text) {
    if (UNASSIGNED.has(ch.codePointAt(0)!)) { hasUnknown = true; break }
  }
  if (!hasUnknown) return convert(text)
  let out = ''
  let run = ''
  for (const ch of text) {
    if (UNASSIGNED.has(ch.codePointAt(0)!)) {
      out += convert(run) + ch
      run = ''
    } else {
      run += ch
    }
  }
  return out + convert(run)
}

/** Python's `str.lower()`; JavaScript's toLowerCase has the same full mappings and Final_Sigma rule. */
export function pyLower (text: string): string {
  if (isAscii(text)) return text.toLowerCase()
  return mapKnown(text, run => run.toLowerCase())
}

/** `unicodedata.normalize('NFKD', text)`. */
export function pyNfkd (text: string): string {
  return mapKnown(text, run => run.normalize('NFKD'))
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
