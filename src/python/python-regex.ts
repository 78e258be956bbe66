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
 * - `(?i)` follows sre's own case folding (see sre-ignore-case.ts), not JavaScript's /i;
 *   with `(?a)` too, sre folds ASCII letters only, and so does the translation.
 *
 * What has no faithful translation is refused with ERR_PATTERN_UNSUPPORTED naming the
 * construct: conditionals, atomic groups, possessive quantifiers, scoped flags, `(?L)`,
 * `\N{...}`, and patterns that can match the empty string (Python's findall then
 * differs from any JavaScript loop) unless `allowEmptyMatch` asks for Python 3.7's
 * empty-match rules. What Python itself rejects (a variable-width look-behind, a
 * reference to an open or later group, a quantifier with nothing to repeat) is refused
 * with the same code.
 */
import { ServiceError } from '../errors.js'
import { complement, rangesHave, union } from './code-point-ranges.js'
import { DIGIT, SPACE, WORD } from './python-str.js'
import type { RegexModuleSemantics } from './regex-module.js'
import { hasCased, ignoreCaseRanges, isCased, type ClassItems } from './sre-ignore-case.js'
import { DECIMAL_RANGES, SPACE_RANGES, WORD_RANGES } from './unicode-tables.js'

export interface TranslatedPattern {
  /** The JavaScript regular expression (flags 'gu'). */
  readonly regex: RegExp
  /** Capturing groups: findall returns group 1 when there is exactly one. */
  readonly groups: number
  /**
   * When the pattern only finds maximal runs of `\w` of at least this many code points
   * (the default `(?u)\b\w\w+\b` and its kin), a scanner can replace the regex.
   */
  readonly wordRunMinLength: number | undefined
  /** Named groups and their numbers (`(?P<name>...)`), for `\g<name>` in a replacement. */
  readonly groupIndex: ReadonlyMap<string, number>
  /**
   * Groups whose capture JavaScript may report differently from sre: inside a repeated
   * construct where an iteration can skip them (JavaScript clears them per iteration, sre
   * keeps the last), or repeating something that can match empty (sre then captures '',
   * JavaScript nothing). Their matched extent is the same; only the group's value is not.
   */
  readonly unstableGroups: ReadonlySet<number>
  /** Groups that may take no part in a match (in an alternative, optional, or a negative look-around). */
  readonly optionalGroups: ReadonlySet<number>
}

/** The flags of a Python pattern, from `re.compile`'s `flags` or written inline at its start. */
export interface PythonRegexFlags {
  readonly ascii: boolean
  readonly ignoreCase: boolean
  readonly multiline: boolean
  readonly dotAll: boolean
  readonly verbose: boolean
  /** `re.UNICODE` / `(?u)`: the default for str patterns; only its clash with ASCII matters. */
  readonly unicode: boolean
}

export interface TranslateOptions {
  /** Flags passed beside the pattern (`re.compile(pattern, flags)`), added to its inline flags. */
  readonly flags?: Partial<PythonRegexFlags>
  /** What the pattern is, for messages. Defaults to 'token_pattern'. */
  readonly label?: string
  /**
   * Accept patterns that can match the empty string, for a caller that scans as Python 3.7+
   * does (after an empty match, the next match must not be empty at the same place). Such
   * a pattern is still refused when Python could then find a longer match at the same
   * place (a lazy quantifier, an empty alternative before another, a repeated group that
   * can match empty), since a JavaScript scan would skip it. Defaults to false.
   */
  readonly allowEmptyMatch?: boolean
  /**
   * Refuse what JavaScript matches differently from sre in corner cases: back-references
   * to a group that may not have taken part (sre fails, JavaScript matches empty), to an
   * unstable group, or inside a look-behind; a repeat of something that can match empty
   * by a path tried before a longer one (`(?:|a)?`, `(?:a*?)*`, or lazily repeated).
   * Defaults to false (token patterns keep their former translation).
   */
  readonly strict?: boolean
  /**
   * Translate as the third-party `regex` module (V0) of this release compiles the pattern,
   * not `re`: its `\w \d \s` and case variants (regex-module.ts), `\p{L}` and `\p{N}`, and
   * `\B` matching in an empty string. What it reads otherwise than `re` is refused: a '['
   * inside a class (its POSIX classes and nested sets), a '{' that is no quantifier (its
   * fuzzy matching), ASCII with IGNORECASE. Defaults to `re`.
   */
  readonly regexModule?: RegexModuleSemantics
}

interface Flags { ascii: boolean, ignoreCase: boolean, multiline: boolean, dotAll: boolean, verbose: boolean, unicode: boolean }

/** A translated piece and how many code points it can match (max may be Infinity). */
interface Piece { src: string, min: number, max: number }
interface Atom extends Piece { quantifiable: boolean, capture: boolean }
interface Quantifier { src: string, min: number, max: number, lazy: boolean }

const ASCII_WORD = [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a]
const ASCII_DIGIT = [0x30, 0x39]
const ASCII_SPACE = [0x09, 0x0d, 0x20, 0x20]
/** re/_parser.py WHITESPACE: what verbose mode skips. */
const VERBOSE_SPACE = /^[ \t\n\r\v\f]$/

function unsupported (construct: string, pattern: string, label = 'token_pattern'): never {
  throw new ServiceError('ERR_PATTERN_UNSUPPORTED', `${label} ${JSON.stringify(pattern)}: ${construct} cannot be translated`)
}

const hex = (cp: number): string => `\\u{${cp.toString(16)}}`

function rangesSource (ranges: readonly number[]): string {
  let out = ''
  for (let i = 0; i < ranges.length; i += 2) {
    out += ranges[i] === ranges[i + 1] ? hex(ranges[i]!) : `${hex(ranges[i]!)}-${hex(ranges[i + 1]!)}`
  }
  return out
}

const isAsciiLetter = (cp: number): boolean => (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a)
const asciiLower = (cp: number): number => cp >= 0x41 && cp <= 0x5a ? cp + 32 : cp

class Translator {
  readonly #src: string[]
  readonly #pattern: string
  readonly #flags: Flags
  readonly #label: string
  readonly #strict: boolean
  #pos = 0
  groups = 0
  /** Width of each closed group; undefined while it is open. */
  readonly #groupWidths: Array<readonly [number, number] | undefined> = []
  readonly groupIndex = new Map<string, number>()
  readonly optional = new Set<number>()
  readonly unstable = new Set<number>()
  /** Somewhere a shorter (empty) path is tried before a longer one at the same place. */
  prefersEmpty = false
  #inLookbehind = 0
  readonly #word: string
  readonly #digit: string
  readonly #space: string
  readonly #module: RegexModuleSemantics | undefined
  readonly #wordRanges: readonly number[]
  readonly #digitRanges: readonly number[]
  readonly #spaceRanges: readonly number[]

  constructor (pattern: string, flags: Flags, start: number, label: string, strict: boolean, module?: RegexModuleSemantics) {
    this.#pattern = pattern
    this.#src = Array.from(pattern)
    this.#flags = flags
    this.#label = label
    this.#strict = strict
    this.#pos = start
    this.#module = module
    if (module !== undefined && flags.ascii && flags.ignoreCase) this.#fail('ASCII with IGNORECASE under the regex module')
    this.#wordRanges = flags.ascii ? ASCII_WORD : module?.word.ranges ?? WORD_RANGES
    this.#digitRanges = flags.ascii ? ASCII_DIGIT : module?.digit.ranges ?? DECIMAL_RANGES
    this.#spaceRanges = flags.ascii ? ASCII_SPACE : module?.space.ranges ?? SPACE_RANGES
    this.#word = rangesSource(this.#wordRanges)
    this.#digit = rangesSource(this.#digitRanges)
    this.#space = rangesSource(this.#spaceRanges)
  }

  #peek (offset = 0): string | undefined {
    return this.#src[this.#pos + offset]
  }

  #fail (construct: string): never {
    return unsupported(construct, this.#pattern, this.#label)
  }

  /** Skips white space and comments in verbose mode. */
  #skipVerbose (): void {
    if (!this.#flags.verbose) return
    for (;;) {
      const c = this.#peek()
      if (c !== undefined && VERBOSE_SPACE.test(c)) this.#pos++
      else if (c === '#') {
        while (this.#peek() !== undefined && this.#peek() !== '\n') this.#pos++
      } else return
    }
  }

  translate (): Piece {
    const out = this.#alternation()
    if (this.#pos < this.#src.length) this.#fail(`unbalanced ')' at ${this.#pos}`)
    return out
  }

  #mark (set: Set<number>, from: number, to: number): void {
    for (let g = from; g <= to; g++) set.add(g)
  }

  #alternation (): Piece {
    const g0 = this.groups
    let branchStart = g0
    const first = this.#sequence()
    let { src, min, max } = first
    let nullableBefore = first.min === 0
    let branches = 1
    while (this.#peek() === '|') {
      this.#pos++
      // A group of this branch takes no part in a later one.
      this.#mark(this.optional, branchStart + 1, this.groups)
      branchStart = this.groups
      const last = this.#sequence()
      // sre tries branches in order: an empty-matching branch before another may hide a longer match.
      if (nullableBefore && last.max > 0) this.prefersEmpty = true
      nullableBefore ||= last.min === 0
      src += '|' + last.src
      min = Math.min(min, last.min)
      max = Math.max(max, last.max)
      branches++
    }
    if (branches > 1) this.#mark(this.optional, g0 + 1, this.groups)
    return { src, min, max }
  }

  #sequence (): Piece {
    let src = ''
    let min = 0
    let max = 0
    for (;;) {
      this.#skipVerbose()
      const c = this.#peek()
      if (c === undefined || c === '|' || c === ')') return { src, min, max }
      // A quantifier here follows nothing, an anchor or another quantifier: Python refuses it.
      if (c === '{' && this.#braceQuantifier() !== undefined) this.#fail(`nothing to repeat at ${this.#pos}`)
      const g0 = this.groups
      const outerPrefersEmpty = this.prefersEmpty
      this.prefersEmpty = false
      const atom = this.#atom()
      const atomPrefersEmpty = this.prefersEmpty
      this.prefersEmpty ||= outerPrefersEmpty
      let piece: Piece = atom
      if (atom.quantifiable) {
        const q = this.#quantifier()
        if (q !== undefined) {
          if (this.#strict && atom.min === 0 && (atomPrefersEmpty || q.lazy)) {
            // After an empty iteration sre tries what follows the repeat before the body's other
            // paths; JavaScript rejects the empty iteration and tries those paths first.
            this.#fail('a repeat of something that can match the empty string before a longer match')
          }
          this.#noteRepeat(atom, q, g0)
          piece = { src: atom.src + q.src, min: atom.min * q.min, max: atom.max === 0 ? 0 : atom.max * q.max }
        }
      }
      src += piece.src
      min += piece.min
      max += piece.max
    }
  }

  /** What repeating `atom` (holding groups g0+1..) means for empty matches and captures. */
  #noteRepeat (atom: Atom, q: Quantifier, g0: number): void {
    if (q.lazy) this.prefersEmpty = true
    if (q.min === 0) this.#mark(this.optional, g0 + 1, this.groups)
    if (atom.min === 0 && q.max > 0) {
      // Repeating what can match empty: sre and JavaScript treat the empty iteration differently.
      if (atom.max > 0) this.prefersEmpty = true
      this.#mark(this.unstable, g0 + 1, this.groups)
    }
    if (q.max > 1) {
      // JavaScript clears the groups inside at each iteration; sre keeps the last capture.
      for (let g = atom.capture ? g0 + 2 : g0 + 1; g <= this.groups; g++) if (this.optional.has(g)) this.unstable.add(g)
    }
  }

  /** `{m}`, `{m,}`, `{,n}`, `{m,n}`, `{,}` at the cursor, as Python reads them; undefined for a literal '{'. */
  #braceQuantifier (): { length: number, min: number, max: number } | undefined {
    let i = this.#pos + 1
    const digits = (): string => {
      let d = ''
      while (/^[0-9]$/.test(this.#src[i] ?? '')) d += this.#src[i++]
      return d
    }
    const lo = digits()
    const comma = this.#src[i] === ','
    if (comma) i++
    const hi = comma ? digits() : lo
    if (this.#src[i] !== '}' || (lo === '' && !comma)) return undefined
    const min = lo === '' ? 0 : Number(lo)
    const max = hi === '' ? Infinity : Number(hi)
    // sre's MAXREPEAT: Python raises OverflowError from here on.
    if (min >= 0xffffffff || (max !== Infinity && max >= 0xffffffff)) this.#fail('a repetition number that is too large')
    return { length: i + 1 - this.#pos, min, max }
  }

  #quantifier (): Quantifier | undefined {
    this.#skipVerbose()
    const c = this.#peek()
    let q: Quantifier
    if (c === '*' || c === '+' || c === '?') {
      this.#pos++
      q = { src: c, min: c === '+' ? 1 : 0, max: c === '?' ? 1 : Infinity, lazy: false }
    } else if (c === '{') {
      const b = this.#braceQuantifier()
      if (b === undefined) return undefined
      if (b.max < b.min) this.#fail('min repeat greater than max repeat')
      this.#pos += b.length
      q = { src: `{${b.min},${b.max === Infinity ? '' : b.max}}`, min: b.min, max: b.max, lazy: false }
      if (b.max === b.min) q.src = `{${b.min}}`
    } else {
      return undefined
    }
    if (this.#peek() === '?') {
      this.#pos++
      q.src += '?'
      q.lazy = true
    } else if (this.#peek() === '+') {
      this.#fail('a possessive quantifier')
    }
    return q
  }

  #atom (): Atom {
    const c = this.#src[this.#pos++]!
    const one = (src: string): Atom => ({ src, quantifiable: true, capture: false, min: 1, max: 1 })
    const zero = (src: string): Atom => ({ src, quantifiable: false, capture: false, min: 0, max: 0 })
    switch (c) {
      case '(': return this.#group()
      case '[': return one(this.#class())
      case '.': return one(this.#flags.dotAll ? '[\\s\\S]' : '[^\\n]')
      // Not (?<![^\n]): V8 lets that negative look-behind match inside a surrogate pair.
      case '^': return zero(this.#flags.multiline ? '(?:^|(?<=\\n))' : '^')
      case '$': return zero(this.#flags.multiline ? '(?=\\n|$)' : '(?=\\n?$)')
      case '\\': return this.#escape()
      case '*': case '+': case '?': return this.#fail(`nothing to repeat at ${this.#pos - 1}`)
      case '{':
        if (this.#module !== undefined) return this.#fail(`a '{' that is no quantifier, at ${this.#pos - 1} (the regex module may read fuzzy matching)`)
        return one('\\{')
      default: return one(this.#literal(c.codePointAt(0)!))
    }
  }

  #group (): Atom {
    if (this.#peek() !== '?') return this.#capture(undefined)
    this.#pos++
    const c = this.#src[this.#pos++]
    const wrap = (src: string, body: Piece): Atom => ({ src, quantifiable: true, capture: false, min: body.min, max: body.max })
    switch (c) {
      case ':': {
        const body = this.#groupBody()
        return wrap(`(?:${body.src})`, body)
      }
      case '=': return this.#lookaround('(?=', false)
      case '!': return this.#lookaround('(?!', true)
      case '#':
        while (this.#peek() !== undefined && this.#peek() !== ')') this.#pos++
        if (this.#peek() === undefined) this.#fail('a missing ), unterminated comment')
        this.#pos++
        // Python applies a quantifier after a comment to the atom before it: not translated.
        return { src: '(?:)', quantifiable: false, capture: false, min: 0, max: 0 }
      case '<': {
        const d = this.#src[this.#pos++]
        if (d === '=' || d === '!') return this.#lookbehind(d)
        this.#pos--
        return this.#fail("'(?<' without '=' or '!'")
      }
      case 'P': {
        const d = this.#src[this.#pos++]
        const name = this.#readName(d === '<' ? '>' : ')')
        if (d === '<') {
          if (this.groupIndex.has(name)) this.#fail(`a redefinition of group name '${name}'`)
          return this.#capture(name)
        }
        if (d === '=') {
          const g = this.groupIndex.get(name)
          if (g === undefined) return this.#fail(`the unknown group name '${name}'`)
          return this.#reference(g, `\\k<${name}>`)
        }
        return this.#fail('(?P without < or =')
      }
      case '(': return this.#fail('a conditional group (?(...)')
      case '>': return this.#fail('an atomic group (?>...)')
      default: return this.#fail(`the group (?${c ?? ''}: inline flags are only allowed at the start`)
    }
  }

  #capture (name: string | undefined): Atom {
    const g = ++this.groups
    if (name !== undefined) this.groupIndex.set(name, g)
    const body = this.#groupBody()
    this.#groupWidths[g] = [body.min, body.max]
    const src = name === undefined ? `(${body.src})` : `(?<${name}>${body.src})`
    return { src, quantifiable: true, capture: true, min: body.min, max: body.max }
  }

  #lookaround (open: string, negative: boolean): Atom {
    const g0 = this.groups
    const body = this.#groupBody()
    // A group inside a negative look-around never keeps a capture.
    if (negative) this.#mark(this.optional, g0 + 1, this.groups)
    return { src: `${open}${body.src})`, quantifiable: true, capture: false, min: 0, max: 0 }
  }

  #lookbehind (d: '=' | '!'): Atom {
    this.#inLookbehind++
    const g0 = this.groups
    const body = this.#groupBody()
    this.#inLookbehind--
    if (body.min !== body.max) this.#fail('a look-behind that is not fixed-width')
    if (d === '!') this.#mark(this.optional, g0 + 1, this.groups)
    return { src: `(?<${d}${body.src})`, quantifiable: true, capture: false, min: 0, max: 0 }
  }

  /** A back-reference to group `g`, checked as sre checks it. */
  #reference (g: number, src: string): Atom {
    if (g > this.groups) this.#fail(`the invalid group reference ${g}`)
    const width = this.#groupWidths[g]
    if (width === undefined) this.#fail(`a reference to the open group ${g}`)
    if (this.#flags.ignoreCase) this.#fail('a group reference under (?i)')
    if (this.#strict) {
      if (this.optional.has(g)) this.#fail(`a reference to group ${g}, which may not take part in the match`)
      if (this.unstable.has(g)) this.#fail(`a reference to group ${g}, which is inside a repeat`)
      if (this.#inLookbehind > 0) this.#fail('a group reference inside a look-behind')
    }
    return { src, quantifiable: true, capture: false, min: width[0], max: width[1] }
  }

  #readName (end: string): string {
    let name = ''
    while (this.#peek() !== undefined && this.#peek() !== end) name += this.#src[this.#pos++]
    if (this.#peek() !== end || !/^[A-Za-z_]\w*$/.test(name)) this.#fail(`bad group name '${name}'`)
    this.#pos++
    return name
  }

  #groupBody (): Piece {
    const body = this.#alternation()
    if (this.#src[this.#pos++] !== ')') this.#fail('a missing )')
    return body
  }

  #boundary (negated: boolean): string {
    const w = `[${this.#word}]`
    // The regex module's \B also matches in an empty string.
    if (negated && this.#module !== undefined) return `(?:(?<=${w})(?=${w})|(?<!${w})(?!${w}))`
    // sre's \B never matches in an empty string (SRE_AT_NON_BOUNDARY checks beginning == end).
    return negated ? `(?:(?<=${w})(?=${w})|(?<!${w})(?!${w})(?:(?<=[\\s\\S])|(?=[\\s\\S])))` : `(?:(?<=${w})(?!${w})|(?<!${w})(?=${w}))`
  }

  /** What a class escape matches inside a class, as flat ranges (a 'u' class cannot nest), or undefined. */
  #classEscapeRanges (c: string): readonly number[] | undefined {
    const word = this.#wordRanges
    const digit = this.#digitRanges
    const space = this.#spaceRanges
    switch (c) {
      case 'w': return word
      case 'W': return complement(word)
      case 'd': return digit
      case 'D': return complement(digit)
      case 's': return space
      case 'S': return complement(space)
      default: return undefined
    }
  }

  /** A class escape (\w \W \d \D \s \S) outside a class, as a class, or undefined. */
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

  #escape (): Atom {
    const c = this.#src[this.#pos++]
    if (c === undefined) return this.#fail('a trailing backslash')
    const one = (src: string): Atom => ({ src, quantifiable: true, capture: false, min: 1, max: 1 })
    const zero = (src: string): Atom => ({ src, quantifiable: false, capture: false, min: 0, max: 0 })
    const cls = this.#classEscape(c)
    if (cls !== undefined) return one(cls)
    if ((c === 'p' || c === 'P') && this.#module !== undefined) {
      const { ranges, negated } = this.#property(c)
      if (this.#flags.ignoreCase) return one(`[${rangesSource(this.#module.ignoreCaseRanges({ ranges: [], escapes: [], escapeRanges: [ranges], negated }))}]`)
      return one(`[${negated ? '^' : ''}${rangesSource(ranges)}]`)
    }
    switch (c) {
      case 'b': return zero(this.#boundary(false))
      case 'B': return zero(this.#boundary(true))
      case 'A': return zero('^')
      case 'Z': return zero('$')
    }
    if (c >= '1' && c <= '9') {
      const [n1, n2] = [this.#peek() ?? '', this.#peek(1) ?? '']
      // Python reads three octal digits as a character, one or two digits as a group reference.
      if (c <= '7' && /[0-7]/.test(n1) && /[0-7]/.test(n2)) {
        this.#pos += 2
        const cp = parseInt(c + n1 + n2, 8)
        if (cp > 0o377) this.#fail(`the octal escape \\${c}${n1}${n2}`)
        return one(this.#literal(cp))
      }
      let digits = c
      if (/[0-9]/.test(n1)) {
        digits += n1
        this.#pos++
      }
      return this.#reference(Number(digits), `\\${digits}`)
    }
    return one(this.#literal(this.#literalEscape(c)))
  }

  /** `\p{name}` or `\P{name}` after its backslash and letter, for the names the regex module tables hold. */
  #property (c: 'p' | 'P'): { ranges: readonly number[], negated: boolean } {
    if (this.#peek() !== '{') this.#fail(`\\${c} without {name}`)
    this.#pos++
    let name = ''
    while (this.#peek() !== undefined && this.#peek() !== '}') name += this.#src[this.#pos++]
    if (this.#peek() !== '}') this.#fail(`an unterminated \\${c}{`)
    this.#pos++
    const set = this.#module?.properties.get(name)
    if (set === undefined) return this.#fail(`the property \\${c}{${name}} (only ${[...this.#module?.properties.keys() ?? []].join(', ')} are known)`)
    return { ranges: set.ranges, negated: c === 'P' }
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
    if (this.#flags.ignoreCase && this.#module !== undefined) return `[${rangesSource(this.#module.ignoreCaseRanges(items))}]`
    if (this.#flags.ignoreCase && this.#flags.ascii) return this.#asciiIgnoreCaseClass(items)
    if (this.#flags.ignoreCase && hasCased(items)) return `[${rangesSource(ignoreCaseRanges(items))}]`
    const out = rangesSource(union([items.ranges, ...items.escapeRanges]))
    return items.negated ? `[^${out}]` : `[${out}]`
  }

  /**
   * A class under (?ai): sre lowers the input with ASCII rules only and tests it against the
   * members lowered the same way (IN_IGNORE), when some member is an ASCII letter.
   */
  #asciiIgnoreCaseClass (items: ClassItems & { escapeRanges: Array<readonly number[]> }): string {
    let ranges: readonly number[]
    let cased = false
    for (let i = 0; i < items.ranges.length && !cased; i += 2) {
      for (let cp = items.ranges[i]!; cp <= Math.min(items.ranges[i + 1]!, 0x7f) && !cased; cp++) cased = isAsciiLetter(cp)
    }
    if (!cased) {
      ranges = items.ranges
    } else {
      const lowered = new Set<number>()
      const beyond: number[] = []
      for (let i = 0; i < items.ranges.length; i += 2) {
        const lo = items.ranges[i]!
        const hi = items.ranges[i + 1]!
        for (let cp = lo; cp <= Math.min(hi, 0x7f); cp++) lowered.add(asciiLower(cp))
        if (hi > 0x7f) beyond.push(Math.max(lo, 0x80), hi)
      }
      const ascii: number[] = []
      for (let cp = 0; cp <= 0x7f; cp++) if (lowered.has(asciiLower(cp))) ascii.push(cp, cp)
      // Class escapes under (?a) treat upper and lower ASCII letters alike, so adding them as they are is exact.
      ranges = [...ascii, ...beyond]
    }
    const out = rangesSource(union([ranges, ...items.escapeRanges]))
    return items.negated ? `[^${out}]` : `[${out}]`
  }

  #classItems (): ClassItems & { escapeRanges: Array<readonly number[]> } {
    let negated = false
    if (this.#peek() === '^') {
      negated = true
      this.#pos++
    }
    const ranges: number[] = []
    const escapes: Array<(cp: number) => boolean> = []
    const escapeRanges: Array<readonly number[]> = []
    let first = true
    for (;;) {
      const c = this.#src[this.#pos++]
      if (c === undefined) return this.#fail('an unterminated character class')
      if (c === ']' && !first) break
      first = false
      if (c === '[' && this.#module !== undefined) return this.#fail("a '[' inside a class (the regex module may read a POSIX class or a nested set)")
      let low: number
      if (c === '\\') {
        const e = this.#src[this.#pos++]
        if (e === undefined) return this.#fail('a trailing backslash')
        if ((e === 'p' || e === 'P') && this.#module !== undefined) {
          const { ranges, negated } = this.#property(e)
          escapeRanges.push(negated ? complement(ranges) : ranges)
          const inside = (cp: number): boolean => rangesHave(ranges, cp) !== negated
          escapes.push(inside)
          continue
        }
        const cls = this.#classEscapeRanges(e)
        if (cls !== undefined) {
          escapeRanges.push(cls)
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
    return { ranges, escapes, escapeRanges, negated }
  }

  /** What a class escape matches, as a predicate (for IGNORECASE classes). */
  #classPredicate (c: string): (cp: number) => boolean {
    const ascii = this.#flags.ascii
    const sets = this.#module ?? { word: WORD, digit: DIGIT, space: SPACE }
    const word = (cp: number): boolean => ascii ? (cp < 128 && WORD.has(cp)) : sets.word.has(cp)
    const digit = (cp: number): boolean => ascii ? (cp >= 0x30 && cp <= 0x39) : sets.digit.has(cp)
    const space = (cp: number): boolean => ascii ? (cp === 0x20 || (cp >= 9 && cp <= 13)) : sets.space.has(cp)
    switch (c) {
      case 'w': return word
      case 'W': return cp => !word(cp)
      case 'd': return digit
      case 'D': return cp => !digit(cp)
      case 's': return space
      default: return cp => !space(cp)
    }
  }

  /**
   * A literal outside a class; under IGNORECASE a cased one matches what sre's LITERAL_UNI_IGNORE
   * does, or under (?ai) what LITERAL_IGNORE does (ASCII letters only).
   */
  #literal (cp: number): string {
    if (this.#flags.ignoreCase && this.#flags.ascii) {
      return isAsciiLetter(cp) ? `[${hex(asciiLower(cp))}${hex(asciiLower(cp) - 32)}]` : hex(cp)
    }
    if (this.#flags.ignoreCase && this.#module !== undefined) {
      return this.#module.isCased(cp) ? `[${this.#module.caseVariants(cp).map(hex).join('')}]` : hex(cp)
    }
    if (this.#flags.ignoreCase && isCased(cp)) return `[${rangesSource(ignoreCaseRanges({ ranges: [cp, cp], escapes: [], negated: false }))}]`
    return hex(cp)
  }
}

/** Leading global flags such as `(?u)` or `(?ix)`, and where the pattern proper starts. */
function readFlags (pattern: string, given: Partial<PythonRegexFlags>, label: string): { flags: Flags, start: number } {
  const flags: Flags = { ascii: false, ignoreCase: false, multiline: false, dotAll: false, verbose: false, unicode: false, ...given }
  let start = 0
  const cps = Array.from(pattern)
  for (;;) {
    const m = /^\(\?([aiLmsux]+)\)/.exec(cps.slice(start).join(''))
    if (m === null) break
    for (const f of m[1]!) {
      if (f === 'L') unsupported('the locale flag (?L)', pattern, label)
      if (f === 'a') flags.ascii = true
      if (f === 'i') flags.ignoreCase = true
      if (f === 'm') flags.multiline = true
      if (f === 's') flags.dotAll = true
      if (f === 'x') flags.verbose = true
      if (f === 'u') flags.unicode = true
    }
    start += m[0].length
  }
  if (flags.ascii && flags.unicode) unsupported('ASCII and UNICODE flags together (Python refuses them)', pattern, label)
  return { flags, start }
}

const WORD_RUN = /^(\\b)?((?:\\w)*)(?:\\w\+|\\w\{(\d+),\})(\\b)?$/

/**
 * Translates a Python str pattern.
 * @throws ServiceError ERR_PATTERN_UNSUPPORTED naming the construct it cannot translate.
 */
export function translatePythonPattern (pattern: string, options: TranslateOptions = {}): TranslatedPattern {
  const label = options.label ?? 'token_pattern'
  const { flags, start } = readFlags(pattern, options.flags ?? {}, label)
  const translator = new Translator(pattern, flags, start, label, options.strict ?? false, options.regexModule)
  const translated = translator.translate()
  const source = translated.src
  let regex: RegExp
  try {
    // No 'i' flag: case-insensitive literals and classes are already spelled out as sre matches them.
    // Not 'v': Node 20's V8 drops the negation of [^a] in (?:[^a]b)+ under it.
    regex = new RegExp(source, 'gu')
  } catch (err) {
    return unsupported(`the translation failed (${(err as Error).message.slice(0, 80)})`, pattern, label)
  }
  if (options.allowEmptyMatch === true) {
    if (translated.min === 0 && translator.prefersEmpty) {
      unsupported('a pattern that can match the empty string where Python would then look for a longer match at the same place', pattern, label)
    }
  } else {
    for (const probe of ['', 'a', ' ', 'a b', '1', '_', 'é']) {
      for (const m of probe.matchAll(regex)) {
        if (m[0] === '') unsupported('a pattern that can match the empty string', pattern, label)
      }
    }
  }
  return {
    regex,
    groups: translator.groups,
    wordRunMinLength: options.regexModule === undefined ? wordRunMin(pattern.slice(start), flags) : undefined,
    groupIndex: translator.groupIndex,
    unstableGroups: translator.unstable,
    optionalGroups: translator.optional
  }
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
