/**
 * NLTK's `sent_tokenize(text, language)`: `PunktSentenceTokenizer.tokenize` with that
 * language's parameters (punkt-parameters.ts; every language shares the algorithm and
 * PunktLanguageVars, only the four tables differ), exactly as NLTK 3.8 (nltk/tokenize/punkt.py) or 3.10.3
 * computes it, which differ only in that 3.10 counts the curly quotes and guillemets
 * ‘’“”«» as closing punctuation and as characters that cannot be inside a word.
 *
 * Candidate breaks are the '.', '?' and '!' followed by punctuation or by white space and a
 * token; each is decided on its context alone (the word before, the mark, what follows),
 * which Punkt tokenizes into words and annotates in two passes: by type (abbreviations,
 * ellipses), then by the next token (collocations, the orthographic heuristic, frequent
 * sentence starters, initials and numbers). Then closing quotes and brackets after a break
 * move back onto the sentence they close. Positions here are UTF-16 indices where NLTK's
 * are code points; every position is only used to slice the same text, so the sentences
 * are the same.
 */
import { charProps, LOWER, TITLE, UPPER } from '../../python/char-props.js'
import { translatePythonPattern } from '../../python/python-regex.js'
import { compileReFindall, compileReSub } from '../../python/re-functions.js'
import { DIGIT, WORD, pyLower } from '../../python/python-str.js'
import { pyRstrip, pyStrip } from '../../python/str-strip.js'
import type { TokenizerNltkVersion } from './nltk-version.js'
import type { PunktParameters } from './punkt-parameters.js'

// Orthographic context flags (punkt.py _ORTHO_*): where a type was seen upper or lower case.
const ORTHO_BEG_LC = 1 << 4
const ORTHO_MID_UC = 1 << 2
const ORTHO_UC = (1 << 1) + (1 << 2) + (1 << 3)
const ORTHO_LC = (1 << 4) + (1 << 5) + (1 << 6)

/** `PunktSentenceTokenizer.PUNCTUATION`: tokens that never start a sentence. */
const PUNCTUATION = new Set([';', ':', ',', '.', '!', '?'])
const SENT_END = new Set(['.', '?', '!'])
const CURLY = '\u2018\u2019\u201c\u201d\xab\xbb'

/** PunktLanguageVars' patterns for one version (3.10 adds the curly quotes and guillemets). */
function languageVars (version: TokenizerNltkVersion): { wordTokenizer: string, periodContext: string, boundaryRealignment: string } {
  const curly = version === '3.8' ? '' : CURLY
  // _re_non_word_chars: re.escape of set(sent_end_chars) - {'.'} in a class; its order is irrelevant.
  const nonWord = String.raw`(?:[)\";}\]\*:@\'\({\[${curly}\?\!])`
  const multiChar = String.raw`(?:\-{2,}|\.{2,}|(?:\.\s){2,}\.)`
  const wordStart = String.raw`[^\(\"\`{\[:;&\#\*@\)}\]\-,]`
  return {
    // _word_tokenize_fmt
    wordTokenizer: String.raw`(
        ${multiChar}
        |
        (?=${wordStart})\S+?  # Accept word characters until end is found
        (?= # Sequences marking a word's end
            \s|                                 # White-space
            $|                                  # End-of-string
            ${nonWord}|${multiChar}|          # Punctuation
            ,(?=$|\s|${nonWord}|${multiChar}) # Comma if at end of word
        )
        |
        \S
    )`,
    // _period_context_fmt
    periodContext: String.raw`
        [\.\?\!]             # a potential sentence ending
        (?=(?P<after_tok>
            ${nonWord}              # either other punctuation
            |
            \s+(?P<next_tok>\S+)     # or whitespace and some other token
        ))`,
    boundaryRealignment: String.raw`["\')\]}${curly}]+?(?:\s+|(?=--)|$)`
  }
}

/** A token and its annotations (PunktToken). */
interface Token {
  readonly tok: string
  readonly type: string
  readonly periodFinal: boolean
  sentbreak: boolean
  abbr: boolean
  ellipsis: boolean
}

const typeNoPeriod = (t: Token): string => t.type.length > 1 && t.type.endsWith('.') ? t.type.slice(0, -1) : t.type
const typeNoSentperiod = (t: Token): string => t.sentbreak ? typeNoPeriod(t) : t.type
/** `tok[0].isupper()` / `.islower()` on the first code point. */
const firstUpper = (t: Token): boolean => (charProps(t.tok.codePointAt(0)!) & (UPPER | LOWER | TITLE)) === UPPER
const firstLower = (t: Token): boolean => (charProps(t.tok.codePointAt(0)!) & (UPPER | LOWER | TITLE)) === LOWER
/** `_RE_ELLIPSIS.match(tok)`: `\.\.+$` (a token holds no newline). */
const isEllipsis = (tok: string): boolean => /^\.\.+$/.test(tok)

/** `_RE_INITIAL.match(tok)`: `[^\W\d]\.$`, one code point of Python's \w but not \d, then '.'. */
function isInitial (tok: string): boolean {
  const cp = tok.codePointAt(0)
  if (cp === undefined || !WORD.has(cp) || DIGIT.has(cp)) return false
  const width = cp > 0xffff ? 2 : 1
  return tok.length === width + 1 && tok.charCodeAt(width) === 0x2e
}

export type SentenceTokenizer = (text: string) => string[]

/**
 * `PunktSentenceTokenizer.tokenize(text)` with `params` (English by default), as NLTK `version` does.
 */
export function createPunktSentenceTokenizer (version: TokenizerNltkVersion, params: PunktParameters): SentenceTokenizer {
  const vars = languageVars(version)
  const wordTokenize = compileReFindall(vars.wordTokenizer, ['UNICODE', 'VERBOSE'])
  const periodContext = translatePythonPattern(vars.periodContext, { flags: { unicode: true, verbose: true }, label: 'Punkt period context' })
  const contextRegex = new RegExp(periodContext.regex.source, 'dgu')
  const afterTok = periodContext.groupIndex.get('after_tok')!
  const nextTok = periodContext.groupIndex.get('next_tok')!
  const realignment = new RegExp(translatePythonPattern(vars.boundaryRealignment, { flags: { multiline: true }, label: 'Punkt boundary realignment' }).regex.source, 'uy')
  const numeric = compileReSub(String.raw`^-?[\.,]?\d[\d,\.-]*\.?$`, '##number##')

  const makeToken = (tok: string): Token => ({ tok, type: numeric(pyLower(tok)), periodFinal: tok.endsWith('.'), sentbreak: false, abbr: false, ellipsis: false })

  /** `_tokenize_words`: the tokens of each line that is not blank. */
  function tokenizeWords (text: string): Token[] {
    const out: Token[] = []
    for (const line of text.split('\n')) {
      if (pyStrip(line) === '') continue
      for (const tok of wordTokenize(line)) out.push(makeToken(tok))
    }
    return out
  }

  /** `_first_pass_annotation`. */
  function firstPass (t: Token): void {
    const tok = t.tok
    if (SENT_END.has(tok)) t.sentbreak = true
    else if (isEllipsis(tok)) t.ellipsis = true
    else if (t.periodFinal && !tok.endsWith('..')) {
      const bare = pyLower(tok.slice(0, -1))
      if (params.abbrevTypes.has(bare) || params.abbrevTypes.has(bare.split('-').pop()!)) t.abbr = true
      else t.sentbreak = true
    }
  }

  /** `_ortho_heuristic`: true (starts a sentence), false, or undefined ("unknown"). */
  function orthoHeuristic (t: Token): boolean | undefined {
    if (PUNCTUATION.has(t.tok)) return false
    const ortho = params.orthoContext.get(typeNoSentperiod(t)) ?? 0
    if (firstUpper(t) && (ortho & ORTHO_LC) !== 0 && (ortho & ORTHO_MID_UC) === 0) return true
    if (firstLower(t) && ((ortho & ORTHO_UC) !== 0 || (ortho & ORTHO_BEG_LC) === 0)) return false
    return undefined
  }

  /** `_second_pass_annotation` of `t1` given the token after it (annotated by the first pass only). */
  function secondPass (t1: Token, t2: Token): void {
    if (!t1.periodFinal) return
    const typ = typeNoPeriod(t1)
    const nextTyp = typeNoSentperiod(t2)
    const initial = isInitial(t1.tok)
    if (params.collocations.has(`${typ}\t${nextTyp}`)) {
      t1.sentbreak = false
      t1.abbr = true
      return
    }
    if ((t1.abbr || t1.ellipsis) && !initial) {
      if (orthoHeuristic(t2) === true || (firstUpper(t2) && params.sentStarters.has(nextTyp))) {
        t1.sentbreak = true
        return
      }
    }
    if (initial || typ === '##number##') {
      const starter = orthoHeuristic(t2)
      if (starter === false || (starter === undefined && initial && firstUpper(t2) && ((params.orthoContext.get(nextTyp) ?? 0) & ORTHO_LC) === 0)) {
        t1.sentbreak = false
        t1.abbr = true
      }
    }
  }

  /** `text_contains_sentbreak`: some token but the last is a sentence break after both passes. */
  function containsSentbreak (context: string): boolean {
    const tokens = tokenizeWords(context)
    for (const t of tokens) firstPass(t)
    for (let i = 0; i + 1 < tokens.length; i++) {
      secondPass(tokens[i]!, tokens[i + 1]!)
      if (tokens[i]!.sentbreak) return true
    }
    return false
  }

  /** `_get_last_whitespace_index`: the last of string.whitespace in text[from, to), as NLTK counts it (0 when none). */
  function lastWhitespace (text: string, from: number, to: number): number {
    for (let i = to - 1; i >= from; i--) {
      const c = text.charCodeAt(i)
      if (c === 0x20 || (c >= 0x09 && c <= 0x0d)) return i - from
    }
    return 0
  }

  /** `_slices_from_text`, through `_match_potential_end_contexts`: [start, end) of each sentence before realignment. */
  function slicesFromText (text: string): Array<[number, number]> {
    const slices: Array<[number, number]> = []
    let lastBreak = 0
    let prevStart = 0
    let prevStop = 0
    let prev: RegExpExecArray | undefined
    const decide = (m: RegExpExecArray, start: number, stop: number): void => {
      const context = text.slice(start, stop) + m[0] + m[afterTok]!
      if (!containsSentbreak(context)) return
      const end = m.index + m[0].length
      slices.push([lastBreak, end])
      lastBreak = m[nextTok] !== undefined ? m.indices![nextTok]![0] : end
    }
    contextRegex.lastIndex = 0
    for (let m = contextRegex.exec(text); m !== null; m = contextRegex.exec(text)) {
      // The word before the mark: from after the last white space since the previous candidate.
      const ws = lastWhitespace(text, prevStop, m.index)
      const wordStart = ws !== 0 ? ws + prevStop + 1 : prevStart
      // A candidate whose word overlaps the next candidate's is dropped (Punkt keeps the last).
      if (prev !== undefined && prevStop <= wordStart) decide(prev, prevStart, prevStop)
      prev = m
      prevStart = wordStart
      prevStop = m.index
    }
    if (prev !== undefined) decide(prev, prevStart, prevStop)
    slices.push([lastBreak, pyRstrip(text).length])
    return slices
  }

  /** `_realign_boundaries`: closing punctuation after a break joins the sentence before it. */
  function realignBoundaries (text: string, slices: ReadonlyArray<[number, number]>): string[] {
    const out: string[] = []
    let realign = 0
    for (let i = 0; i < slices.length; i++) {
      const start = slices[i]![0] + realign
      const stop = slices[i]![1]
      const next = slices[i + 1]
      if (next === undefined) {
        if (stop > start) out.push(text.slice(start, stop))
        continue
      }
      realignment.lastIndex = 0
      const m = realignment.exec(text.slice(next[0], next[1]))
      if (m !== null) {
        out.push(text.slice(start, next[0] + pyRstrip(m[0]).length))
        realign = m[0].length
      } else {
        realign = 0
        if (stop > start) out.push(text.slice(start, stop))
      }
    }
    return out
  }

  return text => realignBoundaries(text, slicesFromText(text))
}
