/** NLTK 3.8's `DanishStemmer`, `NorwegianStemmer` and `SwedishStemmer`, ported line by line from nltk/stem/snowball.py. */
import { pyLower } from '../../../python/python-str.js'
import { withCodePoints } from './code-points.js'
import { at, endsWithAny, suffixReplace } from './python.js'
import { r1Scandinavian } from './regions.js'

const DANISH_VOWELS = 'aeiouy\u00E6\u00E5\u00F8'
const DANISH_DOUBLE_CONSONANTS = [
  'bb', 'cc', 'dd', 'ff', 'gg', 'hh', 'jj', 'kk', 'll', 'mm', 'nn', 'pp', 'qq', 'rr', 'ss',
  'tt', 'vv', 'ww', 'xx', 'zz'
]
const DANISH_S_ENDING = 'abcdfghjklmnoprtvyz\u00E5'
const DANISH_STEP1_SUFFIXES = [
  'erendes', 'erende', 'hedens', 'ethed', 'erede', 'heden', 'heder', 'endes', 'ernes',
  'erens', 'erets', 'ered', 'ende', 'erne', 'eren', 'erer', 'heds', 'enes', 'eres', 'eret',
  'hed', 'ene', 'ere', 'ens', 'ers', 'ets', 'en', 'er', 'es', 'et', 'e', 's'
]
const DANISH_STEP2_SUFFIXES = ['gd', 'dt', 'gt', 'kt']
const DANISH_STEP3_SUFFIXES = ['elig', 'l\u00F8st', 'lig', 'els', 'ig']

const NORWEGIAN_VOWELS = 'aeiouy\u00E6\u00E5\u00F8'
const NORWEGIAN_S_ENDING = 'bcdfghjlmnoprtvyz'
const NORWEGIAN_STEP1_SUFFIXES = [
  'hetenes', 'hetene', 'hetens', 'heter', 'heten', 'endes', 'ande', 'ende', 'edes', 'enes',
  'erte', 'ede', 'ane', 'ene', 'ens', 'ers', 'ets', 'het', 'ast', 'ert', 'en', 'ar', 'er',
  'as', 'es', 'et', 'a', 'e', 's'
]
const NORWEGIAN_STEP2_SUFFIXES = ['dt', 'vt']
const NORWEGIAN_STEP3_SUFFIXES = [
  'hetslov', 'eleg', 'elig', 'elov', 'slov', 'leg', 'eig', 'lig', 'els', 'lov', 'ig'
]

const SWEDISH_VOWELS = 'aeiouy\u00E4\u00E5\u00F6'
const SWEDISH_S_ENDING = 'bcdfghjklmnoprtvy'
const SWEDISH_STEP1_SUFFIXES = [
  'heterna', 'hetens', 'heter', 'heten', 'anden', 'arnas', 'ernas', 'ornas', 'andes', 'andet',
  'arens', 'arna', 'erna', 'orna', 'ande', 'arne', 'aste', 'aren', 'ades', 'erns', 'ade',
  'are', 'ern', 'ens', 'het', 'ast', 'ad', 'en', 'ar', 'er', 'or', 'as', 'es', 'at', 'a', 'e', 's'
]
const SWEDISH_STEP2_SUFFIXES = ['dd', 'gd', 'nn', 'dt', 'gt', 'kt', 'tt']
const SWEDISH_STEP3_SUFFIXES = ['fullt', 'l\u00F6st', 'els', 'lig', 'ig']

/** `DanishStemmer().stem(word)` (NLTK 3.8, ignore_stopwords=False). */
export function stemDanish (word: string): string {
  return withCodePoints(pyLower(word), stemDanishLowered)
}

/** `NorwegianStemmer().stem(word)` (NLTK 3.8, ignore_stopwords=False). */
export function stemNorwegian (word: string): string {
  return withCodePoints(pyLower(word), stemNorwegianLowered)
}

/** `SwedishStemmer().stem(word)` (NLTK 3.8, ignore_stopwords=False). */
export function stemSwedish (word: string): string {
  return withCodePoints(pyLower(word), stemSwedishLowered)
}

function stemDanishLowered (word: string): string {
  let r1 = r1Scandinavian(word, DANISH_VOWELS)

  // STEP 1
  for (const suffix of DANISH_STEP1_SUFFIXES) {
    if (!r1.endsWith(suffix)) continue
    if (suffix === 's') {
      if (DANISH_S_ENDING.includes(at(word, -2))) {
        word = word.slice(0, -1)
        r1 = r1.slice(0, -1)
      }
    } else {
      word = word.slice(0, -suffix.length)
      r1 = r1.slice(0, -suffix.length)
    }
    break
  }

  // STEP 2
  if (endsWithAny(r1, DANISH_STEP2_SUFFIXES)) {
    word = word.slice(0, -1)
    r1 = r1.slice(0, -1)
  }

  // STEP 3
  if (r1.endsWith('igst')) {
    word = word.slice(0, -2)
    r1 = r1.slice(0, -2)
  }
  for (const suffix of DANISH_STEP3_SUFFIXES) {
    if (!r1.endsWith(suffix)) continue
    if (suffix === 'l\u00F8st') {
      word = word.slice(0, -1)
      r1 = r1.slice(0, -1)
    } else {
      word = word.slice(0, -suffix.length)
      r1 = r1.slice(0, -suffix.length)
      if (endsWithAny(r1, DANISH_STEP2_SUFFIXES)) {
        word = word.slice(0, -1)
        r1 = r1.slice(0, -1)
      }
    }
    break
  }

  // STEP 4: Undouble
  if (word.length > 3 && endsWithAny(word, DANISH_DOUBLE_CONSONANTS)) word = word.slice(0, -1)

  return word
}

function stemNorwegianLowered (word: string): string {
  let r1 = r1Scandinavian(word, NORWEGIAN_VOWELS)

  // STEP 1
  for (const suffix of NORWEGIAN_STEP1_SUFFIXES) {
    if (!r1.endsWith(suffix)) continue
    if (suffix === 'erte' || suffix === 'ert') {
      word = suffixReplace(word, suffix, 'er')
      r1 = suffixReplace(r1, suffix, 'er')
    } else if (suffix === 's') {
      if (NORWEGIAN_S_ENDING.includes(at(word, -2)) ||
          (at(word, -2) === 'k' && !NORWEGIAN_VOWELS.includes(at(word, -3)))) {
        word = word.slice(0, -1)
        r1 = r1.slice(0, -1)
      }
    } else {
      word = word.slice(0, -suffix.length)
      r1 = r1.slice(0, -suffix.length)
    }
    break
  }

  // STEP 2
  if (endsWithAny(r1, NORWEGIAN_STEP2_SUFFIXES)) {
    word = word.slice(0, -1)
    r1 = r1.slice(0, -1)
  }

  // STEP 3
  for (const suffix of NORWEGIAN_STEP3_SUFFIXES) {
    if (r1.endsWith(suffix)) {
      word = word.slice(0, -suffix.length)
      break
    }
  }

  return word
}

function stemSwedishLowered (word: string): string {
  let r1 = r1Scandinavian(word, SWEDISH_VOWELS)

  // STEP 1
  for (const suffix of SWEDISH_STEP1_SUFFIXES) {
    if (!r1.endsWith(suffix)) continue
    if (suffix === 's') {
      if (SWEDISH_S_ENDING.includes(at(word, -2))) {
        word = word.slice(0, -1)
        r1 = r1.slice(0, -1)
      }
    } else {
      word = word.slice(0, -suffix.length)
      r1 = r1.slice(0, -suffix.length)
    }
    break
  }

  // STEP 2
  if (endsWithAny(r1, SWEDISH_STEP2_SUFFIXES)) {
    word = word.slice(0, -1)
    r1 = r1.slice(0, -1)
  }

  // STEP 3
  for (const suffix of SWEDISH_STEP3_SUFFIXES) {
    if (!r1.endsWith(suffix)) continue
    if (suffix === 'els' || suffix === 'lig' || suffix === 'ig') word = word.slice(0, -suffix.length)
    else word = word.slice(0, -1)
    break
  }

  return word
}
