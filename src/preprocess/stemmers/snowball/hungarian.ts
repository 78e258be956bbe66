/**
 * NLTK 3.8's `HungarianStemmer`, ported line by line from nltk/stem/snowball.py. Its
 * tables spell the double-acute letters with Latin-1 look-alikes ("õ", "û" rather than
 * "ő", "ű"), so ő and ű are not vowels to it, and its R1 after a digraph starts past the
 * first occurrence of the digraph's last letter anywhere in the word; both are kept.
 */
import { pyLower } from '../../../python/python-str.js'
import { withCodePoints } from './code-points.js'
import { at, endsWithAny, suffixReplace } from './python.js'

const VOWELS = 'aeiou\u00F6\u00FC\u00E1\u00E9\u00ED\u00F3\u00F5\u00FA\u00FB'
const DIGRAPHS = ['cs', 'dz', 'dzs', 'gy', 'ly', 'ny', 'ty', 'zs']
const DOUBLE_CONSONANTS = [
  'bb', 'cc', 'ccs', 'dd', 'ff', 'gg', 'ggy', 'jj', 'kk', 'll', 'lly', 'mm', 'nn', 'nny', 'pp',
  'rr', 'ss', 'ssz', 'tt', 'tty', 'vv', 'zz', 'zzs'
]
const STEP1_SUFFIXES = ['al', 'el']
const STEP2_SUFFIXES = [
  'k\u00E9ppen', 'onk\u00E9nt', 'enk\u00E9nt', 'ank\u00E9nt', 'k\u00E9pp', 'k\u00E9nt', 'ban',
  'ben', 'nak', 'nek', 'val', 'vel', 't\u00F3l', 't\u00F5l', 'r\u00F3l', 'r\u00F5l', 'b\u00F3l',
  'b\u00F5l', 'hoz', 'hez', 'h\u00F6z', 'n\u00E1l', 'n\u00E9l', '\u00E9rt', 'kor', 'ba', 'be',
  'ra', 're', 'ig', 'at', 'et', 'ot', '\u00F6t', 'ul', '\u00FCl', 'v\u00E1', 'v\u00E9', 'en',
  'on', 'an', '\u00F6n', 'n', 't'
]
const STEP3_SUFFIXES = ['\u00E1nk\u00E9nt', '\u00E1n', '\u00E9n']
const STEP4_SUFFIXES = ['astul', 'est\u00FCl', '\u00E1stul', '\u00E9st\u00FCl', 'stul', 'st\u00FCl']
const STEP5_SUFFIXES = ['\u00E1', '\u00E9']
const STEP6_SUFFIXES = [
  'ok\u00E9', '\u00F6k\u00E9', 'ak\u00E9', 'ek\u00E9', '\u00E1k\u00E9', '\u00E1\u00E9i',
  '\u00E9k\u00E9', '\u00E9\u00E9i', 'k\u00E9', '\u00E9i', '\u00E9\u00E9', '\u00E9'
]
const STEP7_SUFFIXES = [
  '\u00E1juk', '\u00E9j\u00FCk', '\u00FCnk', 'unk', 'juk', 'j\u00FCk', '\u00E1nk', '\u00E9nk',
  'nk', 'uk', '\u00FCk', 'em', 'om', 'am', 'od', 'ed', 'ad', '\u00F6d', 'ja', 'je', '\u00E1m',
  '\u00E1d', '\u00E9m', '\u00E9d', 'm', 'd', 'a', 'e', 'o', '\u00E1', '\u00E9'
]
const STEP8_SUFFIXES = [
  'jaitok', 'jeitek', 'jaink', 'jeink', 'aitok', 'eitek', '\u00E1itok', '\u00E9itek', 'jaim',
  'jeim', 'jaid', 'jeid', 'eink', 'aink', 'itek', 'jeik', 'jaik', '\u00E1ink', '\u00E9ink',
  'aim', 'eim', 'aid', 'eid', 'jai', 'jei', 'ink', 'aik', 'eik', '\u00E1im', '\u00E1id',
  '\u00E1ik', '\u00E9im', '\u00E9id', '\u00E9ik', 'im', 'id', 'ai', 'ei', 'ik', '\u00E1i',
  '\u00E9i', 'i'
]
const STEP9_SUFFIXES = ['\u00E1k', '\u00E9k', '\u00F6k', 'ok', 'ek', 'ak', 'k']
const STEP7_TO_A = ['\u00E1nk', '\u00E1juk', '\u00E1m', '\u00E1d', '\u00E1']
const STEP7_TO_E = ['\u00E9nk', '\u00E9j\u00FCk', '\u00E9m', '\u00E9d', '\u00E9']
const STEP8_TO_A = ['\u00E1im', '\u00E1id', '\u00E1i', '\u00E1ink', '\u00E1itok', '\u00E1ik']
const STEP8_TO_E = ['\u00E9im', '\u00E9id', '\u00E9i', '\u00E9ink', '\u00E9itek', '\u00E9ik']

/**
 * `HungarianStemmer().stem(word)` (NLTK 3.8, ignore_stopwords=False).
 * @throws RangeError for the empty word, where NLTK raises IndexError.
 */
export function stemHungarian (word: string): string {
  return withCodePoints(pyLower(word), stemLowered)
}

/** `__r1_hungarian`. */
function r1Hungarian (word: string): string {
  let r1 = ''
  if (VOWELS.includes(at(word, 0))) {
    for (const digraph of DIGRAPHS) {
      if (word.slice(1).includes(digraph)) {
        return word.slice(word.indexOf(at(digraph, -1)) + 1)
      }
    }
    for (let i = 1; i < word.length; i++) {
      if (!VOWELS.includes(word[i]!)) {
        r1 = word.slice(i + 1)
        break
      }
    }
  } else {
    for (let i = 1; i < word.length; i++) {
      if (VOWELS.includes(word[i]!)) {
        r1 = word.slice(i + 1)
        break
      }
    }
  }
  return r1
}

function stemLowered (word: string): string {
  let r1 = r1Hungarian(word)

  // STEP 1: Remove instrumental case
  if (endsWithAny(r1, STEP1_SUFFIXES)) {
    for (const double of DOUBLE_CONSONANTS) {
      if (word.slice(-2 - double.length, -2) === double) {
        word = word.slice(0, -4) + at(word, -3)
        if (r1.slice(-2 - double.length, -2) === double) r1 = r1.slice(0, -4) + at(r1, -3)
        break
      }
    }
  }

  // STEP 2: Remove frequent cases
  for (const suffix of STEP2_SUFFIXES) {
    if (!word.endsWith(suffix)) continue
    if (r1.endsWith(suffix)) {
      word = word.slice(0, -suffix.length)
      r1 = r1.slice(0, -suffix.length)
      if (r1.endsWith('\u00E1')) {
        word = word.slice(0, -1) + 'a'
        r1 = suffixReplace(r1, '\u00E1', 'a')
      } else if (r1.endsWith('\u00E9')) {
        word = word.slice(0, -1) + 'e'
        r1 = suffixReplace(r1, '\u00E9', 'e')
      }
    }
    break
  }

  // STEP 3: Remove special cases
  for (const suffix of STEP3_SUFFIXES) {
    if (!r1.endsWith(suffix)) continue
    const replacement = suffix === '\u00E9n' ? 'e' : 'a'
    word = suffixReplace(word, suffix, replacement)
    r1 = suffixReplace(r1, suffix, replacement)
    break
  }

  // STEP 4: Remove other cases
  for (const suffix of STEP4_SUFFIXES) {
    if (!r1.endsWith(suffix)) continue
    if (suffix === '\u00E1stul') {
      word = suffixReplace(word, suffix, 'a')
      r1 = suffixReplace(r1, suffix, 'a')
    } else if (suffix === '\u00E9st\u00FCl') {
      word = suffixReplace(word, suffix, 'e')
      r1 = suffixReplace(r1, suffix, 'e')
    } else {
      word = word.slice(0, -suffix.length)
      r1 = r1.slice(0, -suffix.length)
    }
    break
  }

  // STEP 5: Remove factive case (NLTK tries both endings, with no break between them)
  for (const suffix of STEP5_SUFFIXES) {
    if (!r1.endsWith(suffix)) continue
    for (const double of DOUBLE_CONSONANTS) {
      if (word.slice(-1 - double.length, -1) === double) {
        word = word.slice(0, -3) + at(word, -2)
        if (r1.slice(-1 - double.length, -1) === double) r1 = r1.slice(0, -3) + at(r1, -2)
        break
      }
    }
  }

  // STEP 6: Remove owned
  for (const suffix of STEP6_SUFFIXES) {
    if (!r1.endsWith(suffix)) continue
    if (suffix === '\u00E1k\u00E9' || suffix === '\u00E1\u00E9i') {
      word = suffixReplace(word, suffix, 'a')
      r1 = suffixReplace(r1, suffix, 'a')
    } else if (suffix === '\u00E9k\u00E9' || suffix === '\u00E9\u00E9i' || suffix === '\u00E9\u00E9') {
      word = suffixReplace(word, suffix, 'e')
      r1 = suffixReplace(r1, suffix, 'e')
    } else {
      word = word.slice(0, -suffix.length)
      r1 = r1.slice(0, -suffix.length)
    }
    break
  }

  // STEP 7: Remove singular owner suffixes
  for (const suffix of STEP7_SUFFIXES) {
    if (!word.endsWith(suffix)) continue
    if (r1.endsWith(suffix)) {
      if (STEP7_TO_A.includes(suffix)) {
        word = suffixReplace(word, suffix, 'a')
        r1 = suffixReplace(r1, suffix, 'a')
      } else if (STEP7_TO_E.includes(suffix)) {
        word = suffixReplace(word, suffix, 'e')
        r1 = suffixReplace(r1, suffix, 'e')
      } else {
        word = word.slice(0, -suffix.length)
        r1 = r1.slice(0, -suffix.length)
      }
    }
    break
  }

  // STEP 8: Remove plural owner suffixes
  for (const suffix of STEP8_SUFFIXES) {
    if (!word.endsWith(suffix)) continue
    if (r1.endsWith(suffix)) {
      if (STEP8_TO_A.includes(suffix)) {
        word = suffixReplace(word, suffix, 'a')
        r1 = suffixReplace(r1, suffix, 'a')
      } else if (STEP8_TO_E.includes(suffix)) {
        word = suffixReplace(word, suffix, 'e')
        r1 = suffixReplace(r1, suffix, 'e')
      } else {
        word = word.slice(0, -suffix.length)
        r1 = r1.slice(0, -suffix.length)
      }
    }
    break
  }

  // STEP 9: Remove plural suffixes
  for (const suffix of STEP9_SUFFIXES) {
    if (!word.endsWith(suffix)) continue
    if (r1.endsWith(suffix)) {
      if (suffix === '\u00E1k') word = suffixReplace(word, suffix, 'a')
      else if (suffix === '\u00E9k') word = suffixReplace(word, suffix, 'e')
      else word = word.slice(0, -suffix.length)
    }
    break
  }

  return word
}
