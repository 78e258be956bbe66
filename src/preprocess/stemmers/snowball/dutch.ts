/** NLTK 3.8's `DutchStemmer`, ported line by line from nltk/stem/snowball.py. */
import { pyLower } from '../../../python/python-str.js'
import { withCodePoints } from './code-points.js'
import { at, endsWithAny, replaceAt, suffixReplace } from './python.js'
import { r1r2Standard } from './regions.js'

const VOWELS = 'aeiouy\u00E8'
const STEP1_SUFFIXES = ['heden', 'ene', 'en', 'se', 's']
const STEP3B_SUFFIXES = ['baar', 'lijk', 'bar', 'end', 'ing', 'ig']
const UNDOUBLE = ['kk', 'dd', 'tt']
const ACCENTS: ReadonlyArray<readonly [string, string]> = [
  ['\u00E4', 'a'], ['\u00E1', 'a'], ['\u00EB', 'e'], ['\u00E9', 'e'], ['\u00ED', 'i'],
  ['\u00EF', 'i'], ['\u00F6', 'o'], ['\u00F3', 'o'], ['\u00FC', 'u'], ['\u00FA', 'u']
]

/** `DutchStemmer().stem(word)` (NLTK 3.8, ignore_stopwords=False). */
export function stemDutch (word: string): string {
  return withCodePoints(pyLower(word), stemLowered)
}

function stemLowered (word: string): string {
  let step2Success = false

  for (const [accented, plain] of ACCENTS) word = word.replaceAll(accented, plain)

  // An initial 'y', a 'y' after a vowel and an 'i' between vowels become consonants.
  if (word.startsWith('y')) word = 'Y' + word.slice(1)
  for (let i = 1; i < word.length; i++) {
    if (VOWELS.includes(word[i - 1]!) && word[i] === 'y') word = replaceAt(word, i, 'Y')
  }
  for (let i = 1; i < word.length - 1; i++) {
    if (VOWELS.includes(word[i - 1]!) && word[i] === 'i' && VOWELS.includes(word[i + 1]!)) {
      word = replaceAt(word, i, 'I')
    }
  }

  let [r1, r2] = r1r2Standard(word, VOWELS)
  // R1 is moved so that at least three letters precede it.
  for (let i = 1; i < word.length; i++) {
    if (!VOWELS.includes(word[i]!) && VOWELS.includes(word[i - 1]!)) {
      if (i + 1 < 3) r1 = word.slice(3)
      break
    }
  }

  // STEP 1
  for (const suffix of STEP1_SUFFIXES) {
    if (!r1.endsWith(suffix)) continue
    const n = suffix.length
    if (suffix === 'heden') {
      word = suffixReplace(word, suffix, 'heid')
      r1 = suffixReplace(r1, suffix, 'heid')
      if (r2.endsWith('heden')) r2 = suffixReplace(r2, suffix, 'heid')
    } else if ((suffix === 'ene' || suffix === 'en') && !word.endsWith('heden') &&
        !VOWELS.includes(at(word, -n - 1)) && word.slice(-n - 3, -n) !== 'gem') {
      word = word.slice(0, -n)
      r1 = r1.slice(0, -n)
      r2 = r2.slice(0, -n)
      if (endsWithAny(word, UNDOUBLE)) {
        word = word.slice(0, -1)
        r1 = r1.slice(0, -1)
        r2 = r2.slice(0, -1)
      }
    } else if ((suffix === 'se' || suffix === 's') && !VOWELS.includes(at(word, -n - 1)) && at(word, -n - 1) !== 'j') {
      word = word.slice(0, -n)
      r1 = r1.slice(0, -n)
      r2 = r2.slice(0, -n)
    }
    break
  }

  // STEP 2
  if (r1.endsWith('e') && !VOWELS.includes(at(word, -2))) {
    step2Success = true
    word = word.slice(0, -1)
    r1 = r1.slice(0, -1)
    r2 = r2.slice(0, -1)
    if (endsWithAny(word, UNDOUBLE)) {
      word = word.slice(0, -1)
      r1 = r1.slice(0, -1)
      r2 = r2.slice(0, -1)
    }
  }

  // STEP 3a
  if (r2.endsWith('heid') && at(word, -5) !== 'c') {
    word = word.slice(0, -4)
    r1 = r1.slice(0, -4)
    r2 = r2.slice(0, -4)
    if (r1.endsWith('en') && !VOWELS.includes(at(word, -3)) && word.slice(-5, -2) !== 'gem') {
      word = word.slice(0, -2)
      r1 = r1.slice(0, -2)
      r2 = r2.slice(0, -2)
      if (endsWithAny(word, UNDOUBLE)) {
        word = word.slice(0, -1)
        r1 = r1.slice(0, -1)
        r2 = r2.slice(0, -1)
      }
    }
  }

  // STEP 3b: Derivational suffixes
  for (const suffix of STEP3B_SUFFIXES) {
    if (!r2.endsWith(suffix)) continue
    if (suffix === 'end' || suffix === 'ing') {
      word = word.slice(0, -3)
      r2 = r2.slice(0, -3)
      if (r2.endsWith('ig') && at(word, -3) !== 'e') {
        word = word.slice(0, -2)
      } else if (endsWithAny(word, UNDOUBLE)) {
        word = word.slice(0, -1)
      }
    } else if (suffix === 'ig' && at(word, -3) !== 'e') {
      word = word.slice(0, -2)
    } else if (suffix === 'lijk') {
      word = word.slice(0, -4)
      r1 = r1.slice(0, -4)
      if (r1.endsWith('e') && !VOWELS.includes(at(word, -2))) {
        word = word.slice(0, -1)
        if (endsWithAny(word, UNDOUBLE)) word = word.slice(0, -1)
      }
    } else if (suffix === 'baar') {
      word = word.slice(0, -4)
    } else if (suffix === 'bar' && step2Success) {
      word = word.slice(0, -3)
    }
    break
  }

  // STEP 4: Undouble vowel
  if (word.length >= 4) {
    if (!VOWELS.includes(at(word, -1)) && at(word, -1) !== 'I') {
      const pair = word.slice(-3, -1)
      if ((pair === 'aa' || pair === 'ee' || pair === 'oo' || pair === 'uu') && !VOWELS.includes(at(word, -4))) {
        word = word.slice(0, -3) + at(word, -3) + at(word, -1)
      }
    }
  }

  return word.replaceAll('I', 'i').replaceAll('Y', 'y')
}
