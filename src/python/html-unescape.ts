/**
 * Python 3.11's `html.unescape(s)` (Lib/html/__init__.py), without its regex: each '&'
 * starts a reference as `_charref` reads it,
 *
 *     &(#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[^\t\n\f <&#;]{1,32};?)
 *
 * and `_replace_charref` decides its text: numeric references through
 * `_invalid_charrefs`, surrogates and values past U+10FFFF as U+FFFD, `_invalid_codepoints`
 * as nothing; names through html.entities.html5, else the longest prefix that is an
 * entity without ';' ('&notit;' gives '¬it;'), else the text as it was.
 */
import { ServiceError } from '../errors.js'
import { HTML5_ENTITIES, INVALID_CHARREFS, INVALID_CODEPOINTS } from './html-entities.js'

interface Tables {
  readonly entities: ReadonlyMap<string, string>
  readonly invalidRefs: ReadonlyMap<number, string>
  readonly invalidCodePoints: ReadonlySet<number>
}

let tables: Tables | undefined

function getTables (): Tables {
  tables ??= {
    entities: new Map(HTML5_ENTITIES),
    invalidRefs: new Map(INVALID_CHARREFS),
    invalidCodePoints: new Set(INVALID_CODEPOINTS)
  }
  return tables
}

/** Python 3.11's int() refuses longer decimal strings (sys.int_info.default_max_str_digits). */
const MAX_STR_DIGITS = 4300

const isDigit = (u: number): boolean => u >= 0x30 && u <= 0x39
const isHexDigit = (u: number): boolean => isDigit(u) || (u >= 0x41 && u <= 0x46) || (u >= 0x61 && u <= 0x66)
/** Characters a name cannot hold: \t \n \f space < & # ; */
const isNameStop = (u: number): boolean => u === 0x09 || u === 0x0a || u === 0x0c || u === 0x20 || u === 0x3c || u === 0x26 || u === 0x23 || u === 0x3b

/** The value of a run of digits, or Infinity past 0x10FFFF (only its being out of range matters). */
function parseDigits (digits: string, radix: 10 | 16): number {
  let i = 0
  while (i < digits.length - 1 && digits.charCodeAt(i) === 0x30) i++
  const significant = digits.slice(i)
  return significant.length > 8 ? Infinity : parseInt(significant, radix)
}

function numericText (num: number, t: Tables): string {
  const fixed = t.invalidRefs.get(num)
  if (fixed !== undefined) return fixed
  if ((num >= 0xd800 && num <= 0xdfff) || num > 0x10ffff) return '\ufffd'
  if (t.invalidCodePoints.has(num)) return ''
  return String.fromCodePoint(num)
}

/**
 * `html.unescape(s)`.
 * @throws ServiceError ERR_VALIDATION for a decimal reference of more than 4300 digits,
 * where Python's int() raises ValueError.
 */
export function htmlUnescape (s: string): string {
  let amp = s.indexOf('&')
  if (amp < 0) return s
  const t = getTables()
  let out = ''
  let copied = 0
  while (amp >= 0) {
    const i = amp + 1
    let end = -1
    let text = ''
    if (s.charCodeAt(i) === 0x23) {
      const hexRef = (s.charCodeAt(i + 1) | 0x20) === 0x78 && isHexDigit(s.charCodeAt(i + 2))
      if (hexRef || isDigit(s.charCodeAt(i + 1))) {
        const first = hexRef ? i + 2 : i + 1
        let j = first
        while (j < s.length && (hexRef ? isHexDigit(s.charCodeAt(j)) : isDigit(s.charCodeAt(j)))) j++
        const digits = s.slice(first, j)
        if (!hexRef && digits.length > MAX_STR_DIGITS) {
          throw new ServiceError('ERR_VALIDATION', `html.unescape: a numeric character reference has ${digits.length} digits; Python's int() refuses more than ${MAX_STR_DIGITS}`)
        }
        end = s.charCodeAt(j) === 0x3b ? j + 1 : j
        text = numericText(parseDigits(digits, hexRef ? 16 : 10), t)
      }
    } else {
      // Up to 32 code points that are no stop character, then an optional ';'.
      let j = i
      let points = 0
      while (j < s.length && points < 32 && !isNameStop(s.charCodeAt(j))) {
        j += (s.charCodeAt(j) & 0xfc00) === 0xd800 && (s.charCodeAt(j + 1) & 0xfc00) === 0xdc00 ? 2 : 1
        points++
      }
      if (points > 0) {
        end = s.charCodeAt(j) === 0x3b ? j + 1 : j
        text = namedText(s.slice(i, end), t)
      }
    }
    if (end >= 0) {
      out += s.slice(copied, amp) + text
      copied = end
      amp = s.indexOf('&', end)
    } else {
      amp = s.indexOf('&', i)
    }
  }
  return copied === 0 ? s : out + s.slice(copied)
}

/** A named reference (without its '&'): the entity, or the longest entity prefix of two or more characters. */
function namedText (name: string, t: Tables): string {
  const whole = t.entities.get(name)
  if (whole !== undefined) return whole
  // Entity names are ASCII, so a prefix that is one is measured in units as well as code points.
  const cps = Array.from(name)
  for (let x = cps.length - 1; x > 1; x--) {
    const prefix = cps.slice(0, x).join('')
    const value = t.entities.get(prefix)
    if (value !== undefined) return value + cps.slice(x).join('')
  }
  return '&' + name
}
