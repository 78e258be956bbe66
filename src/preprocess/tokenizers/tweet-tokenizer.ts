/**
 * NLTK's `TweetTokenizer(preserve_case, reduce_len, strip_handles, match_phone_numbers).tokenize`
 * (nltk/tokenize/casual.py), exactly as NLTK 3.8 or 3.10.3 computes it: HTML entities to
 * characters (as casual.py's `_replace_html_entities` does, not `html.unescape`), handles
 * removed, lengthening reduced, runs of one non-alphanumeric character cut to three, then
 * the word pattern's matches, lowercased unless an emoticon. NLTK compiles every pattern
 * with the third-party `regex` module, so they are translated with its semantics
 * (regex-module.ts), with the tables of the release each NLTK was checked with: 2022.10.31
 * (Debian's, beside NLTK 3.8) and 2026.9.29 (beside 3.10.3). The patterns are NLTK's own
 * strings (tweet-patterns-*.ts, written by tweet-patterns.py); 3.10.3 bounds some
 * repetitions against catastrophic backtracking and cuts runs of any character that is
 * no letter or number (3.8: no ASCII letter or digit).
 *
 * One difference is left: numeric references to the two halves of a surrogate pair
 * ('&#55357;&#56832;') give Python two lone surrogates, tokenized apart, where a JavaScript
 * string holds them as the one character they encode.
 */
import { INVALID_CHARREFS, NAME2CODEPOINT } from '../../python/html-entities.js'
import { translatePythonPattern } from '../../python/python-regex.js'
import { pyLower } from '../../python/python-str.js'
import { compileReFindall, compileReSub, type EngineOptions } from '../../python/re-functions.js'
import { REGEX_2022_10_31 } from '../../python/regex-module-2022-10-31.js'
import { REGEX_2026_9_29 } from '../../python/regex-module-2026-9-29.js'
import { regexModuleSemantics } from '../../python/regex-module.js'
import { DIGIT, SPACE } from '../../python/python-str.js'
import { DECIMAL_RANGES } from '../../python/unicode-tables.js'
import type { TokenizerNltkVersion } from './nltk-version.js'
import { TWEET_PATTERNS_3_10 } from './tweet-patterns-3-10.js'
import { TWEET_PATTERNS_3_8 } from './tweet-patterns-3-8.js'
export type { TweetPatterns } from './tweet-patterns.js'

export interface TweetTokenizerOptions {
  readonly preserveCase: boolean
  readonly reduceLen: boolean
  readonly stripHandles: boolean
  readonly matchPhoneNumbers: boolean
}

const BY_VERSION = {
  '3.8': { patterns: TWEET_PATTERNS_3_8, tables: REGEX_2022_10_31 },
  '3.10': { patterns: TWEET_PATTERNS_3_10, tables: REGEX_2026_9_29 }
} as const

const VERBOSE_I = ['VERBOSE', 'IGNORECASE', 'UNICODE']
const NAMED = new Map(NAME2CODEPOINT)
const CP1252 = new Map(INVALID_CHARREFS)
/** Bytes 0x80-0x9F that Python's cp1252 codec cannot decode (UnicodeDecodeError, a ValueError). */
const CP1252_UNDEFINED = new Set([0x81, 0x8d, 0x8f, 0x90, 0x9d])
/** CPython's int_max_str_digits: a longer decimal string raises ValueError. */
const MAX_STR_DIGITS = 4300

/**
 * Python's `int(s, base)` for base 10 or 16, or undefined where it raises ValueError. As
 * CPython reads a str: a non-ASCII decimal digit (any script) counts as its ASCII digit and
 * non-ASCII white space as a space, any other non-ASCII character is an error; then ASCII
 * white space (' \t\n\r\v\f', not '\x1c'-'\x1f') around, a sign, for 16 an optional 0x
 * prefix, digits with single underscores between them (and after the prefix).
 */
function pyInt (s: string, base: 10 | 16): bigint | undefined {
  let ascii = ''
  for (const ch of s) {
    const cp = ch.codePointAt(0)!
    if (cp < 0x80) ascii += ch
    else if (DIGIT.has(cp)) ascii += String(decimalValue(cp))
    else if (SPACE.has(cp)) ascii += ' '
    else return undefined
  }
  const m = (base === 10 ? /^[ \t\n\r\v\f]*([+-]?)((?:[0-9]_?)*[0-9])[ \t\n\r\v\f]*$/ : /^[ \t\n\r\v\f]*([+-]?)(?:0[xX]_?)?((?:[0-9a-fA-F]_?)*[0-9a-fA-F])[ \t\n\r\v\f]*$/).exec(ascii)
  if (m === null) return undefined
  const digits = m[2]!.replaceAll('_', '')
  if (base === 10 && digits.length > MAX_STR_DIGITS) return undefined
  const value = BigInt((base === 16 ? '0x' : '') + digits)
  return m[1] === '-' ? -value : value
}

/**
 * The value of a decimal digit: Python's decimal digits come in runs of ten from 0, so
 * each range of them starts at a 0 (checked for Python 3.11's 62 ranges).
 */
function decimalValue (cp: number): number {
  for (let i = 0; i < DECIMAL_RANGES.length; i += 2) {
    if (cp >= DECIMAL_RANGES[i]! && cp <= DECIMAL_RANGES[i + 1]!) return (cp - DECIMAL_RANGES[i]!) % 10
  }
  throw new Error(`not a decimal digit: U+${cp.toString(16)}`)
}

/** `_replace_html_entities(text)`'s replacement for one `&...;` match (groups: '#' or '#x', 'x', body). */
function convertEntity (hashes: string, x: string, body: string): string {
  let n: bigint | undefined
  if (hashes !== '') {
    n = pyInt(body, x !== '' ? 16 : 10)
    if (n !== undefined && n >= 0x80n && n <= 0x9fn) {
      if (CP1252_UNDEFINED.has(Number(n))) return ''
      return CP1252.get(Number(n))!
    }
  } else {
    const cp = NAMED.get(body)
    n = cp === undefined ? undefined : BigInt(cp)
  }
  // chr(n): ValueError or OverflowError outside 0..0x10FFFF, both give ''; surrogates are kept.
  if (n === undefined || n < 0n || n > 0x10ffffn) return ''
  return String.fromCodePoint(Number(n))
}

export type WordSplitter = (text: string) => string[]

/** `TweetTokenizer(...).tokenize` as NLTK `version` does it. */
export function createTweetTokenizer (version: TokenizerNltkVersion, options: TweetTokenizerOptions): WordSplitter {
  const { patterns, tables } = BY_VERSION[version]
  const engine: EngineOptions = { regexModule: regexModuleSemantics(tables) }
  const entity = translatePythonPattern(patterns.entity, { label: 'ENT_RE', regexModule: engine.regexModule })
  const entityRegex = new RegExp(entity.regex.source, 'gu')
  const removeHandles = compileReSub(patterns.handles, ' ', [], 0, engine)
  const reduceLengthening = compileReSub(patterns.reduceLengthening, String.raw`\1\1\1`, [], 0, engine)
  const hang = compileReSub(patterns.hang, String.raw`\1\1\1`, [], 0, engine)
  const words = compileReFindall(options.matchPhoneNumbers ? patterns.phoneWord : patterns.word, VERBOSE_I, engine)
  const emoticon = new RegExp(translatePythonPattern(patterns.emoticon, { flags: { verbose: true, ignoreCase: true, unicode: true }, label: 'EMOTICON_RE', regexModule: engine.regexModule }).regex.source, 'u')
  return text => {
    let t = text.replace(entityRegex, (_, hashes: string, x: string, body: string) => convertEntity(hashes, x, body))
    if (options.stripHandles) t = removeHandles(t)
    if (options.reduceLen) t = reduceLengthening(t)
    const found = words(hang(t))
    return options.preserveCase ? found : found.map(w => emoticon.test(w) ? w : pyLower(w))
  }
}
