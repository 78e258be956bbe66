/** NLTK 3.8's `FinnishStemmer`, ported line by line from nltk/stem/snowball.py. */
import { pyLower } from '../../../python/python-str.js'
import { withCodePoints } from './code-points.js'
import { at, endsWithAny, suffixReplace } from './python.js'
import { r1r2Standard } from './regions.js'

const VOWELS = 'aeiouy\u00E4\u00F6'
const RESTRICTED_VOWELS = 'aeiou\u00E4\u00F6'
const LONG_VOWELS = ['aa', 'ee', 'ii', 'oo', 'uu', '\u00E4\u00E4', '\u00F6\u00F6']
const CONSONANTS = 'bcdfghjklmnpqrstvwxz'
const DOUBLE_CONSONANTS = [
  'bb', 'cc', 'dd', 'ff', 'gg', 'hh', 'jj', 'kk', 'll', 'mm', 'nn', 'pp', 'qq', 'rr', 'ss',
  'tt', 'vv', 'ww', 'xx', 'zz'
]
const STEP1_SUFFIXES = ['kaan', 'k\u00E4\u00E4n', 'sti', 'kin', 'han', 'h\u00E4n', 'ko', 'k\u00F6', 'pa', 'p\u00E4']
const STEP2_SUFFIXES = ['nsa', 'ns\u00E4', 'mme', 'nne', 'si', 'ni', 'an', '\u00E4n', 'en']
const STEP3_SUFFIXES = [
  'siin', 'tten', 'seen', 'han', 'hen', 'hin', 'hon', 'h\u00E4n', 'h\u00F6n', 'den', 'tta',
  'tt\u00E4', 'ssa', 'ss\u00E4', 'sta', 'st\u00E4', 'lla', 'll\u00E4', 'lta', 'lt\u00E4', 'lle',
  'ksi', 'ine', 'ta', 't\u00E4', 'na', 'n\u00E4', 'a', '\u00E4', 'n'
]
const STEP4_SUFFIXES = [
  'impi', 'impa', 'imp\u00E4', 'immi', 'imma', 'imm\u00E4', 'mpi', 'mpa', 'mp\u00E4', 'mmi',
  'mma', 'mm\u00E4', 'eja', 'ej\u00E4'
]
/** Step 3's "h" + vowel + "n" endings, each removed only after its own vowel. */
const STEP3_H_VOWEL: ReadonlyMap<string, string> = new Map([
  ['han', 'a'], ['hen', 'e'], ['hin', 'i'], ['hon', 'o'], ['h\u00E4n', '\u00E4'], ['h\u00F6n', '\u00F6']
])
const STEP4_MP = ['mpi', 'mpa', 'mp\u00E4', 'mmi', 'mma', 'mm\u00E4']

/** `FinnishStemmer().stem(word)` (NLTK 3.8, ignore_stopwords=False). */
export function stemFinnish (word: string): string {
  return withCodePoints(pyLower(word), stemLowered)
}

function stemLowered (word: string): string {
  let step3Success = false
  let [r1, r2] = r1r2Standard(word, VOWELS)
  const cut = (n: number): void => {
    word = word.slice(0, -n)
    r1 = r1.slice(0, -n)
    r2 = r2.slice(0, -n)
  }

  // STEP 1: Particles etc.
  for (const suffix of STEP1_SUFFIXES) {
    if (!r1.endsWith(suffix)) continue
    if (suffix === 'sti') {
      if (r2.includes(suffix)) cut(3)
    } else if ('ntaeiouy\u00E4\u00F6'.includes(at(word, -suffix.length - 1))) {
      cut(suffix.length)
    }
    break
  }

  // STEP 2: Possessives
  for (const suffix of STEP2_SUFFIXES) {
    if (!r1.endsWith(suffix)) continue
    if (suffix === 'si') {
      if (at(word, -3) !== 'k') cut(2)
    } else if (suffix === 'ni') {
      cut(2)
      if (word.endsWith('kse')) word = suffixReplace(word, 'kse', 'ksi')
      if (r1.endsWith('kse')) r1 = suffixReplace(r1, 'kse', 'ksi')
      if (r2.endsWith('kse')) r2 = suffixReplace(r2, 'kse', 'ksi')
    } else if (suffix === 'an') {
      const two = word.slice(-4, -2)
      const three = word.slice(-5, -2)
      if (two === 'ta' || two === 'na' || three === 'ssa' || three === 'sta' || three === 'lla' || three === 'lta') cut(2)
    } else if (suffix === '\u00E4n') {
      const two = word.slice(-4, -2)
      const three = word.slice(-5, -2)
      if (two === 't\u00E4' || two === 'n\u00E4' || three === 'ss\u00E4' || three === 'st\u00E4' ||
          three === 'll\u00E4' || three === 'lt\u00E4') cut(2)
    } else if (suffix === 'en') {
      const three = word.slice(-5, -2)
      if (three === 'lle' || three === 'ine') cut(2)
    } else {
      cut(3)
    }
    break
  }

  // STEP 3: Cases
  for (const suffix of STEP3_SUFFIXES) {
    if (!r1.endsWith(suffix)) continue
    const vowel = STEP3_H_VOWEL.get(suffix)
    if (vowel !== undefined) {
      if (at(word, -4) === vowel) {
        cut(3)
        step3Success = true
      }
    } else if (suffix === 'siin' || suffix === 'den' || suffix === 'tten') {
      if (at(word, -suffix.length - 1) === 'i' && RESTRICTED_VOWELS.includes(at(word, -suffix.length - 2))) {
        cut(suffix.length)
        step3Success = true
      } else {
        continue
      }
    } else if (suffix === 'seen') {
      if (LONG_VOWELS.includes(word.slice(-6, -4))) {
        cut(4)
        step3Success = true
      } else {
        continue
      }
    } else if (suffix === 'a' || suffix === '\u00E4') {
      if (VOWELS.includes(at(word, -2)) && CONSONANTS.includes(at(word, -3))) {
        cut(1)
        step3Success = true
      }
    } else if (suffix === 'tta' || suffix === 'tt\u00E4') {
      if (at(word, -4) === 'e') {
        cut(3)
        step3Success = true
      }
    } else if (suffix === 'n') {
      cut(1)
      step3Success = true
      if (word.slice(-2) === 'ie' || LONG_VOWELS.includes(word.slice(-2))) cut(1)
    } else {
      cut(suffix.length)
      step3Success = true
    }
    break
  }

  // STEP 4: Other endings
  for (const suffix of STEP4_SUFFIXES) {
    if (!r2.endsWith(suffix)) continue
    if (STEP4_MP.includes(suffix)) {
      if (word.slice(-5, -3) !== 'po') cut(3)
    } else {
      cut(suffix.length)
    }
    break
  }

  // STEP 5: Plurals
  if (step3Success && r1.length >= 1 && 'ij'.includes(at(r1, -1))) {
    word = word.slice(0, -1)
    r1 = r1.slice(0, -1)
  } else if (!step3Success && r1.length >= 2 && at(r1, -1) === 't' && VOWELS.includes(at(r1, -2))) {
    cut(1)
    if (r2.endsWith('imma')) {
      word = word.slice(0, -4)
      r1 = r1.slice(0, -4)
    } else if (r2.endsWith('mma') && r2.slice(-5, -3) !== 'po') {
      word = word.slice(0, -3)
      r1 = r1.slice(0, -3)
    }
  }

  // STEP 6: Tidying up
  if (LONG_VOWELS.includes(r1.slice(-2))) {
    word = word.slice(0, -1)
    r1 = r1.slice(0, -1)
  }
  if (r1.length >= 2 && CONSONANTS.includes(at(r1, -2)) && 'a\u00E4ei'.includes(at(r1, -1))) {
    word = word.slice(0, -1)
    r1 = r1.slice(0, -1)
  }
  if (endsWithAny(r1, ['oj', 'uj'])) {
    word = word.slice(0, -1)
    r1 = r1.slice(0, -1)
  }
  if (r1.endsWith('jo')) {
    word = word.slice(0, -1)
    r1 = r1.slice(0, -1)
  }

  // A double consonant followed by zero or more vowels loses its last consonant.
  for (let i = 1; i < word.length; i++) {
    if (VOWELS.includes(at(word, -i))) continue
    if (i === 1) {
      if (DOUBLE_CONSONANTS.includes(word.slice(-i - 1))) word = word.slice(0, -1)
    } else if (DOUBLE_CONSONANTS.includes(word.slice(-i - 1, -i + 1))) {
      word = word.slice(0, -i) + word.slice(-i + 1)
    }
    break
  }

  return word
}
