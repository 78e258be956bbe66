/**
 * NLTK 3.8's `EnglishStemmer` (Snowball "Porter2"), ported line by line from
 * nltk/stem/snowball.py, including its special words, its `r2 = "e"` quirk in step 2 and
 * the regions for "gener", "commun" and "arsen".
 */
import { pyLower } from '../../../python/python-str.js'
import { withCodePoints } from './code-points.js'
import { at, endsWithAny, replaceAt, suffixReplace } from './python.js'
import { r1r2Standard } from './regions.js'

const VOWELS = 'aeiouy'
const DOUBLE_CONSONANTS = ['bb', 'dd', 'ff', 'gg', 'mm', 'nn', 'pp', 'rr', 'tt']
const LI_ENDING = 'cdeghkmnrt'
const STEP0_SUFFIXES = ["'s'", "'s", "'"]
const STEP1A_SUFFIXES = ['sses', 'ied', 'ies', 'us', 'ss', 's']
const STEP1B_SUFFIXES = ['eedly', 'ingly', 'edly', 'eed', 'ing', 'ed']
const STEP2_SUFFIXES = [
  'ization', 'ational', 'fulness', 'ousness', 'iveness', 'tional', 'biliti', 'lessli',
  'entli', 'ation', 'alism', 'aliti', 'ousli', 'iviti', 'fulli', 'enci', 'anci', 'abli',
  'izer', 'ator', 'alli', 'bli', 'ogi', 'li'
]
const STEP3_SUFFIXES = ['ational', 'tional', 'alize', 'icate', 'iciti', 'ative', 'ical', 'ness', 'ful']
const STEP4_SUFFIXES = [
  'ement', 'ance', 'ence', 'able', 'ible', 'ment', 'ant', 'ent', 'ism', 'ate', 'iti', 'ous',
  'ive', 'ize', 'ion', 'al', 'er', 'ic'
]
const SPECIAL_WORDS: ReadonlyMap<string, string> = new Map([
  ['skis', 'ski'], ['skies', 'sky'], ['dying', 'die'], ['lying', 'lie'], ['tying', 'tie'],
  ['idly', 'idl'], ['gently', 'gentl'], ['ugly', 'ugli'], ['early', 'earli'], ['only', 'onli'],
  ['singly', 'singl'], ['sky', 'sky'], ['news', 'news'], ['howe', 'howe'], ['atlas', 'atlas'],
  ['cosmos', 'cosmos'], ['bias', 'bias'], ['andes', 'andes'], ['inning', 'inning'],
  ['innings', 'inning'], ['outing', 'outing'], ['outings', 'outing'], ['canning', 'canning'],
  ['cannings', 'canning'], ['herring', 'herring'], ['herrings', 'herring'],
  ['earring', 'earring'], ['earrings', 'earring'], ['proceed', 'proceed'],
  ['proceeds', 'proceed'], ['proceeded', 'proceed'], ['proceeding', 'proceed'],
  ['exceed', 'exceed'], ['exceeds', 'exceed'], ['exceeded', 'exceed'],
  ['exceeding', 'exceed'], ['succeed', 'succeed'], ['succeeds', 'succeed'],
  ['succeeded', 'succeed'], ['succeeding', 'succeed']
])

/** Replaces the suffix `suffix` of a region by `replacement`, or empties a region too short to hold it, as NLTK does. */
function replaceInRegion (region: string, suffix: string, replacement: string, tooShort = ''): string {
  return region.length >= suffix.length ? suffixReplace(region, suffix, replacement) : tooShort
}

/** `EnglishStemmer().stem(word)` (NLTK 3.8, ignore_stopwords=False). */
export function stemEnglish (word: string): string {
  return withCodePoints(pyLower(word), stemLowered)
}

function stemLowered (word: string): string {
  if (word.length <= 2) return word
  const special = SPECIAL_WORDS.get(word)
  if (special !== undefined) return special

  word = word.replaceAll('\u2019', "'").replaceAll('\u2018', "'").replaceAll('\u201B', "'")
  if (word.startsWith("'")) word = word.slice(1)
  if (word.startsWith('y')) word = 'Y' + word.slice(1)
  for (let i = 1; i < word.length; i++) {
    if (VOWELS.includes(word[i - 1]!) && word[i] === 'y') word = replaceAt(word, i, 'Y')
  }

  let step1aVowelFound = false
  let step1bVowelFound = false
  let r1 = ''
  let r2 = ''
  if (word.startsWith('gener') || word.startsWith('commun') || word.startsWith('arsen')) {
    r1 = word.startsWith('gener') || word.startsWith('arsen') ? word.slice(5) : word.slice(6)
    for (let i = 1; i < r1.length; i++) {
      if (!VOWELS.includes(r1[i]!) && VOWELS.includes(r1[i - 1]!)) {
        r2 = r1.slice(i + 1)
        break
      }
    }
  } else {
    [r1, r2] = r1r2Standard(word, VOWELS)
  }

  // STEP 0
  for (const suffix of STEP0_SUFFIXES) {
    if (word.endsWith(suffix)) {
      word = word.slice(0, -suffix.length)
      r1 = r1.slice(0, -suffix.length)
      r2 = r2.slice(0, -suffix.length)
      break
    }
  }

  // STEP 1a
  for (const suffix of STEP1A_SUFFIXES) {
    if (!word.endsWith(suffix)) continue
    if (suffix === 'sses') {
      word = word.slice(0, -2)
      r1 = r1.slice(0, -2)
      r2 = r2.slice(0, -2)
    } else if (suffix === 'ied' || suffix === 'ies') {
      const cut = word.length - suffix.length > 1 ? 2 : 1
      word = word.slice(0, -cut)
      r1 = r1.slice(0, -cut)
      r2 = r2.slice(0, -cut)
    } else if (suffix === 's') {
      for (const letter of word.slice(0, -2)) {
        if (VOWELS.includes(letter)) {
          step1aVowelFound = true
          break
        }
      }
      if (step1aVowelFound) {
        word = word.slice(0, -1)
        r1 = r1.slice(0, -1)
        r2 = r2.slice(0, -1)
      }
    }
    break
  }

  // STEP 1b
  for (const suffix of STEP1B_SUFFIXES) {
    if (!word.endsWith(suffix)) continue
    if (suffix === 'eed' || suffix === 'eedly') {
      if (r1.endsWith(suffix)) {
        word = suffixReplace(word, suffix, 'ee')
        r1 = replaceInRegion(r1, suffix, 'ee')
        r2 = replaceInRegion(r2, suffix, 'ee')
      }
    } else {
      for (const letter of word.slice(0, -suffix.length)) {
        if (VOWELS.includes(letter)) {
          step1bVowelFound = true
          break
        }
      }
      if (step1bVowelFound) {
        word = word.slice(0, -suffix.length)
        r1 = r1.slice(0, -suffix.length)
        r2 = r2.slice(0, -suffix.length)
        if (endsWithAny(word, ['at', 'bl', 'iz'])) {
          word += 'e'
          r1 += 'e'
          if (word.length > 5 || r1.length >= 3) r2 += 'e'
        } else if (endsWithAny(word, DOUBLE_CONSONANTS)) {
          word = word.slice(0, -1)
          r1 = r1.slice(0, -1)
          r2 = r2.slice(0, -1)
        } else if (
          (r1 === '' && word.length >= 3 && !VOWELS.includes(at(word, -1)) && !'wxY'.includes(at(word, -1)) &&
            VOWELS.includes(at(word, -2)) && !VOWELS.includes(at(word, -3))) ||
          (r1 === '' && word.length === 2 && VOWELS.includes(at(word, 0)) && !VOWELS.includes(at(word, 1)))
        ) {
          word += 'e'
          if (r1.length > 0) r1 += 'e'
          if (r2.length > 0) r2 += 'e'
        }
      }
    }
    break
  }

  // STEP 1c
  if (word.length > 2 && 'yY'.includes(at(word, -1)) && !VOWELS.includes(at(word, -2))) {
    word = word.slice(0, -1) + 'i'
    r1 = r1.length >= 1 ? r1.slice(0, -1) + 'i' : ''
    r2 = r2.length >= 1 ? r2.slice(0, -1) + 'i' : ''
  }

  // STEP 2
  for (const suffix of STEP2_SUFFIXES) {
    if (!word.endsWith(suffix)) continue
    if (r1.endsWith(suffix)) {
      if (suffix === 'tional') {
        word = word.slice(0, -2)
        r1 = r1.slice(0, -2)
        r2 = r2.slice(0, -2)
      } else if (suffix === 'enci' || suffix === 'anci' || suffix === 'abli') {
        word = word.slice(0, -1) + 'e'
        r1 = r1.length >= 1 ? r1.slice(0, -1) + 'e' : ''
        r2 = r2.length >= 1 ? r2.slice(0, -1) + 'e' : ''
      } else if (suffix === 'entli') {
        word = word.slice(0, -2)
        r1 = r1.slice(0, -2)
        r2 = r2.slice(0, -2)
      } else if (suffix === 'izer' || suffix === 'ization') {
        word = suffixReplace(word, suffix, 'ize')
        r1 = replaceInRegion(r1, suffix, 'ize')
        r2 = replaceInRegion(r2, suffix, 'ize')
      } else if (suffix === 'ational' || suffix === 'ation' || suffix === 'ator') {
        word = suffixReplace(word, suffix, 'ate')
        r1 = replaceInRegion(r1, suffix, 'ate')
        r2 = replaceInRegion(r2, suffix, 'ate', 'e')
      } else if (suffix === 'alism' || suffix === 'aliti' || suffix === 'alli') {
        word = suffixReplace(word, suffix, 'al')
        r1 = replaceInRegion(r1, suffix, 'al')
        r2 = replaceInRegion(r2, suffix, 'al')
      } else if (suffix === 'fulness') {
        word = word.slice(0, -4)
        r1 = r1.slice(0, -4)
        r2 = r2.slice(0, -4)
      } else if (suffix === 'ousli' || suffix === 'ousness') {
        word = suffixReplace(word, suffix, 'ous')
        r1 = replaceInRegion(r1, suffix, 'ous')
        r2 = replaceInRegion(r2, suffix, 'ous')
      } else if (suffix === 'iveness' || suffix === 'iviti') {
        word = suffixReplace(word, suffix, 'ive')
        r1 = replaceInRegion(r1, suffix, 'ive')
        r2 = replaceInRegion(r2, suffix, 'ive', 'e')
      } else if (suffix === 'biliti' || suffix === 'bli') {
        word = suffixReplace(word, suffix, 'ble')
        r1 = replaceInRegion(r1, suffix, 'ble')
        r2 = replaceInRegion(r2, suffix, 'ble')
      } else if (suffix === 'ogi' && at(word, -4) === 'l') {
        word = word.slice(0, -1)
        r1 = r1.slice(0, -1)
        r2 = r2.slice(0, -1)
      } else if (suffix === 'fulli' || suffix === 'lessli') {
        word = word.slice(0, -2)
        r1 = r1.slice(0, -2)
        r2 = r2.slice(0, -2)
      } else if (suffix === 'li' && LI_ENDING.includes(at(word, -3))) {
        word = word.slice(0, -2)
        r1 = r1.slice(0, -2)
        r2 = r2.slice(0, -2)
      }
    }
    break
  }

  // STEP 3
  for (const suffix of STEP3_SUFFIXES) {
    if (!word.endsWith(suffix)) continue
    if (r1.endsWith(suffix)) {
      if (suffix === 'tional') {
        word = word.slice(0, -2)
        r1 = r1.slice(0, -2)
        r2 = r2.slice(0, -2)
      } else if (suffix === 'ational') {
        word = suffixReplace(word, suffix, 'ate')
        r1 = replaceInRegion(r1, suffix, 'ate')
        r2 = replaceInRegion(r2, suffix, 'ate')
      } else if (suffix === 'alize') {
        word = word.slice(0, -3)
        r1 = r1.slice(0, -3)
        r2 = r2.slice(0, -3)
      } else if (suffix === 'icate' || suffix === 'iciti' || suffix === 'ical') {
        word = suffixReplace(word, suffix, 'ic')
        r1 = replaceInRegion(r1, suffix, 'ic')
        r2 = replaceInRegion(r2, suffix, 'ic')
      } else if (suffix === 'ful' || suffix === 'ness') {
        word = word.slice(0, -suffix.length)
        r1 = r1.slice(0, -suffix.length)
        r2 = r2.slice(0, -suffix.length)
      } else if (suffix === 'ative' && r2.endsWith(suffix)) {
        word = word.slice(0, -5)
        r1 = r1.slice(0, -5)
        r2 = r2.slice(0, -5)
      }
    }
    break
  }

  // STEP 4
  for (const suffix of STEP4_SUFFIXES) {
    if (!word.endsWith(suffix)) continue
    if (r2.endsWith(suffix)) {
      if (suffix === 'ion') {
        if ('st'.includes(at(word, -4))) {
          word = word.slice(0, -3)
          r1 = r1.slice(0, -3)
          r2 = r2.slice(0, -3)
        }
      } else {
        word = word.slice(0, -suffix.length)
        r1 = r1.slice(0, -suffix.length)
        r2 = r2.slice(0, -suffix.length)
      }
    }
    break
  }

  // STEP 5
  if (r2.endsWith('l') && at(word, -2) === 'l') {
    word = word.slice(0, -1)
  } else if (r2.endsWith('e')) {
    word = word.slice(0, -1)
  } else if (r1.endsWith('e')) {
    if (word.length >= 4 && (VOWELS.includes(at(word, -2)) || 'wxY'.includes(at(word, -2)) ||
        !VOWELS.includes(at(word, -3)) || VOWELS.includes(at(word, -4)))) {
      word = word.slice(0, -1)
    }
  }

  return word.replaceAll('Y', 'y')
}
