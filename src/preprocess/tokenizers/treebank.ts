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
 */
import { pySplit } from '../../python/python-str.js'
import { compileReSub } from '../../python/re-functions.js'
import type { TokenizerNltkVersion } from './nltk-version.js'

/** [pattern, replacement, flags], as NLTK compiles them. */
type Sub = readonly [string, string, (readonly string[])?]

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
].map(p => [p, String.raw` \1 \2 `])

const PARENS_BRACKETS: Sub = [String.raw`[\]\[\(\)\{\}\<\>]`, String.raw` \g<0> `]
const DOUBLE_DASHES: Sub = [String.raw`--`, String.raw` -- `]
const CLITICS: readonly Sub[] = [
  [String.raw`([^' ])('[sS]|'[mM]|'[dD]|') `, String.raw`\1 \2 `],
  [String.raw`([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) `, String.raw`\1 \2 `]
]

/** TreebankWordTokenizer: before the space padding, then after it. */
const TREEBANK: { readonly before: readonly Sub[], readonly after: readonly Sub[] } = {
  before: [
    // STARTING_QUOTES
    [String.raw`^\"`, '``'],
    ['(``)', String.raw` \1 `],
    [String.raw`([ \(\[{<])(\"|\'{2})`, String.raw`\1 `+ '`` '],
    // PUNCTUATION
    [String.raw`([:,])([^\d])`, String.raw` \1 \2`],
    [String.raw`([:,])$`, String.raw` \1 `],
    [String.raw`\.\.\.`, String.raw` ... `],
    [String.raw`[;@#$%&]`, String.raw` \g<0> `],
    [String.raw`([^\.])(\.)([\]\)}>"\']*)\s*$`, String.raw`\1 \2\3 `],
    [String.raw`[?!]`, String.raw` \g<0> `],
    [String.raw`([^'])' `, String.raw`\1 ' `],
    PARENS_BRACKETS,
    DOUBLE_DASHES
  ],
  after: [
    // ENDING_QUOTES
    [String.raw`''`, " '' "],
    [String.raw`"`, " '' "],
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
      ['([«“‘„]|[`]+)', String.raw` \1 `, ['U']],
      [String.raw`^\"`, '``'],
      ['(``)', String.raw` \1 `],
      [String.raw`([ \(\[{<])(\"|\'{2})`, String.raw`\1 ` + '`` '],
      newer
        ? [String.raw`(?i)(?<!\w)(\')(?!(?:re|ve|ll|m|t|s|d|n)\b)(?=\w)`, String.raw`\1 `, ['U']]
        : [String.raw`(?i)(\')(?!re|ve|ll|m|t|s|d|n)(\w)\b`, String.raw`\1 \2`, ['U']],
      // PUNCTUATION
      [String.raw`([^\.])(\.)([\]\)}>"\'` + '»”’ ' + String.raw`]*)\s*$`, String.raw`\1 \2 \3 `, ['U']],
      [String.raw`([:,])([^\d])`, String.raw` \1 \2`],
      [String.raw`([:,])$`, String.raw` \1 `],
      [String.raw`\.{2,}`, String.raw` \g<0> `, ['U']],
      [String.raw`[;@#$%&]`, String.raw` \g<0> `],
      ...(newer ? [[String.raw`[\u2012-\u2015]`, String.raw` \g<0> `, ['U']] as const] : []),
      [String.raw`([^\.])(\.)([\]\)}>"\']*)\s*$`, String.raw`\1 \2\3 `],
      [String.raw`[?!]`, String.raw` \g<0> `],
      [String.raw`([^'])' `, String.raw`\1 ' `],
      [String.raw`[*]`, String.raw` \g<0> `, ['U']],
      PARENS_BRACKETS,
      DOUBLE_DASHES
    ],
    after: [
      // ENDING_QUOTES
      ['([»”’])', String.raw` \1 `, ['U']],
      [String.raw`''`, " '' "],
      [String.raw`"`, " '' "],
      ...(newer ? [[String.raw`\s+`, ' '] as const] : []),
      ...CLITICS,
      ...CONTRACTIONS
    ]
  }
}

export type WordTokenizer = (text: string) => string[]

function compileSubs (subs: readonly Sub[]): Array<(s: string) => string> {
  return subs.map(([pattern, repl, flags]) => compileReSub(pattern, repl, flags ?? []))
}

/** The tokenizer the substitutions make: `before`, pad with a space each side, `after`, `str.split()`. */
function fromSubs (subs: { readonly before: readonly Sub[], readonly after: readonly Sub[] }): WordTokenizer {
  const before = compileSubs(subs.before)
  const after = compileSubs(subs.after)
  return text => {
    let t = text
    for (const sub of before) t = sub(t)
    t = ' ' + t + ' '
    for (const sub of after) t = sub(t)
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
