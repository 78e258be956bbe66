/**
 * Python `re` patterns (str patterns, Python 3.11) translated to JavaScript RegExp
 * with the same meaning, for scikit-learn's `token_pattern`:
 *
 * - `\w \d \s` (and `\W \D \S`, in and out of classes) use Python's own Unicode tables,
 *   so `\w` is str.isalnum() or '_' and does not match combining marks; `(?a)` makes
 *   them ASCII. `\b \B` become look-arounds over that `\w`.
 * - `.` excludes only '\n' (all with `(?s)`); `$` also matches before a final '\n';
 *   `(?m)` anchors at '\n' only; `\A \Z`, `{,n}`, a `{` that is no quantifier,
 *   `(?P<name>...)`, `(?P=name)`, `(?#...)` and `(?x)` verbose mode follow Python.
 * - `(?i)` follows sre's own case folding (see sre-ignore-case.ts), not JavaScript's /i.
 *
 * What has no faithful translation is refused with ERR_PATTERN_UNSUPPORTED naming the
 * construct: conditionals, atomic groups, possessive quantifiers, scoped flags, `(?L)`,
 * `\N{...}`, and patterns that can match the empty string (Python's findall then
 * differs from any JavaScript loop).
 */
import { ServiceError } from '../../errors.js'
import { DIGIT, SPACE, WORD } from './python-str.js'
import { hasCased, ignoreCaseRanges, isCased, type ClassItems } from './sre-ignore-case.js'
import { DIGIT_RANGES, SPACE_RANGES, WORD_RANGES } from './unicode-tables.js'

export interface TranslatedPattern {
  /** The JavaScript regular expression (flags 'gv'). */
  readonly regex: RegExp
  /** Capturing groups: findall returns group 1 when there is exactly one. */
  readonly groups: number
  /**
   * When the pattern only finds maximal runs of `\w` of at least this many code points
   * (the default `(?u)\b\w\w+\b` and its kin), a scanner can replace the regex.
   */
  readonly wordRunMinLength: number | undefined
}

interface Flags { ascii: boolean, ignoreCase: boolean, multiline: boolean, dotAll: boolean, verbose: boolean }

const ASCII_WORD = [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a]
const ASCII_DIGIT = [0x30, 0x39]
const ASCII_SPACE = [0x09, 0x0d, 0x20, 0x20]

function unsupported (construct: string, pattern: string): never {
  throw new ServiceError('ERR_PATTERN_UNSUPPORTED', `token_pattern ${JSON.stringify(pattern)}: ${construct} cannot be translated`)
}

const hex = (cp: number): string => `\\u{${cp.toString(16)}}`

function rangesSource (ranges: readonly number[]): string {
  let out = ''
  for (let i = 0; i < ranges.length; i += 2) {
    out += ranges[i] === ranges[i + 1] ? hex(ranges[i]!) : `${hex(ranges[i]!)}-${hex(ranges[i + 1]!)}`
  }
  return out
}

class Translator {
  readonly #src: string[]
  readonly #pattern: string
  readonly #flags: Flags
  #pos = 0
  groups = 0
  readonly #word: string
  readonly #digit: string
  readonly #space: string

  constructor (pattern: string, flags: Flags, start: number) {
    this.#pattern = pattern
    this.#src = Array.from(pattern)
    this.#flags = flags
    this.#pos = start
    this.#word = rangesSource(flags.ascii ? ASCII_WORD : WORD_RANGES)
    this.#digit = rangesSource(flags.ascii ? ASCII_DIGIT : DIGIT_RANGES)
    this.#space = rangesSource(flags.ascii ? ASCII_SPACE : SPACE_RANGES)
  }

  #peek (offset = 0): string | undefined {
    return this.#src[this.#pos + offset]
  }

  #fail (construct: string): never {
    return unsupported(construct, this.#pattern)
  }

  /** Skips white space and comments in verbose mode. */
  #skipVerbose (): void {
    if (!this.#flags.verbose) return
    for (;;) {
      const c = this.#peek()
      if (c !== undefined && /\s/.test(c)) this.#pos++
      else if (c === '#') {
        while (this.#peek() !== undefined && this.#peek() !== '\n') this.#pos++
      } else return
    }
  }

  translate (): string {
    const out = this.#alternation()
    if (this.#pos < this.#src.length) this.#fail(`unbalanced ')' at ${this.#pos}`)
    return out
  }

  #alternation (): string {
    const branches = [this.#sequence()]
    while (this.#peek() === '|') {
      this.#pos++
      branches.push(this.#sequence())
    }
    return branches.join('|')
  }

  #sequence (): string {
    let out = ''
    for (;;) {
      this.#skipVerbose()
      const c = this.#peek()
      if (c === undefined || c === '|' || c === ')') return out
      const atom = this.#atom()
      out += atom.quantifiable ? atom.src + this.#quantifier() : atom.src
    }
  }

  #quantifier (): string {
    this.#skipVerbose()
    const c = this.#peek()
    let q = ''
    if (c === '*' || c === '+' || c === '?') {
      this.#pos++
      q = c
    } else if (c === '{') {
      const rest = this.#src.slice(this.#pos).join('')
      const m = /^\{(\d*)(?:(,)(\d*))?\}/.exec(rest)
      if (m === null || (m[1] === '' && m[2] === undefined)) return ''
      this.#pos += Array.from(m[0]).length
      const min = m[1] === '' ? '0' : m[1]!
      q = m[2] === undefined ? `{${min}}` : `{${min},${m[3] ?? ''}}`
    } else {
      return ''
    }
    if (this.#peek() === '?') {
      this.#pos++
      q += '?'
    } else if (this.#peek() === '+') {
      this.#fail('a possessive quantifier')
    }
    return q
  }

  #atom (): { src: string, quantifiable: boolean } {
    const c = this.#src[this.#pos++]!
    switch (c) {
      case '(': return { src: this.#group(), quantifiable: true }
      case '[': return { src: this.#class(), quantifiable: true }
      case '.': return { src: this.#flags.dotAll ? '[\\s\\S]' : '[^\\n]', quantifiable: true }
      case '^': return { src: this.#flags.multiline ? '(?<![^\\n])' : '^', quantifiable: false }
      case '$': return { src: this.#flags.multiline ? '(?=\\n|$)' : '(?=\\n?$)', quantifiable: false }
      case '\\': return this.#escape()
      case '*': case '+': case '?': return this.#fail(`nothing to repeat at ${this.#pos - 1}`)
      case '{': return { src: '\\{', quantifiable: true }
      default: return { src: this.#literal(c.codePointAt(0)!), quantifiable: true }
    }
  }

  #group (): string {
    if (this.#peek() !== '?') {
      this.groups++
      return `(${this.#groupBody()})`
    }
    this.#pos++
    const c = this.#src[this.#pos++]
    switch (c) {
      case ':': return `(?:${this.#groupBody()})`
      case '=': return `(?=${this.#groupBody()})`
      case '!': return `(?!${this.#groupBody()})`
      case '#':
        while (this.#peek() !== undefined && this.#peek() !== ')') this.#pos++
        this.#pos++
        return '(?:)'
      case '<': {
        const d = this.#src[this.#pos++]
        if (d === '=' || d === '!') return `(?<${d}${this.#groupBody()})`
        this.#pos--
        return this.#fail("'(?<' without '=' or '!'")
      }
      case 'P': {
        const d = this.#src[this.#pos++]
        const name = this.#readName(d === '<' ? '>' : ')')
        if (d === '<') {
          this.groups++
          return `(?<${name}>${this.#groupBody()})`
        }
        if (d === '=') return this.#flags.ignoreCase ? this.#fail('a group reference under (?i)') : `\\k<${name}>`
        return this.#fail('(?P without < or =')
      }
      case '(': return this.#fail('a conditional group (?(...)')
      case '>': return this.#fail('an atomic group (?>...)')
      default: return this.#fail(`the group (?${c ?? ''}: inline flags are only allowed at the start`)
    }
  }

  #readName (end: string): string {
    let name = ''
    while (this.#peek() !== undefined && this.#peek() !== end) name += this.#src[this.#pos++]
    if (this.#peek() !== end || !/^[A-Za-z_]\w*$/.test(name)) this.#fail(`bad group name '${name}'`)
    this.#pos++
    return name
  }

  #groupBody (): string {
    const body = this.#alternation()
    if (this.#src[this.#pos++] !== ')') this.#fail('a missing )')
    return body
  }

  #boundary (negated: boolean): string {
    const w = `[${this.#word}]`
    return negated ? `(?:(?<=${w})(?=${w})|(?<!${w})(?!${w}))` : `(?:(?<=${w})(?!${w})|(?<!${w})(?=${w}))`
  }

  /** A class escape (\w \W \d \D \s \S) as class content, or undefined. */
  #classEscape (c: string): string | undefined {
    switch (c) {
      case 'w': return `[${this.#word}]`
      case 'W': return `[^${this.#word}]`
      case 'd': return `[${this.#digit}]`
      case 'D': return `[^${this.#digit}]`
      case 's': return `[${this.#space}]`
      case 'S': return `[^${this.#space}]`
      default: return undefined
    }
  }

  #escape (): { src: string, quantifiable: boolean } {
    const c = this.#src[this.#pos++]
    if (c === undefined) return this.#fail('a trailing backslash')
    const cls = this.#classEscape(c)
    if (cls !== undefined) return { src: cls, quantifiable: true }
    switch (c) {
      case 'b': return { src: this.#boundary(false), quantifiable: false }
      case 'B': return { src: this.#boundary(true), quantifiable: false }
      case 'A': return { src: '^', quantifiable: false }
      case 'Z': return { src: '$', quantifiable: false }
    }
    if (c >= '1' && c <= '9') {
      const [n1, n2] = [this.#peek() ?? '', this.#peek(1) ?? '']
      // Python reads three octal digits as a character, one or two digits as a group reference.
      if (c <= '7' && /[0-7]/.test(n1) && /[0-7]/.test(n2)) {
        this.#pos += 2
        const cp = parseInt(c + n1 + n2, 8)
        if (cp > 0o377) this.#fail(`the octal escape \\${c}${n1}${n2}`)
        return { src: this.#literal(cp), quantifiable: true }
      }
      let digits = c
      if (/[0-9]/.test(n1)) {
        digits += n1
        this.#pos++
      }
      if (this.#flags.ignoreCase) this.#fail('a group reference under (?i)')
      return { src: `\\${digits}`, quantifiable: true }
    }
    return { src: this.#literal(this.#literalEscape(c)), quantifiable: true }
  }

  /** The code point of a literal escape (\n, \x41, \u00e9, \012, \.), shared by classes. */
  #literalEscape (c: string): number {
    const simple: Record<string, number> = { n: 10, t: 9, r: 13, f: 12, v: 11, a: 7 }
    if (Object.hasOwn(simple, c)) return simple[c]!
    const fixed = (n: number): number => {
      const digits = this.#src.slice(this.#pos, this.#pos + n).join('')
      if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(digits)) this.#fail(`an incomplete \\${c} escape`)
      this.#pos += n
      const cp = parseInt(digits, 16)
      if (cp > 0x10ffff) this.#fail(`the escape \\${c}${digits}`)
      return cp
    }
    if (c === 'x') return fixed(2)
    if (c === 'u') return fixed(4)
    if (c === 'U') return fixed(8)
    if (c === '0') {
      let oct = ''
      while (oct.length < 2 && /[0-7]/.test(this.#peek() ?? '')) oct += this.#src[this.#pos++]
      return parseInt(oct === '' ? '0' : oct, 8)
    }
    if (c === 'N') return this.#fail('a named character escape \\N{...}')
    if (/[A-Za-z0-9]/.test(c)) return this.#fail(`the bad escape \\${c}`)
    return c.codePointAt(0)!
  }

  #class (): string {
    const items = this.#classItems()
    if (this.#flags.ignoreCase && hasCased(items)) return `[${rangesSource(ignoreCaseRanges(items))}]`
    let out = rangesSource(items.ranges)
    for (const src of items.escapeSources) out += src
    return items.negated ? `[^${out}]` : `[${out}]`
  }

  #classItems (): ClassItems & { escapeSources: string[] } {
    let negated = false
    if (this.#peek() === '^') {
      negated = true
      this.#pos++
    }
    const ranges: number[] = []
    const escapes: Array<(cp: number) => boolean> = []
    const escapeSources: string[] = []
    let first = true
    for (;;) {
      const c = this.#src[this.#pos++]
      if (c === undefined) return this.#fail('an unterminated character class')
      if (c === ']' && !first) break
      first = false
      let low: number
      if (c === '\\') {
        const e = this.#src[this.#pos++]
        if (e === undefined) return this.#fail('a trailing backslash')
        const cls = this.#classEscape(e)
        if (cls !== undefined) {
          escapeSources.push(cls)
          escapes.push(this.#classPredicate(e))
          continue
        }
        low = e === 'b' ? 8 : this.#literalEscape(e)
      } else {
        low = c.codePointAt(0)!
      }
      if (this.#peek() === '-' && this.#peek(1) !== undefined && this.#peek(1) !== ']') {
        this.#pos++
        let h = this.#src[this.#pos++]!
        let high: number
        if (h === '\\') {
          h = this.#src[this.#pos++] ?? ''
          if (this.#classEscape(h) !== undefined) return this.#fail('a range ending in a class escape')
          high = h === 'b' ? 8 : this.#literalEscape(h)
        } else {
          high = h.codePointAt(0)!
        }
        if (high < low) return this.#fail('a bad character range')
        ranges.push(low, high)
      } else {
        ranges.push(low, low)
      }
    }
    return { ranges, escapes, escapeSources, negated }
  }

  /** What a class escape matches, as a predicate (for IGNORECASE classes). */
  #classPredicate (c: string): (cp: number) => boolean {
    const ascii = this.#flags.ascii
    const word = (cp: number): boolean => ascii ? (cp < 128 && WORD.has(cp)) : WORD.has(cp)
    const digit = (cp: number): boolean => ascii ? (cp >= 0x30 && cp <= 0x39) : DIGIT.has(cp)
    const space = (cp: number): boolean => ascii ? (cp === 0x20 || (cp >= 9 && cp <= 13)) : SPACE.has(cp)
    switch (c) {
      case 'w': return word
      case 'W': return cp => !word(cp)
      case 'd': return digit
      case 'D': return cp => !digit(cp)
      case 's': return space
      default: return cp => !space(cp)
    }
  }

  /** A literal outside a class; under IGNORECASE a cased one matches what sre's LITERAL_UNI_IGNORE does. */
  #literal (cp: number): string {
    if (this.#flags.ignoreCase && isCased(cp)) return `[${rangesSource(ignoreCaseRanges({ ranges: [cp, cp], escapes: [], negated: false }))}]`
    return hex(cp)
  }
}

/** Leading global flags such as `(?u)` or `(?ix)`, and where the pattern proper starts. */
function readFlags (pattern: string): { flags: Flags, start: number } {
  const flags: Flags = { ascii: false, ignoreCase: false, multiline: false, dotAll: false, verbose: false }
  let start = 0
  const cps = Array.from(pattern)
  for (;;) {
    const m = /^\(\?([aiLmsux]+)\)/.exec(cps.slice(start).join(''))
    if (m === null) break
    for (const f of m[1]!) {
      if (f === 'L') unsupported('the locale flag (?L)', pattern)
      if (f === 'a') flags.ascii = true
      if (f === 'i') flags.ignoreCase = true
      if (f === 'm') flags.multiline = true
      if (f === 's') flags.dotAll = true
      if (f === 'x') flags.verbose = true
    }
    start += m[0].length
  }
  return { flags, start }
}

const WORD_RUN = /^(\\b)?((?:\\w)*)(?:\\w\+|\\w\{(\d+),\})(\\b)?$/

/**
 * Translates a Python str pattern.
 * @throws ServiceError ERR_PATTERN_UNSUPPORTED naming the construct it cannot translate.
 */
export function translatePythonPattern (pattern: string): TranslatedPattern {
  const { flags, start } = readFlags(pattern)
  const translator = new Translator(pattern, flags, start)
  const source = translator.translate()
  let regex: RegExp
  try {
    // No 'i' flag: case-insensitive literals and classes are already spelled out as sre matches them.
    regex = new RegExp(source, 'gv')
  } catch (err) {
    return unsupported(`the translation failed (${(err as Error).message.slice(0, 80)})`, pattern)
  }
  for (const probe of ['', 'a', ' ', 'a b', '1', '_', 'é']) {
    for (const m of probe.matchAll(regex)) {
      if (m[0] === '') unsupported('a pattern that can match the empty string', pattern)
    }
  }
  return { regex, groups: translator.groups, wordRunMinLength: wordRunMin(pattern.slice(start), flags) }
}

function wordRunMin (body: string, flags: Flags): number | undefined {
  if (flags.ascii || flags.verbose) return undefined
  const m = WORD_RUN.exec(body)
  if (m === null || (m[1] === undefined) !== (m[4] === undefined)) return undefined
  const prefix = m[2]!.length / 2
  const tail = m[3] === undefined ? 1 : Number(m[3])
  const min = prefix + tail
  return min >= 1 ? min : undefined
}
