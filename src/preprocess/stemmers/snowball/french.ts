/** NLTK 3.8's `FrenchStemmer`, ported line by line from nltk/stem/snowball.py. */
import { pyLower } from '../../../python/python-str.js'
import { withCodePoints } from './code-points.js'
import { at, replaceAt, startsWithAny, suffixReplace } from './python.js'
import { r1r2Standard } from './regions.js'

const VOWELS = 'aeiouy\u00E2\u00E0\u00EB\u00E9\u00EA\u00E8\u00EF\u00EE\u00F4\u00FB\u00F9'
const STEP1_SUFFIXES = [
  'issements', 'issement', 'atrices', 'atrice', 'ateurs', 'ations', 'logies', 'usions',
  'utions', 'ements', 'amment', 'emment', 'ances', 'iqUes', 'ismes', 'ables', 'istes',
  'ateur', 'ation', 'logie', 'usion', 'ution', 'ences', 'ement', 'euses', 'ments', 'ance',
  'iqUe', 'isme', 'able', 'iste', 'ence', 'it\u00E9s', 'ives', 'eaux', 'euse', 'ment', 'eux',
  'it\u00E9', 'ive', 'ifs', 'aux', 'if'
]
const STEP2A_SUFFIXES = [
  'issaIent', 'issantes', 'iraIent', 'issante', 'issants', 'issions', 'irions', 'issais',
  'issait', 'issant', 'issent', 'issiez', 'issons', 'irais', 'irait', 'irent', 'iriez',
  'irons', 'iront', 'isses', 'issez', '\u00EEmes', '\u00EEtes', 'irai', 'iras', 'irez', 'isse',
  'ies', 'ira', '\u00EEt', 'ie', 'ir', 'is', 'it', 'i'
]
const STEP2B_SUFFIXES = [
  'eraIent', 'assions', 'erions', 'assent', 'assiez', '\u00E8rent', 'erais', 'erait',
  'eriez', 'erons', 'eront', 'aIent', 'antes', 'asses', 'ions', 'erai', 'eras', 'erez',
  '\u00E2mes', '\u00E2tes', 'ante', 'ants', 'asse', '\u00E9es', 'era', 'iez', 'ais', 'ait',
  'ant', '\u00E9e', '\u00E9s', 'er', 'ez', '\u00E2t', 'ai', 'as', '\u00E9', 'a'
]
const STEP2B_DELETE = new Set([
  'eraIent', 'erions', '\u00E8rent', 'erais', 'erait', 'eriez', 'erons', 'eront', 'erai',
  'eras', 'erez', '\u00E9es', 'era', 'iez', '\u00E9e', '\u00E9s', 'er', 'ez', '\u00E9'
])
const STEP2B_DELETE_AND_E = new Set([
  'assions', 'assent', 'assiez', 'aIent', 'antes', 'asses', '\u00E2mes', '\u00E2tes', 'ante',
  'ants', 'asse', 'ais', 'ait', 'ant', '\u00E2t', 'ai', 'as', 'a'
])
const STEP1_DELETE_IN_R2 = new Set([
  'ance', 'iqUe', 'isme', 'able', 'iste', 'eux', 'ances', 'iqUes', 'ismes', 'ables', 'istes'
])
const STEP1_ATOR = new Set(['atrice', 'ateur', 'ation', 'atrices', 'ateurs', 'ations'])
const STEP1_USION = new Set(['usion', 'ution', 'usions', 'utions'])
const STEP4_SUFFIXES = ['i\u00E8re', 'I\u00E8re', 'ion', 'ier', 'Ier', 'e', '\u00EB']
const STEP5_SUFFIXES = ['enn', 'onn', 'ett', 'ell', 'eill']

/** `FrenchStemmer().stem(word)` (NLTK 3.8, ignore_stopwords=False). */
export function stemFrench (word: string): string {
  return withCodePoints(pyLower(word), stemLowered)
}

/** `__rv_french`: after the third letter for "par", "col", "tap" or two leading vowels, else after the first vowel past the start. */
function rvFrench (word: string): string {
  let rv = ''
  if (word.length >= 2) {
    if (startsWithAny(word, ['par', 'col', 'tap']) || (VOWELS.includes(word[0]!) && VOWELS.includes(word[1]!))) {
      rv = word.slice(3)
    } else {
      for (let i = 1; i < word.length; i++) {
        if (VOWELS.includes(word[i]!)) {
          rv = word.slice(i + 1)
          break
        }
      }
    }
  }
  return rv
}

function stemLowered (word: string): string {
  let step1Success = false
  let rvEndingFound = false
  let step2aSuccess = false
  let step2bSuccess = false

  for (let i = 1; i < word.length; i++) {
    if (word[i - 1] === 'q' && word[i] === 'u') word = replaceAt(word, i, 'U')
  }
  for (let i = 1; i < word.length - 1; i++) {
    if (VOWELS.includes(word[i - 1]!) && VOWELS.includes(word[i + 1]!)) {
      if (word[i] === 'u') word = replaceAt(word, i, 'U')
      else if (word[i] === 'i') word = replaceAt(word, i, 'I')
    }
    if (VOWELS.includes(word[i - 1]!) || VOWELS.includes(word[i + 1]!)) {
      if (word[i] === 'y') word = replaceAt(word, i, 'Y')
    }
  }

  const [r1, r2] = r1r2Standard(word, VOWELS)
  let rv = rvFrench(word)

  // STEP 1: Standard suffix removal
  for (const suffix of STEP1_SUFFIXES) {
    if (!word.endsWith(suffix)) continue
    const n = suffix.length
    if (suffix === 'eaux') {
      word = word.slice(0, -1)
      step1Success = true
    } else if (suffix === 'euse' || suffix === 'euses') {
      if (r2.includes(suffix)) {
        word = word.slice(0, -n)
        step1Success = true
      } else if (r1.includes(suffix)) {
        word = suffixReplace(word, suffix, 'eux')
        step1Success = true
      }
    } else if ((suffix === 'ement' || suffix === 'ements') && rv.includes(suffix)) {
      word = word.slice(0, -n)
      step1Success = true
      if (word.slice(-2) === 'iv' && r2.includes('iv')) {
        word = word.slice(0, -2)
        if (word.slice(-2) === 'at' && r2.includes('at')) word = word.slice(0, -2)
      } else if (word.slice(-3) === 'eus') {
        if (r2.includes('eus')) word = word.slice(0, -3)
        else if (r1.includes('eus')) word = word.slice(0, -1) + 'x'
      } else if (word.slice(-3) === 'abl' || word.slice(-3) === 'iqU') {
        if (r2.includes('abl') || r2.includes('iqU')) word = word.slice(0, -3)
      } else if (word.slice(-3) === 'i\u00E8r' || word.slice(-3) === 'I\u00E8r') {
        if (rv.includes('i\u00E8r') || rv.includes('I\u00E8r')) word = word.slice(0, -3) + 'i'
      }
    } else if (suffix === 'amment' && rv.includes(suffix)) {
      word = suffixReplace(word, 'amment', 'ant')
      rv = suffixReplace(rv, 'amment', 'ant')
      rvEndingFound = true
    } else if (suffix === 'emment' && rv.includes(suffix)) {
      word = suffixReplace(word, 'emment', 'ent')
      rvEndingFound = true
    } else if ((suffix === 'ment' || suffix === 'ments') && rv.includes(suffix) && !rv.startsWith(suffix) &&
        VOWELS.includes(at(rv, rv.lastIndexOf(suffix) - 1))) {
      word = word.slice(0, -n)
      rv = rv.slice(0, -n)
      rvEndingFound = true
    } else if (suffix === 'aux' && r1.includes(suffix)) {
      word = word.slice(0, -2) + 'l'
      step1Success = true
    } else if ((suffix === 'issement' || suffix === 'issements') && r1.includes(suffix) &&
        !VOWELS.includes(at(word, -n - 1))) {
      word = word.slice(0, -n)
      step1Success = true
    } else if (STEP1_DELETE_IN_R2.has(suffix) && r2.includes(suffix)) {
      word = word.slice(0, -n)
      step1Success = true
    } else if (STEP1_ATOR.has(suffix) && r2.includes(suffix)) {
      word = word.slice(0, -n)
      step1Success = true
      if (word.slice(-2) === 'ic') {
        word = r2.includes('ic') ? word.slice(0, -2) : word.slice(0, -2) + 'iqU'
      }
    } else if ((suffix === 'logie' || suffix === 'logies') && r2.includes(suffix)) {
      word = suffixReplace(word, suffix, 'log')
      step1Success = true
    } else if (STEP1_USION.has(suffix) && r2.includes(suffix)) {
      word = suffixReplace(word, suffix, 'u')
      step1Success = true
    } else if ((suffix === 'ence' || suffix === 'ences') && r2.includes(suffix)) {
      word = suffixReplace(word, suffix, 'ent')
      step1Success = true
    } else if ((suffix === 'it\u00E9' || suffix === 'it\u00E9s') && r2.includes(suffix)) {
      word = word.slice(0, -n)
      step1Success = true
      if (word.slice(-4) === 'abil') {
        word = r2.includes('abil') ? word.slice(0, -4) : word.slice(0, -2) + 'l'
      } else if (word.slice(-2) === 'ic') {
        word = r2.includes('ic') ? word.slice(0, -2) : word.slice(0, -2) + 'iqU'
      } else if (word.slice(-2) === 'iv') {
        if (r2.includes('iv')) word = word.slice(0, -2)
      }
    } else if ((suffix === 'if' || suffix === 'ive' || suffix === 'ifs' || suffix === 'ives') && r2.includes(suffix)) {
      word = word.slice(0, -n)
      step1Success = true
      if (word.slice(-2) === 'at' && r2.includes('at')) {
        word = word.slice(0, -2)
        if (word.slice(-2) === 'ic') {
          word = r2.includes('ic') ? word.slice(0, -2) : word.slice(0, -2) + 'iqU'
        }
      }
    }
    break
  }

  // STEP 2a: Verb suffixes beginning 'i'
  if (!step1Success || rvEndingFound) {
    for (const suffix of STEP2A_SUFFIXES) {
      if (!word.endsWith(suffix)) continue
      if (rv.includes(suffix) && rv.length > suffix.length && !VOWELS.includes(at(rv, rv.lastIndexOf(suffix) - 1))) {
        word = word.slice(0, -suffix.length)
        step2aSuccess = true
      }
      break
    }

    // STEP 2b: Other verb suffixes
    if (!step2aSuccess) {
      for (const suffix of STEP2B_SUFFIXES) {
        if (!rv.endsWith(suffix)) continue
        if (suffix === 'ions' && r2.includes('ions')) {
          word = word.slice(0, -4)
          step2bSuccess = true
        } else if (STEP2B_DELETE.has(suffix)) {
          word = word.slice(0, -suffix.length)
          step2bSuccess = true
        } else if (STEP2B_DELETE_AND_E.has(suffix)) {
          word = word.slice(0, -suffix.length)
          rv = rv.slice(0, -suffix.length)
          step2bSuccess = true
          if (rv.endsWith('e')) word = word.slice(0, -1)
        }
        break
      }
    }
  }

  if (step1Success || step2aSuccess || step2bSuccess) {
    // STEP 3
    if (at(word, -1) === 'Y') word = word.slice(0, -1) + 'i'
    else if (at(word, -1) === '\u00E7') word = word.slice(0, -1) + 'c'
  } else {
    // STEP 4: Residual suffixes
    if (word.length >= 2 && at(word, -1) === 's' && !'aiou\u00E8s'.includes(at(word, -2))) {
      word = word.slice(0, -1)
    }
    for (const suffix of STEP4_SUFFIXES) {
      if (!word.endsWith(suffix)) continue
      if (rv.includes(suffix)) {
        if (suffix === 'ion' && r2.includes(suffix) && 'st'.includes(at(rv, -4))) {
          word = word.slice(0, -3)
        } else if (suffix === 'ier' || suffix === 'i\u00E8re' || suffix === 'Ier' || suffix === 'I\u00E8re') {
          word = suffixReplace(word, suffix, 'i')
        } else if (suffix === 'e') {
          word = word.slice(0, -1)
        } else if (suffix === '\u00EB' && word.slice(-3, -1) === 'gu') {
          word = word.slice(0, -1)
        }
        break
      }
    }
  }

  // STEP 5: Undouble
  for (const suffix of STEP5_SUFFIXES) {
    if (word.endsWith(suffix)) {
      word = word.slice(0, -1)
      break
    }
  }

  // STEP 6: Un-accent
  for (let i = 1; i < word.length; i++) {
    if (VOWELS.includes(at(word, -i))) {
      if (i !== 1 && (at(word, -i) === '\u00E9' || at(word, -i) === '\u00E8')) {
        word = word.slice(0, -i) + 'e' + word.slice(-i + 1)
      }
      break
    }
  }

  return word.replaceAll('I', 'i').replaceAll('U', 'u').replaceAll('Y', 'y')
}
