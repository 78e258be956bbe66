/**
 * NLTK's Treebank word tokenizers, as the sequences of `re.sub` they are, each run through
 * src/python/ (Python's `re` semantics, its Unicode tables), then `str.split()`:
 *
 * - `TreebankWordTokenizer().tokenize(text)` (nltk/tokenize/treebank.py), the same in NLTK
 *   3.8 and 3.10.3;
 * - `NLTKWordTokenizer().tokenize(text)` (nltk/tokenize/destructive.py), the "improved"
 *   one `word_tokenize` runs on each sentence. NLTK 3.10.3 changed it: an opening single
 *   quote is split off only before a word character and not before a clitic (`'re`, `'s`,
 *   ...) that ends at a word boundary; runs of white space become one space before the
 *   clitics are split (so a clitic before a tab or newline is split too); the dashes
 *   U+2012-U+2015 are split off.
 *
 * Both with their defaults (`convert_parentheses=False`).
 *
 * Speed without a change of result: most substitutions cannot match most texts, so each
 * names the characters one of which the *original* text must hold for it to match (its
 * trigger), and is skipped otherwise. The substitutions only move characters and insert
 * spaces, except that '"' becomes '``' or "''" and "''" becomes '``': so a trigger of a
 * rule that needs "'" or '`' after those rules also names '"' (and "'"). The contractions
 * (`cannot` -> `can not`) run only when the text holds one of their words, written without
 * the word boundaries (a superset), under the same case folding: inserting spaces never
 * makes such a word appear. The final-period rules, anchored at the end, run on the text's
 * tail from the only '.' they can match.
 */
import assert from 'node:assert'
import { pySplit, SPACE } from '../../python/python-str.js'
import { compileReSub } from '../../python/re-functions.js'
import { translatePythonPattern } from '../../python/python-regex.js'
import type { TokenizerNltkVersion } from './nltk-version.js'

/** A substitution as NLTK compiles it, and what it needs of the original text. */
interface Sub {
  readonly pattern: string
  readonly repl: string
  readonly flags?: readonly string[]
  /** Characters one of which the original text must hold; undefined: always run. */
  readonly trigger?: string
  /** For a final-period rule: the characters it allows after the '.' (besides white space). */
  readonly tail?: string
}

const sub = (pattern: string, repl: string, trigger: string | undefined, flags?: readonly string[]): Sub => ({ pattern, repl, trigger, flags })

// MacIntyreContractions.CONTRACTIONS2 and CONTRACTIONS3, replaced by r" \1 \2 ".
const CONTRACTIONS: readonly Sub[] = [
  String.raw`(?i)\b(can)(?#X)(not)\b`,
  String.raw`(?i)\b(d)(?#X)('ye)\b`,
  String.raw`(?i)\b(gim)(?#X)(me)\b`,
  String.raw`(?i)\b(gon)(?#X)(na)\b`,
  String.raw`(?i)\b(got)(?#X)(ta)\b`,
  String.raw`(?i)\b(lem)(?#X)(me)\b`,
  String.raw`(?i)\b(more)(?#X)('n)\b`,
  String.raw`(?i)\b(wan)(?#X)(na)(?=\s)`,
  String.raw`(?i) ('t)(?#X)(is)\b`,
  String.raw`(?i) ('t)(?#X)(was)\b`
].map(p => sub(p, String.raw` \1 \2 `, undefined))
/** Every contraction's letters in a row (no boundaries, no leading space): what one needs to match. */
const CONTRACTION_WORDS = String.raw`(?i)cannot|d'ye|gimme|gonna|gotta|lemme|more'n|wanna|'tis|'twas`

const PARENS_BRACKETS = sub(String.raw`[\]\[\(\)\{\}\<\>]`, String.raw` \g<0> `, '[](){}<>')
const DOUBLE_DASHES = sub('--', ' -- ', '-')
// After ENDING_QUOTES '"' is "''": the clitic rules need "'" or '"'.
const CLITICS: readonly Sub[] = [
  sub(String.raw`([^' ])('[sS]|'[mM]|'[dD]|') `, String.raw`\1 \2 `, '\'"'),
  sub(String.raw`([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) `, String.raw`\1 \2 `, '\'"')
]
const finalPeriod = (tail: string, repl: string, flags?: readonly string[]): Sub =>
  ({ pattern: String.raw`([^\.])(\.)([${tail.replace(/[\]\\]/g, c => '\\' + c)}]*)\s*$`, repl, flags, trigger: '.', tail })

/** TreebankWordTokenizer: before the space padding, then after it. */
const TREEBANK: { readonly before: readonly Sub[], readonly after: readonly Sub[] } = {
  before: [
    // STARTING_QUOTES
    sub(String.raw`^\"`, '``', '"'),
    sub('(``)', String.raw` \1 `, '`"'),
    sub(String.raw`([ \(\[{<])(\"|\'{2})`, String.raw`\1 ` + '`` ', '"\''),
    // PUNCTUATION
    sub(String.raw`([:,])([^\d])`, String.raw` \1 \2`, ':,'),
    sub(String.raw`([:,])$`, String.raw` \1 `, ':,'),
    sub(String.raw`\.\.\.`, String.raw` ... `, '.'),
    sub(String.raw`[;@#$%&]`, String.raw` \g<0> `, ';@#$%&'),
    finalPeriod(`])}>"'`, String.raw`\1 \2\3 `),
    sub(String.raw`[?!]`, String.raw` \g<0> `, '?!'),
    sub(String.raw`([^'])' `, String.raw`\1 ' `, '\''),
    PARENS_BRACKETS,
    DOUBLE_DASHES
  ],
  after: [
    // ENDING_QUOTES
    sub(String.raw`''`, " '' ", '\''),
    sub('"', " '' ", '"'),
    ...CLITICS,
    ...CONTRACTIONS
  ]
}

/** NLTKWordTokenizer, by version. */
function nltkWordSubs (version: TokenizerNltkVersion): { before: Sub[], after: Sub[] } {
  const newer = version !== '3.8'
  return {
    before: [
      // STARTING_QUOTES
      sub('([«“‘„]|[`]+)', String.raw` \1 `, '«“‘„`', ['U']),
      sub(String.raw`^\"`, '``', '"'),
      sub('(``)', String.raw` \1 `, '`"'),
      sub(String.raw`([ \(\[{<])(\"|\'{2})`, String.raw`\1 ` + '`` ', '"\''),
      newer
        ? sub(String.raw`(?i)(?<!\w)(\')(?!(?:re|ve|ll|m|t|s|d|n)\b)(?=\w)`, String.raw`\1 `, '\'', ['U'])
        : sub(String.raw`(?i)(\')(?!re|ve|ll|m|t|s|d|n)(\w)\b`, String.raw`\1 \2`, '\'', ['U']),
      // PUNCTUATION
      finalPeriod(`])}>"'»”’ `, String.raw`\1 \2 \3 `, ['U']),
      sub(String.raw`([:,])([^\d])`, String.raw` \1 \2`, ':,'),
      sub(String.raw`([:,])$`, String.raw` \1 `, ':,'),
      sub(String.raw`\.{2,}`, String.raw` \g<0> `, '.', ['U']),
      sub(String.raw`[;@#$%&]`, String.raw` \g<0> `, ';@#$%&'),
      ...(newer ? [sub(String.raw`[\u2012-\u2015]`, String.raw` \g<0> `, '\u2012\u2013\u2014\u2015', ['U'])] : []),
      finalPeriod(`])}>"'`, String.raw`\1 \2\3 `),
      sub(String.raw`[?!]`, String.raw` \g<0> `, '?!'),
      sub(String.raw`([^'])' `, String.raw`\1 ' `, '\''),
      sub(String.raw`[*]`, String.raw` \g<0> `, '*', ['U']),
      PARENS_BRACKETS,
      DOUBLE_DASHES
    ],
    after: [
      // ENDING_QUOTES
      sub('([»”’])', String.raw` \1 `, '»”’', ['U']),
      sub(String.raw`''`, " '' ", '\''),
      sub('"', " '' ", '"'),
      ...(newer ? [sub(String.raw`\s+`, ' ', undefined)] : []),
      ...CLITICS,
      ...CONTRACTIONS
    ]
  }
}

export type WordTokenizer = (text: string) => string[]

/**
 * Trigger characters as bits: ' ' to '?' in `low`, '@' to '_' in `high`, and each other
 * character a trigger names (at most 32) in `other` at the bit `others` gives it.
 */
interface Bits { low: number, high: number, other: number }

/** The bits of the characters `text` holds. */
function bitsOf (text: string, others: ReadonlyMap<number, number>): Bits {
  let low = 0
  let high = 0
  let other = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 32) continue
    if (c < 64) low |= 1 << (c - 32)
    else if (c < 96) high |= 1 << (c - 64)
    else if (others.size > 0) {
      const bit = others.get(c)
      if (bit !== undefined) other |= 1 << bit
    }
  }
  return { low, high, other }
}

interface CompiledSub {
  readonly run: (s: string) => string
  readonly trigger: Bits | undefined
  readonly tail: ((c: number) => boolean) | undefined
}

function compileSub (s: Sub, others: Map<number, number>): CompiledSub {
  let trigger: Bits | undefined
  if (s.trigger !== undefined) {
    trigger = { low: 0, high: 0, other: 0 }
    for (const ch of s.trigger) {
      const c = ch.charCodeAt(0)
      if (c >= 32 && c < 64) trigger.low |= 1 << (c - 32)
      else if (c >= 64 && c < 96) trigger.high |= 1 << (c - 64)
      else {
        if (!others.has(c)) others.set(c, others.size)
        assert(others.size <= 32, 'at most 32 trigger characters beyond \' \' to \'_\'')
        trigger.other |= 1 << others.get(c)!
      }
    }
  }
  const tailChars = s.tail === undefined ? undefined : new Set(Array.from(s.tail, ch => ch.charCodeAt(0)))
  return {
    run: compileReSub(s.pattern, s.repl, s.flags ?? []),
    trigger,
    tail: tailChars === undefined ? undefined : c => tailChars.has(c) || SPACE.has(c)
  }
}

/**
 * A final-period substitution on `text`: it can only match the last '.' after which all is
 * its tail characters or white space, starting one code point before it; so it runs on the
 * text from there (it has no look-behind, so what comes before cannot change the match).
 */
function atEnd (text: string, s: CompiledSub): string {
  let i = text.length - 1
  // Tail characters and white space are all in the BMP: step back by code unit.
  while (i >= 0 && s.tail!(text.charCodeAt(i))) i--
  if (i < 1 || text.charCodeAt(i) !== 0x2e) return text
  let start = i - 1
  if ((text.charCodeAt(start) & 0xfc00) === 0xdc00 && start > 0 && (text.charCodeAt(start - 1) & 0xfc00) === 0xd800) start--
  return text.slice(0, start) + s.run(text.slice(start))
}

/** The tokenizer the substitutions make: `before`, pad with a space each side, `after`, `str.split()`. */
function fromSubs (subs: { readonly before: readonly Sub[], readonly after: readonly Sub[] }): WordTokenizer {
  const others = new Map<number, number>()
  const before = subs.before.map(s => compileSub(s, others))
  const after = subs.after.filter(s => !CONTRACTIONS.includes(s)).map(s => compileSub(s, others))
  const contractions = subs.after.filter(s => CONTRACTIONS.includes(s)).map(s => compileSub(s, others))
  const contractionWords = translatePythonPattern(CONTRACTION_WORDS, { label: 'contractions' }).regex
  const contractionTest = new RegExp(contractionWords.source, 'u')
  const apply = (t: string, s: CompiledSub, present: Bits): string => {
    const g = s.trigger
    if (g !== undefined && (g.low & present.low) === 0 && (g.high & present.high) === 0 && (g.other & present.other) === 0) return t
    return s.tail !== undefined ? atEnd(t, s) : s.run(t)
  }
  return text => {
    const present = bitsOf(text, others)
    let t = text
    for (const s of before) t = apply(t, s, present)
    t = ' ' + t + ' '
    for (const s of after) t = apply(t, s, present)
    if (contractionTest.test(text)) for (const s of contractions) t = s.run(t)
    return pySplit(t)
  }
}

/** `TreebankWordTokenizer().tokenize(text)` (NLTK 3.8 and 3.10.3 alike). */
export function createTreebankWordTokenizer (): WordTokenizer {
  return fromSubs(TREEBANK)
}

/** `NLTKWordTokenizer().tokenize(text)` as NLTK `version` does it. */
export function createNltkWordTokenizer (version: TokenizerNltkVersion): WordTokenizer {
  return fromSubs(nltkWordSubs(version))
}
