/**
 * NLTK's `PorterStemmer` (`nltk/stem/porter.py`, NLTK 3.8), reproduced rule by rule in
 * its three modes, so a model trained on NLTK-stemmed text sees the same tokens here.
 *
 * Python indexes strings by code point and JavaScript by UTF-16 unit. Every suffix the
 * rules test is ASCII, so suffix tests and suffix removal agree in both; only lengths and
 * the last few characters (double consonants, cvc) need code points. A surrogate unit is
 * never a vowel nor 'y', so scanning units instead of code points leaves consonant/vowel
 * runs, and hence the measure, unchanged.
 */
import { ServiceError } from '../../errors.js'
import { pyLower } from '../../python/python-str.js'
import { pyLen } from '../../python/py-len.js'

export type PorterMode = 'ORIGINAL_ALGORITHM' | 'MARTIN_EXTENSIONS' | 'NLTK_EXTENSIONS'

export interface PorterOptions {
  /** Lowercase the word first with Python's `str.lower()` (NLTK's `to_lowercase`). Defaults to true. */
  readonly toLowercase?: boolean
}

const DEFAULT_OPTIONS: Required<PorterOptions> = { toLowercase: true }

const MODES: readonly PorterMode[] = ['ORIGINAL_ALGORITHM', 'MARTIN_EXTENSIONS', 'NLTK_EXTENSIONS']

/** NLTK_EXTENSIONS' irregular forms, keyed by the exact (unlowercased) word as NLTK looks it up. */
const IRREGULAR_FORMS: ReadonlyMap<string, string> = new Map(Object.entries({
  sky: ['sky', 'skies'],
  die: ['dying'],
  lie: ['lying'],
  tie: ['tying'],
  news: ['news'],
  inning: ['innings', 'inning'],
  outing: ['outings', 'outing'],
  canning: ['cannings', 'canning'],
  howe: ['howe'],
  proceed: ['proceed'],
  exceed: ['exceed'],
  succeed: ['succeed']
}).flatMap(([stem, forms]) => forms.map(form => [form, stem] as const)))

const CH_A = 0x61
const CH_E = 0x65
const CH_I = 0x69
const CH_O = 0x6f
const CH_U = 0x75
const CH_Y = 0x79

function isVowelUnit (c: number): boolean {
  return c === CH_A || c === CH_E || c === CH_I || c === CH_O || c === CH_U
}

function isHighSurrogate (c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff
}

function isLowSurrogate (c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff
}

/** Start of the code point ending just before unit `end`, or -1 when there is none. */
function previousStart (s: string, end: number): number {
  if (end <= 0) return -1
  if (end >= 2 && isLowSurrogate(s.charCodeAt(end - 1)) && isHighSurrogate(s.charCodeAt(end - 2))) return end - 2
  return end - 1
}

/**
 * `_is_consonant(word, i)` for the unit at `i`. NLTK recurses through runs of 'y' (a 'y'
 * is a consonant first or after a vowel); walking back over the run gives the same answer
 * without Python's recursion limit (NLTK raises RecursionError on ~1000 'y's in a row).
 */
function isConsonant (word: string, i: number): boolean {
  const c = word.charCodeAt(i)
  if (c !== CH_Y) return !isVowelUnit(c)
  let j = i - 1
  while (j >= 0 && word.charCodeAt(j) === CH_Y) j--
  // Before the start counts as a vowel: a leading 'y' is a consonant.
  const before = j >= 0 && !isVowelUnit(word.charCodeAt(j))
  return ((i - j) & 1) === 1 ? !before : before
}

/** `_measure(word[:end])`: the number of vowel-to-consonant transitions ("vc" in the cv string). */
function measure (word: string, end: number): number {
  let m = 0
  let previousConsonant = false
  for (let k = 0; k < end; k++) {
    const c = word.charCodeAt(k)
    const consonant: boolean = c === CH_Y ? (k === 0 || !previousConsonant) : !isVowelUnit(c)
    if (consonant && k > 0 && !previousConsonant) m++
    previousConsonant = consonant
  }
  return m
}

/** `_contains_vowel(word[:end])`. */
function containsVowel (word: string, end: number): boolean {
  let previousConsonant = false
  for (let k = 0; k < end; k++) {
    const c = word.charCodeAt(k)
    const consonant: boolean = c === CH_Y ? (k === 0 || !previousConsonant) : !isVowelUnit(c)
    if (!consonant) return true
    previousConsonant = consonant
  }
  return false
}

/** `_ends_double_consonant`: the last two code points are equal and a consonant. */
function endsDoubleConsonant (word: string): boolean {
  const n = word.length
  const last = previousStart(word, n)
  if (last <= 0) return false
  const before = previousStart(word, last)
  // Equal code points have equal widths, so comparing the first and last units suffices.
  return n - last === last - before &&
    word.charCodeAt(before) === word.charCodeAt(last) &&
    word.charCodeAt(last - 1) === word.charCodeAt(n - 1) &&
    isConsonant(word, n - 1)
}

/** `_ends_cvc(word[:end])`, with NLTK_EXTENSIONS' two-letter vc case when `nltk`. */
function endsCvc (word: string, end: number, nltk: boolean): boolean {
  const third = previousStart(word, end)
  const second = previousStart(word, third)
  const first = previousStart(word, second)
  if (first >= 0) {
    const c = word.charCodeAt(end - 1)
    if (isConsonant(word, second - 1) && !isConsonant(word, third - 1) && isConsonant(word, end - 1) &&
      c !== 0x77 && c !== 0x78 && c !== CH_Y) return true
  }
  return nltk && second === 0 && !isConsonant(word, third - 1) && isConsonant(word, end - 1)
}

/** A suffix rule; the condition sees the stem as `word[:end]`, sparing a slice. */
interface Rule {
  readonly suffix: string
  readonly replacement: string
  readonly condition: (word: string, end: number) => boolean
}

const positiveMeasure = (word: string, end: number): boolean => measure(word, end) > 0
const measureAbove1 = (word: string, end: number): boolean => measure(word, end) > 1

/** `_apply_rule_list` without the "*d" rule (only step 1b has it, inlined there). */
function applyRuleList (word: string, rules: readonly Rule[]): string {
  for (const { suffix, replacement, condition } of rules) {
    if (word.endsWith(suffix)) {
      const end = word.length - suffix.length
      // The first matching suffix decides, even when its condition fails.
      return condition(word, end) ? word.slice(0, end) + replacement : word
    }
  }
  return word
}

function rules (table: ReadonlyArray<readonly [string, string]>, condition: Rule['condition']): Rule[] {
  return table.map(([suffix, replacement]) => ({ suffix, replacement, condition }))
}

const STEP2_HEAD: ReadonlyArray<readonly [string, string]> = [
  ['ational', 'ate'], ['tional', 'tion'], ['enci', 'ence'], ['anci', 'ance'], ['izer', 'ize']
]
const STEP2_TAIL: ReadonlyArray<readonly [string, string]> = [
  ['alli', 'al'], ['entli', 'ent'], ['eli', 'e'], ['ousli', 'ous'], ['ization', 'ize'], ['ation', 'ate'],
  ['ator', 'ate'], ['alism', 'al'], ['iveness', 'ive'], ['fulness', 'ful'], ['ousness', 'ous'],
  ['aliti', 'al'], ['iviti', 'ive'], ['biliti', 'ble']
]

/** Step 2's rule list per mode, in NLTK's order (ORIGINAL has 'abli', the others 'bli' and extras). */
const STEP2_RULES: Readonly<Record<PorterMode, readonly Rule[]>> = {
  ORIGINAL_ALGORITHM: rules([...STEP2_HEAD, ['abli', 'able'], ...STEP2_TAIL], positiveMeasure),
  MARTIN_EXTENSIONS: rules([...STEP2_HEAD, ['bli', 'ble'], ...STEP2_TAIL, ['logi', 'log']], positiveMeasure),
  NLTK_EXTENSIONS: [
    ...rules([...STEP2_HEAD, ['bli', 'ble'], ...STEP2_TAIL, ['fulli', 'ful']], positiveMeasure),
    // The 'l' of 'logi' stays with the stem, so 'geo', 'theo' stem like 'philo'.
    { suffix: 'logi', replacement: 'log', condition: (word: string) => measure(word, word.length - 3) > 0 }
  ]
}

const STEP3_RULES = rules([
  ['icate', 'ic'], ['ative', ''], ['alize', 'al'], ['iciti', 'ic'], ['ical', 'ic'], ['ful', ''], ['ness', '']
], positiveMeasure)

const STEP4_RULES: readonly Rule[] = [
  ...rules([
    ['al', ''], ['ance', ''], ['ence', ''], ['er', ''], ['ic', ''], ['able', ''], ['ible', ''], ['ant', ''],
    ['ement', ''], ['ment', ''], ['ent', '']
  ], measureAbove1),
  {
    suffix: 'ion',
    replacement: '',
    condition: (word, end) => {
      const c = word.charCodeAt(end - 1)
      return measure(word, end) > 1 && (c === 0x73 || c === 0x74)
    }
  },
  ...rules([['ou', ''], ['ism', ''], ['ate', ''], ['iti', ''], ['ous', ''], ['ive', ''], ['ize', '']], measureAbove1)
]

const STEP5B_RULES: readonly Rule[] = [
  { suffix: 'll', replacement: 'l', condition: word => measure(word, word.length - 1) > 1 }
]

function step1a (word: string, nltk: boolean): string {
  // NLTK: 'dies' -> 'die' but 'flies' -> 'fli'.
  if (nltk && word.endsWith('ies') && pyLen(word) === 4) return word.slice(0, -3) + 'ie'
  if (word.endsWith('sses')) return word.slice(0, -2)
  if (word.endsWith('ies')) return word.slice(0, -2)
  if (word.endsWith('ss')) return word
  if (word.endsWith('s')) return word.slice(0, -1)
  return word
}

function step1b (word: string, nltk: boolean): string {
  // NLTK: 'died' -> 'die' but 'spied' -> 'spi'.
  if (nltk && word.endsWith('ied')) return word.slice(0, -3) + (pyLen(word) === 4 ? 'ie' : 'i')
  if (word.endsWith('eed')) return positiveMeasure(word, word.length - 3) ? word.slice(0, -1) : word

  let stem: string
  if (word.endsWith('ed') && containsVowel(word, word.length - 2)) stem = word.slice(0, -2)
  else if (word.endsWith('ing') && containsVowel(word, word.length - 3)) stem = word.slice(0, -3)
  else return word

  if (stem.endsWith('at') || stem.endsWith('bl') || stem.endsWith('iz')) return stem + 'e'
  const last = stem.charCodeAt(stem.length - 1)
  const keepsDouble = last === 0x6c || last === 0x73 || last === 0x7a
  if (endsDoubleConsonant(stem)) return keepsDouble ? stem : stem.slice(0, previousStart(stem, stem.length))
  // NLTK tests the "*d" placeholder as a literal suffix too, so 'x*d' becomes 'xd'.
  if (stem.endsWith('*d')) return stem.slice(0, -2) + 'd'
  return measure(stem, stem.length) === 1 && endsCvc(stem, stem.length, nltk) ? stem + 'e' : stem
}

function step1c (word: string, nltk: boolean): string {
  if (!word.endsWith('y')) return word
  const end = word.length - 1
  // NLTK: y -> i after a consonant, unless that consonant is the whole stem ('happy' -> 'happi', 'enjoy' kept).
  const applies = nltk
    ? pyLen(word) > 2 && isConsonant(word, end - 1)
    : containsVowel(word, end)
  return applies ? word.slice(0, end) + 'i' : word
}

function step2 (word: string, mode: PorterMode): string {
  // NLTK applies 'alli' -> 'al' first and runs step 2 again on the result.
  if (mode === 'NLTK_EXTENSIONS' && word.endsWith('alli') && positiveMeasure(word, word.length - 4)) {
    return step2(word.slice(0, -2), mode)
  }
  return applyRuleList(word, STEP2_RULES[mode])
}

function step5a (word: string, nltk: boolean): string {
  // Both e-rules are tried, so NLTK does not use a rule list here.
  if (!word.endsWith('e')) return word
  const end = word.length - 1
  const m = measure(word, end)
  if (m > 1 || (m === 1 && !endsCvc(word, end, nltk))) return word.slice(0, end)
  return word
}

/**
 * Creates `nltk.stem.PorterStemmer(mode).stem` as NLTK 3.8 computes it, lowercasing with
 * Python's `str.lower()`. In every mode but ORIGINAL_ALGORITHM, words of at most two code
 * points come back (lowercased) unstemmed; NLTK_EXTENSIONS first looks the word up, as
 * given, among its irregular forms ('skies' -> 'sky', 'dying' -> 'die').
 *
 * @param mode - NLTK's mode constant. Defaults to 'NLTK_EXTENSIONS', as NLTK's does.
 * @throws ServiceError `ERR_CONFIG_INVALID` for an unknown mode (NLTK's ValueError).
 */
export function createPorterStemmer (
  mode: PorterMode = 'NLTK_EXTENSIONS',
  options: Readonly<PorterOptions> = {}
): (word: string) => string {
  if (!MODES.includes(mode)) {
    throw new ServiceError('ERR_CONFIG_INVALID', `Porter mode must be one of ${MODES.join(', ')}, not ${String(mode)}`)
  }
  const toLowercase = options.toLowercase ?? DEFAULT_OPTIONS.toLowercase
  const nltk = mode === 'NLTK_EXTENSIONS'
  return function stem (word: string): string {
    const lowered = toLowercase ? pyLower(word) : word
    if (nltk) {
      // NLTK looks up the word as given; a hit is lowercase ASCII, so it equals `lowered`.
      const irregular = IRREGULAR_FORMS.get(word)
      if (irregular !== undefined) return irregular
    }
    // NLTK measures the word before lowercasing ('İ' is one code point, its lowercase two).
    if (mode !== 'ORIGINAL_ALGORITHM' && pyLen(word) <= 2) return lowered
    let s = step1a(lowered, nltk)
    s = step1b(s, nltk)
    s = step1c(s, nltk)
    s = step2(s, mode)
    s = applyRuleList(s, STEP3_RULES)
    s = applyRuleList(s, STEP4_RULES)
    s = step5a(s, nltk)
    return applyRuleList(s, STEP5B_RULES)
  }
}
