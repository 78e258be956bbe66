/** NLTK 3.8's `GermanStemmer`, ported line by line from nltk/stem/snowball.py. */
import { pyLower } from '../../../python/python-str.js'
import { withCodePoints } from './code-points.js'
import { at, replaceAt } from './python.js'
import { r1r2Standard } from './regions.js'

const VOWELS = 'aeiouy\u00E4\u00F6\u00FC'
const S_ENDING = 'bdfghklmnrt'
const ST_ENDING = 'bdfghklmnt'
const STEP1_SUFFIXES = ['ern', 'em', 'er', 'en', 'es', 'e', 's']
const STEP2_SUFFIXES = ['est', 'en', 'er', 'st']
const STEP3_SUFFIXES = ['isch', 'lich', 'heit', 'keit', 'end', 'ung', 'ig', 'ik']

/** `GermanStemmer().stem(word)` (NLTK 3.8, ignore_stopwords=False). */
export function stemGerman (word: string): string {
  return withCodePoints(pyLower(word), stemLowered)
}

function stemLowered (word: string): string {
  word = word.replaceAll('\u00DF', 'ss')

  for (let i = 1; i < word.length - 1; i++) {
    if (VOWELS.includes(word[i - 1]!) && VOWELS.includes(word[i + 1]!)) {
      if (word[i] === 'u') word = replaceAt(word, i, 'U')
      else if (word[i] === 'y') word = replaceAt(word, i, 'Y')
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
    if ((suffix === 'en' || suffix === 'es' || suffix === 'e') && word.slice(-n - 4, -n) === 'niss') {
      word = word.slice(0, -n - 1)
      r1 = r1.slice(0, -n - 1)
      r2 = r2.slice(0, -n - 1)
    } else if (suffix === 's') {
      if (S_ENDING.includes(at(word, -2))) {
        word = word.slice(0, -1)
        r1 = r1.slice(0, -1)
        r2 = r2.slice(0, -1)
      }
    } else {
      word = word.slice(0, -n)
      r1 = r1.slice(0, -n)
      r2 = r2.slice(0, -n)
    }
    break
  }

  // STEP 2
  for (const suffix of STEP2_SUFFIXES) {
    if (!r1.endsWith(suffix)) continue
    if (suffix === 'st') {
      if (ST_ENDING.includes(at(word, -3)) && word.slice(0, -3).length >= 3) {
        word = word.slice(0, -2)
        r1 = r1.slice(0, -2)
        r2 = r2.slice(0, -2)
      }
    } else {
      word = word.slice(0, -suffix.length)
      r1 = r1.slice(0, -suffix.length)
      r2 = r2.slice(0, -suffix.length)
    }
    break
  }

  // STEP 3: Derivational suffixes
  for (const suffix of STEP3_SUFFIXES) {
    if (!r2.endsWith(suffix)) continue
    const n = suffix.length
    if (suffix === 'end' || suffix === 'ung') {
      if (r2.slice(-n - 2, -n).includes('ig') && !r2.slice(-n - 3, -n - 2).includes('e')) {
        word = word.slice(0, -n - 2)
      } else {
        word = word.slice(0, -n)
      }
    } else if ((suffix === 'ig' || suffix === 'ik' || suffix === 'isch') && !r2.slice(-n - 1, -n).includes('e')) {
      word = word.slice(0, -n)
    } else if (suffix === 'lich' || suffix === 'heit') {
      if (r1.slice(-n - 2, -n).includes('er') || r1.slice(-n - 2, -n).includes('en')) {
        word = word.slice(0, -n - 2)
      } else {
        word = word.slice(0, -n)
      }
    } else if (suffix === 'keit') {
      if (r2.slice(-n - 4, -n).includes('lich')) {
        word = word.slice(0, -n - 4)
      } else if (r2.slice(-n - 2, -n).includes('ig')) {
        word = word.slice(0, -n - 2)
      } else {
        word = word.slice(0, -n)
      }
    }
    break
  }

  return word.replaceAll('\u00E4', 'a').replaceAll('\u00F6', 'o').replaceAll('\u00FC', 'u')
    .replaceAll('U', 'u').replaceAll('Y', 'y')
}
