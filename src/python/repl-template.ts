/**
 * A `re.sub` replacement string read as Python 3.11 reads it (re/_parser.py
 * `parse_template`): literal text and group references.
 *
 * - `\1`..`\99` and `\g<n>` / `\g<name>` refer to groups (`\g<0>` to the whole match);
 *   three octal digits (`\101`) and `\0`, `\01`, `\012` are characters;
 * - `\a \b \f \n \r \t \v \\` are characters; an unknown escape of an ASCII letter
 *   (`\x41`, `\d`, `\u00e9`) is an error; any other (`\.`, `\-`, `\é`) stays as written,
 *   backslash included;
 * - `\g<...>` takes what Python's int() reads (' 1', '+1', '1_0', '-0' are accepted, as
 *   3.11 does with a DeprecationWarning), or an identifier naming a group.
 */
import { ServiceError } from '../errors.js'
import { isAscii } from './code-point-runs.js'

/** Literal text, or the number of the group whose text goes there (unmatched: ''). */
export type TemplatePart = string | number

const ESCAPES: Readonly<Record<string, string>> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' }
/** re/_constants.py MAXGROUPS on a 64-bit build. */
const MAXGROUPS = 2147483647
/** What Python's int() accepts from ASCII text: white space is str.isspace() (so also \x1c-\x1f). */
// eslint-disable-next-line no-control-regex
const PY_INT = /^[ \t\n\v\f\r\x1c-\x1f]*([+-]?)([0-9](?:_?[0-9])*)[ \t\n\v\f\r\x1c-\x1f]*$/
const ASCII_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/
const isOctal = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '7'
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9'

/**
 * Parses `repl` for a pattern with `groups` groups named as in `groupIndex`.
 * @throws ServiceError ERR_PATTERN_UNSUPPORTED where Python raises re.error or IndexError
 * (naming `describe`), and for a `\g<...>` holding non-ASCII text, which is refused.
 */
export function parseTemplate (repl: string, groups: number, groupIndex: ReadonlyMap<string, number>, describe: string): TemplatePart[] {
  const fail = (what: string): never => {
    throw new ServiceError('ERR_PATTERN_UNSUPPORTED', `${describe}: the replacement ${JSON.stringify(repl)} has ${what}`)
  }
  const cps = Array.from(repl)
  const parts: TemplatePart[] = []
  let literal = ''
  const addGroup = (index: number): void => {
    if (index > groups) fail(`an invalid group reference ${index}`)
    if (literal !== '') parts.push(literal)
    literal = ''
    parts.push(index)
  }
  for (let i = 0; i < cps.length;) {
    const c = cps[i++]!
    if (c !== '\\') {
      literal += c
      continue
    }
    const e = cps[i++]
    if (e === undefined) return fail('a bad escape (end of pattern)')
    if (e === 'g') {
      if (cps[i] !== '<') return fail('a missing < after \\g')
      const close = cps.indexOf('>', i + 1)
      if (close < 0) return fail(cps.length === i + 1 ? 'a missing group name' : 'a missing >, unterminated name')
      const name = cps.slice(i + 1, close).join('')
      i = close + 1
      if (name === '') return fail('a missing group name')
      if (!isAscii(name)) return fail(`the group name ${JSON.stringify(name)}, which is not ASCII`)
      if (ASCII_IDENTIFIER.test(name)) {
        const index = groupIndex.get(name)
        if (index === undefined) return fail(`the unknown group name '${name}'`)
        addGroup(index)
        continue
      }
      const m = PY_INT.exec(name)
      if (m === null || (m[1] === '-' && /[1-9]/.test(m[2]!))) return fail(`a bad character in group name '${name}'`)
      const digits = m[2]!.replaceAll('_', '')
      // Python's int() refuses over 4300 digits; any such number is past the groups anyway.
      const index = digits.length > 12 ? Infinity : Number(digits)
      if (index >= MAXGROUPS || index > groups) return fail(`an invalid group reference ${digits.length > 12 ? digits.slice(0, 12) + '...' : index}`)
      addGroup(index)
    } else if (e === '0') {
      let oct = ''
      while (oct.length < 2 && isOctal(cps[i])) oct += cps[i++]
      literal += String.fromCharCode(parseInt('0' + oct, 8) & 0xff)
    } else if (isDigit(e)) {
      let digits = e
      if (isDigit(cps[i])) {
        digits += cps[i++]
        if (isOctal(e) && isOctal(digits[1]) && isOctal(cps[i])) {
          digits += cps[i++]
          const value = parseInt(digits, 8)
          if (value > 0o377) fail(`the octal escape value \\${digits} outside of range 0-0o377`)
          literal += String.fromCharCode(value)
          continue
        }
      }
      addGroup(Number(digits))
    } else if (Object.hasOwn(ESCAPES, e)) {
      literal += ESCAPES[e]
    } else if (/^[A-Za-z]$/.test(e)) {
      fail(`the bad escape \\${e}`)
    } else {
      literal += '\\' + e
    }
  }
  if (literal !== '') parts.push(literal)
  return parts
}
