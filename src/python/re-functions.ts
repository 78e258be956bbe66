/**
 * Python 3.11's `re.sub`, `re.split` and `re.findall` for str patterns, compiled once
 * into functions over texts. The pattern goes through translatePythonPattern (Python's
 * character classes, anchors and case folding); the scan follows Python 3.7+'s rules on
 * empty matches: an empty match may follow a non-empty one directly, and after an empty
 * match the next one starts a code point further on (`re.sub('x*', '-', 'abxd')` gives
 * '-a-b--d-'). Python then first looks for a non-empty match at the same place; for a
 * pattern that can match empty, the translation refuses the constructs that could find
 * one there (a lazy quantifier, an empty alternative before another), so stepping on is
 * exact.
 */
import { ServiceError } from '../errors.js'
import { translatePythonPattern, type PythonRegexFlags, type TranslatedPattern } from './python-regex.js'
import type { RegexModuleSemantics } from './regex-module.js'
import { parseTemplate, type TemplatePart } from './repl-template.js'

const FLAG_NAMES: Readonly<Record<string, keyof PythonRegexFlags>> = {
  IGNORECASE: 'ignoreCase',
  I: 'ignoreCase',
  MULTILINE: 'multiline',
  M: 'multiline',
  DOTALL: 'dotAll',
  S: 'dotAll',
  ASCII: 'ascii',
  A: 'ascii',
  VERBOSE: 'verbose',
  X: 'verbose',
  UNICODE: 'unicode',
  U: 'unicode'
}

const describePattern = (pattern: string): string => `pattern ${JSON.stringify(pattern)}`

function refuse (pattern: string, what: string): never {
  throw new ServiceError('ERR_PATTERN_UNSUPPORTED', `${describePattern(pattern)}: ${what}`)
}

/** Which engine's semantics to follow: `re` (the default) or the `regex` module of one release. */
export interface EngineOptions {
  readonly regexModule?: RegexModuleSemantics
}

/** Translates `pattern` with `flags` named as the `re` module names them ('IGNORECASE' or 'I', ...). */
function compilePattern (pattern: string, flags: readonly string[], engine: EngineOptions = {}): TranslatedPattern {
  const given: { -readonly [K in keyof PythonRegexFlags]?: boolean } = {}
  for (const name of flags) {
    const key = Object.hasOwn(FLAG_NAMES, name) ? FLAG_NAMES[name] : undefined
    if (key === undefined) refuse(pattern, `the flag ${JSON.stringify(name)} is not one of ${Object.keys(FLAG_NAMES).join(', ')}`)
    given[key] = true
  }
  return translatePythonPattern(pattern, { flags: given, label: 'pattern', allowEmptyMatch: true, strict: true, regexModule: engine.regexModule })
}

/** Where the scan goes on after an empty match at `index`: one code point further. */
function stepPast (text: string, index: number): number {
  return (text.charCodeAt(index) & 0xfc00) === 0xd800 && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00 ? index + 2 : index + 1
}

// eslint-disable-next-line no-control-regex
const SURROGATE = /[\ud800-\udfff]/

/** Whether `index` falls between the two halves of a surrogate pair. */
const insidePair = (text: string, index: number): boolean =>
  (text.charCodeAt(index) & 0xfc00) === 0xdc00 && (text.charCodeAt(index - 1) & 0xfc00) === 0xd800

/** Calls `onMatch` for each match Python finds, up to `limit` (0: all). */
function forEachMatch (regex: RegExp, text: string, limit: number, onMatch: (m: RegExpExecArray) => void): void {
  regex.lastIndex = 0
  for (let n = 0; limit === 0 || n < limit;) {
    const m = regex.exec(text)
    if (m === null) break
    if (m.index > 0 && insidePair(text, m.index)) {
      // Node 20's V8 lets a negative look-behind such as (?<!\w) match between the halves of
      // a surrogate pair, even under the 'u' flag; Python has no such place, so search on
      // from the next code point.
      regex.lastIndex = m.index + 1
      continue
    }
    onMatch(m)
    n++
    if (m[0] === '') regex.lastIndex = stepPast(text, m.index)
  }
}

function checkCount (pattern: string, name: string, value: number): void {
  if (!Number.isSafeInteger(value)) refuse(pattern, `${name} must be an integer, not ${value}`)
}

/**
 * `re.sub(pattern, repl, s, count=count, flags=...)` as a function of `s`. An unmatched
 * group gives '' (as Python 3.5+ does).
 * @throws ServiceError ERR_PATTERN_UNSUPPORTED naming the pattern, where Python raises
 * re.error for the pattern or the replacement, and where the translation cannot be exact.
 */
export function compileReSub (pattern: string, repl: string, flags: readonly string[] = [], count = 0, engine: EngineOptions = {}): (s: string) => string {
  checkCount(pattern, 'count', count)
  const translated = compilePattern(pattern, flags, engine)
  const parts = parseTemplate(repl, translated.groups, translated.groupIndex, describePattern(pattern))
  for (const part of parts) {
    if (typeof part === 'number' && translated.unstableGroups.has(part)) {
      refuse(pattern, `group ${part}, used by the replacement, is inside a repeat where JavaScript keeps a different capture`)
    }
  }
  // Python: a negative count replaces nothing.
  if (count < 0) return s => s
  const { regex } = translated
  const literal = parts.every(p => typeof p === 'string') ? (parts as string[]).join('') : undefined
  const scan = (s: string): string => {
    let out = ''
    let copied = 0
    forEachMatch(regex, s, count, m => {
      out += s.slice(copied, m.index) + (literal ?? expand(parts, m))
      copied = m.index + m[0].length
    })
    return out + s.slice(copied)
  }
  if (count !== 0) return scan
  // String.prototype.replace is faster and, under the 'u' flag, steps past empty matches by code
  // point as Python does; but it would keep a match V8 finds inside a surrogate pair, so a text
  // holding any surrogate is scanned instead.
  if (literal === undefined) {
    const replacer = (...args: unknown[]): string => expand(parts, args)
    return s => SURROGATE.test(s) ? scan(s) : s.replace(regex, replacer)
  }
  const replacement = literal.replaceAll('$', '$$$$')
  return s => SURROGATE.test(s) ? scan(s) : s.replace(regex, replacement)
}

/** The replacement for one match: `groups[0]` is the match, `groups[n]` group n (undefined when unmatched). */
function expand (parts: readonly TemplatePart[], groups: ArrayLike<unknown>): string {
  let out = ''
  for (const part of parts) out += typeof part === 'string' ? part : (groups[part] as string | undefined) ?? ''
  return out
}

/**
 * `re.split(pattern, s, maxsplit=maxsplit, flags=...)` as a function of `s`: the pieces
 * between matches, with each match's groups between them. Python puts None for a group
 * that took no part; to keep every item a string, a pattern with such a group (in an
 * alternative, optional, or in a negative look-around) is refused, so no '' stands in.
 * @throws ServiceError ERR_PATTERN_UNSUPPORTED naming the pattern.
 */
export function compileReSplit (pattern: string, flags: readonly string[] = [], maxsplit = 0, engine: EngineOptions = {}): (s: string) => string[] {
  checkCount(pattern, 'maxsplit', maxsplit)
  const translated = compilePattern(pattern, flags, engine)
  const { regex, groups } = translated
  for (let g = 1; g <= groups; g++) {
    if (translated.optionalGroups.has(g)) refuse(pattern, `group ${g} may take no part in a match, where re.split gives None`)
    if (translated.unstableGroups.has(g)) refuse(pattern, `group ${g} is inside a repeat where JavaScript keeps a different capture`)
  }
  if (maxsplit < 0) return s => [s]
  return s => {
    const out: string[] = []
    let last = 0
    forEachMatch(regex, s, maxsplit, m => {
      out.push(s.slice(last, m.index))
      for (let g = 1; g <= groups; g++) out.push(m[g] ?? '')
      last = m.index + m[0].length
    })
    out.push(s.slice(last))
    return out
  }
}

/**
 * `re.findall(pattern, s, flags=...)` as a function of `s`: the matches, or with one
 * group that group's text ('' when unmatched, as Python gives).
 * @throws ServiceError ERR_PATTERN_UNSUPPORTED naming the pattern, also for more than
 * one group (Python returns tuples then).
 */
export function compileReFindall (pattern: string, flags: readonly string[] = [], engine: EngineOptions = {}): (s: string) => string[] {
  const translated = compilePattern(pattern, flags, engine)
  const { regex, groups } = translated
  if (groups > 1) refuse(pattern, `${groups} groups, for which re.findall returns tuples`)
  if (groups === 1 && translated.unstableGroups.has(1)) refuse(pattern, 'group 1 is inside a repeat where JavaScript keeps a different capture')
  return s => {
    const out: string[] = []
    forEachMatch(regex, s, 0, m => { out.push(groups === 1 ? m[1] ?? '' : m[0]) })
    return out
  }
}
