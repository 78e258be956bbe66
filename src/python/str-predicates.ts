/**
 * Python 3.11's str predicates over a whole string (Objects/unicodeobject.c), by code
 * point, with Python's Unicode 14 properties: an empty string gives False, except for
 * isascii().
 */
import { ALPHA, DECIMAL, DIGIT, LOWER, NUMERIC, SPACE, TITLE, UPPER, charProps } from './char-props.js'
import { isAscii } from './code-point-runs.js'

/** True when `s` is not empty and every code point has one of the `bits`. */
function all (s: string, bits: number): boolean {
  if (s.length === 0) return false
  for (let i = 0; i < s.length; i++) {
    const cp = s.codePointAt(i)!
    if ((charProps(cp) & bits) === 0) return false
    if (cp > 0xffff) i++
  }
  return true
}

/** `s.isalpha()`: letters (categories Lu Ll Lt Lm Lo) only. */
export const pyIsAlpha = (s: string): boolean => all(s, ALPHA)
/** `s.isalnum()`: each character isalpha(), isdecimal(), isdigit() or isnumeric(). */
export const pyIsAlnum = (s: string): boolean => all(s, ALPHA | NUMERIC)
/** `s.isdecimal()`: decimal digits of any script ('٣'), not '²'. */
export const pyIsDecimal = (s: string): boolean => all(s, DECIMAL)
/** `s.isdigit()`: isdecimal() plus digits such as '²' and '①'. */
export const pyIsDigit = (s: string): boolean => all(s, DIGIT)
/** `s.isnumeric()`: isdigit() plus numerals such as '½', 'Ⅻ' and '七'. */
export const pyIsNumeric = (s: string): boolean => all(s, NUMERIC)
/** `s.isspace()`: Python's white space, including '\x1c'-'\x1f', '\x85' and '\u2028'. */
export const pyIsSpace = (s: string): boolean => all(s, SPACE)

/** `s.isascii()`: True for the empty string. */
export const pyIsAscii = (s: string): boolean => isAscii(s)

/** `s.islower()`: some cased character, and no uppercase or titlecase one. */
export function pyIsLower (s: string): boolean {
  let cased = false
  for (let i = 0; i < s.length; i++) {
    const cp = s.codePointAt(i)!
    const p = charProps(cp)
    if ((p & (UPPER | TITLE)) !== 0) return false
    if ((p & LOWER) !== 0) cased = true
    if (cp > 0xffff) i++
  }
  return cased
}

/** `s.isupper()`: some cased character, and no lowercase or titlecase one. */
export function pyIsUpper (s: string): boolean {
  let cased = false
  for (let i = 0; i < s.length; i++) {
    const cp = s.codePointAt(i)!
    const p = charProps(cp)
    if ((p & (LOWER | TITLE)) !== 0) return false
    if ((p & UPPER) !== 0) cased = true
    if (cp > 0xffff) i++
  }
  return cased
}

/**
 * `s.istitle()`: some cased character; uppercase and titlecase ones only after an
 * uncased one, lowercase ones only after a cased one.
 */
export function pyIsTitle (s: string): boolean {
  let cased = false
  let previousCased = false
  for (let i = 0; i < s.length; i++) {
    const cp = s.codePointAt(i)!
    const p = charProps(cp)
    if ((p & (UPPER | TITLE)) !== 0) {
      if (previousCased) return false
      previousCased = true
      cased = true
    } else if ((p & LOWER) !== 0) {
      if (!previousCased) return false
      previousCased = true
      cased = true
    } else {
      previousCased = false
    }
    if (cp > 0xffff) i++
  }
  return cased
}
