/**
 * NLTK's `LancasterStemmer` (`nltk/stem/lancaster.py`, NLTK 3.8) with its default rules,
 * reproduced rule by rule, so a model trained on NLTK-stemmed text sees the same tokens here.
 */
import assert from 'node:assert'
import { pyLower } from '../../python/python-str.js'
import { UNASSIGNED_RANGES } from '../../python/unicode-tables.js'

export interface LancasterOptions {
  /** Strip a leading 'kilo', 'micro', ... first (NLTK's `strip_prefix_flag`). Defaults to false. */
  readonly stripPrefix?: boolean
}

const DEFAULT_OPTIONS: Required<LancasterOptions> = { stripPrefix: false }

/** NLTK's `default_rule_tuple`: reversed ending, '*' if the word must be intact, count to remove, text to append, '>' to go on or '.' to stop. */
export const DEFAULT_RULES: readonly string[] = [
  'ai*2.', 'a*1.', 'bb1.', 'city3s.', 'ci2>', 'cn1t>', 'dd1.', 'dei3y>', 'deec2ss.', 'dee1.', 'de2>',
  'dooh4>', 'e1>', 'feil1v.', 'fi2>', 'gni3>', 'gai3y.', 'ga2>', 'gg1.', 'ht*2.', 'hsiug5ct.', 'hsi3>',
  'i*1.', 'i1y>', 'ji1d.', 'juf1s.', 'ju1d.', 'jo1d.', 'jeh1r.', 'jrev1t.', 'jsim2t.', 'jn1d.', 'j1s.',
  'lbaifi6.', 'lbai4y.', 'lba3>', 'lbi3.', 'lib2l>', 'lc1.', 'lufi4y.', 'luf3>', 'lu2.', 'lai3>', 'lau3>',
  'la2>', 'll1.', 'mui3.', 'mu*2.', 'msi3>', 'mm1.', 'nois4j>', 'noix4ct.', 'noi3>', 'nai3>', 'na2>',
  'nee0.', 'ne2>', 'nn1.', 'pihs4>', 'pp1.', 're2>', 'rae0.', 'ra2.', 'ro2>', 'ru2>', 'rr1.', 'rt1>',
  'rei3y>', 'sei3y>', 'sis2.', 'si2>', 'ssen4>', 'ss0.', 'suo3>', 'su*2.', 's*1>', 's0.', 'tacilp4y.',
  'ta2>', 'tnem4>', 'tne3>', 'tna3>', 'tpir2b.', 'tpro2b.', 'tcud1.', 'tpmus2.', 'tpec2iv.', 'tulo2v.',
  'tsis0.', 'tsi3>', 'tt1.', 'uqi3.', 'ugo1.', 'vis3j>', 'vie0.', 'vi2>', 'ylb1>', 'yli3y>', 'ylp0.',
  'yl2>', 'ygo1.', 'yhp1.', 'ymo1.', 'ypo1.', 'yti3>', 'yte3>', 'ytl2.', 'yrtsi5.', 'yra3>', 'yro3>',
  'yfi3.', 'ycn2t>', 'yca3>', 'zi2>', 'zy1s.'
]

const PREFIXES: readonly string[] = ['kilo', 'micro', 'milli', 'intra', 'ultra', 'mega', 'nano', 'pico', 'pseudo']

interface Rule {
  readonly ending: string
  readonly intact: boolean
  readonly remove: number
  readonly append: string
  readonly stop: boolean
}

const RULE_SYNTAX = /^([a-z]+)(\*?)(\d)([a-z]*)([>.]?)$/

/** The rules grouped by the word's last letter (an ASCII code), in NLTK's order. */
const RULES_BY_LETTER: ReadonlyArray<readonly Rule[] | undefined> = (() => {
  const table: Rule[][] = []
  for (const text of DEFAULT_RULES) {
    const [, reversed, intact, remove, append, flag] = RULE_SYNTAX.exec(text)!
    const rule = { ending: [...reversed!].reverse().join(''), intact: intact === '*', remove: Number(remove), append: append!, stop: flag === '.' }
    // Only ASCII endings are ever removed, so slicing by UTF-16 unit removes what Python removes.
    assert(rule.remove <= rule.ending.length, `rule ${text} removes more than its ending`)
    ;(table[text.charCodeAt(0)] ??= []).push(rule)
  }
  return table
})()

const LETTER = /^\p{L}$/u
const SURROGATE = /[\ud800-\udfff]/

/** Whether Python's Unicode (14.0) leaves `cp` unassigned, by binary search over [first, last] pairs. */
function isUnassignedInPython (cp: number): boolean {
  let lo = 0
  let hi = UNASSIGNED_RANGES.length / 2 - 1
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    if (cp < UNASSIGNED_RANGES[2 * mid]!) hi = mid - 1
    else if (cp > UNASSIGNED_RANGES[2 * mid + 1]!) lo = mid + 1
    else return true
  }
  return false
}

/**
 * Python's `str.isalpha()` for one code point: categories L*, at Python's Unicode version,
 * where Node's may be newer (a letter Python does not know is not alphabetic to it).
 */
function isAlpha (ch: string): boolean {
  const c = ch.charCodeAt(0)
  if (c < 0x80) return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a)
  return LETTER.test(ch) && !isUnassignedInPython(ch.codePointAt(0)!)
}

/**
 * The rules for the last letter of the word's leading alphabetic run (NLTK's
 * `__getLastLetter`, which stops at the first non-letter), or undefined when there is none.
 * Rules then test the end of the whole word, as NLTK's do.
 */
function rulesFor (word: string): readonly Rule[] | undefined {
  let last = ''
  for (const ch of word) {
    if (!isAlpha(ch)) break
    last = ch
  }
  return last.length === 1 ? RULES_BY_LETTER[last.charCodeAt(0)] : undefined
}

function isVowel (ch: string | undefined): boolean {
  return ch !== undefined && ch.length === 1 && 'aeiouy'.includes(ch)
}

/**
 * NLTK's `__isAcceptable`: what is left keeps two letters after a leading vowel, else three
 * with a vowel second or third. `chars` indexes by code point, as Python does.
 */
function isAcceptable (chars: string | readonly string[], remove: number): boolean {
  if (isVowel(chars[0])) return chars.length - remove >= 2
  return chars.length - remove >= 3 && (isVowel(chars[1]) || isVowel(chars[2]))
}

/**
 * Creates `nltk.stem.LancasterStemmer(strip_prefix_flag=...).stem` with the default rules,
 * as NLTK 3.8 computes it: lowercases with Python's `str.lower()`, optionally strips a
 * prefix, then applies the Paice/Husk rules until one stops or none applies.
 */
export function createLancasterStemmer (options: Readonly<LancasterOptions> = {}): (word: string) => string {
  const stripPrefix = options.stripPrefix ?? DEFAULT_OPTIONS.stripPrefix
  return function stem (input: string): string {
    let word = pyLower(input)
    if (stripPrefix) {
      const prefix = PREFIXES.find(p => word.startsWith(p))
      if (prefix !== undefined) word = word.slice(prefix.length)
    }
    const intact = word
    // Rules only remove ASCII, so whether the word needs code-point indexing never changes.
    const astral = SURROGATE.test(word)
    for (;;) {
      const rules = rulesFor(word)
      if (rules === undefined) return word
      let applied = false
      for (const rule of rules) {
        if (!word.endsWith(rule.ending) || (rule.intact && word !== intact)) continue
        if (!isAcceptable(astral ? Array.from(word) : word, rule.remove)) continue
        word = word.slice(0, word.length - rule.remove) + rule.append
        if (rule.stop) return word
        applied = true
        break
      }
      if (!applied) return word
    }
  }
}
