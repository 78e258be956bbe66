/**
 * NLTK 3.8's `PortugueseStemmer`, ported line by line from nltk/stem/snowball.py: "ã" and
 * "õ" are spelled "a~" and "o~" while stemming, so a "~" in the input takes part too.
 */
import { pyLower } from '../../../python/python-str.js'
import { withCodePoints } from './code-points.js'
import { at, endsWithAny, suffixReplace } from './python.js'
import { r1r2Standard, rvStandard } from './regions.js'

const VOWELS = 'aeiou\u00E1\u00E9\u00ED\u00F3\u00FA\u00E2\u00EA\u00F4'
const STEP1_SUFFIXES = [
  'amentos', 'imentos', 'u\u00E7o~es', 'amento', 'imento', 'adoras', 'adores', 'a\u00E7o~es',
  'logias', '\u00EAncias', 'amente', 'idades', 'an\u00E7as', 'ismos', 'istas', 'adora',
  'a\u00E7a~o', 'antes', '\u00E2ncia', 'logia', 'u\u00E7a~o', '\u00EAncia', 'mente', 'idade',
  'an\u00E7a', 'ezas', 'icos', 'icas', 'ismo', '\u00E1vel', '\u00EDvel', 'ista', 'osos', 'osas',
  'ador', 'ante', 'ivas', 'ivos', 'iras', 'eza', 'ico', 'ica', 'oso', 'osa', 'iva', 'ivo', 'ira'
]
const STEP2_SUFFIXES = [
  'ar\u00EDamos', 'er\u00EDamos', 'ir\u00EDamos', '\u00E1ssemos', '\u00EAssemos', '\u00EDssemos',
  'ar\u00EDeis', 'er\u00EDeis', 'ir\u00EDeis', '\u00E1sseis', '\u00E9sseis', '\u00EDsseis',
  '\u00E1ramos', '\u00E9ramos', '\u00EDramos', '\u00E1vamos', 'aremos', 'eremos', 'iremos',
  'ariam', 'eriam', 'iriam', 'assem', 'essem', 'issem', 'ara~o', 'era~o', 'ira~o', 'arias',
  'erias', 'irias', 'ardes', 'erdes', 'irdes', 'asses', 'esses', 'isses', 'astes', 'estes',
  'istes', '\u00E1reis', 'areis', '\u00E9reis', 'ereis', '\u00EDreis', 'ireis', '\u00E1veis',
  '\u00EDamos', 'armos', 'ermos', 'irmos', 'aria', 'eria', 'iria', 'asse', 'esse', 'isse',
  'aste', 'este', 'iste', 'arei', 'erei', 'irei', 'aram', 'eram', 'iram', 'avam', 'arem',
  'erem', 'irem', 'ando', 'endo', 'indo', 'adas', 'idas', 'ar\u00E1s', 'aras', 'er\u00E1s',
  'eras', 'ir\u00E1s', 'avas', 'ares', 'eres', 'ires', '\u00EDeis', 'ados', 'idos', '\u00E1mos',
  'amos', 'emos', 'imos', 'iras', 'ada', 'ida', 'ar\u00E1', 'ara', 'er\u00E1', 'era', 'ir\u00E1',
  'ava', 'iam', 'ado', 'ido', 'ias', 'ais', 'eis', 'ira', 'ia', 'ei', 'am', 'em', 'ar', 'er',
  'ir', 'as', 'es', 'is', 'eu', 'iu', 'ou'
]
const STEP4_SUFFIXES = ['os', 'a', 'i', 'o', '\u00E1', '\u00ED', '\u00F3']

/** `PortugueseStemmer().stem(word)` (NLTK 3.8, ignore_stopwords=False). */
export function stemPortuguese (word: string): string {
  return withCodePoints(pyLower(word), stemLowered)
}

function stemLowered (word: string): string {
  let step1Success = false
  let step2Success = false

  word = word.replaceAll('\u00E3', 'a~').replaceAll('\u00F5', 'o~')
    .replaceAll('q\u00FC', 'qu').replaceAll('g\u00FC', 'gu')

  const [r1, r2Start] = r1r2Standard(word, VOWELS)
  let r2 = r2Start
  let rv = rvStandard(word, VOWELS)

  // STEP 1: Standard suffix removal
  for (const suffix of STEP1_SUFFIXES) {
    if (!word.endsWith(suffix)) continue
    const n = suffix.length
    if (suffix === 'amente' && r1.endsWith(suffix)) {
      step1Success = true
      word = word.slice(0, -6)
      r2 = r2.slice(0, -6)
      rv = rv.slice(0, -6)
      if (r2.endsWith('iv')) {
        word = word.slice(0, -2)
        r2 = r2.slice(0, -2)
        rv = rv.slice(0, -2)
        if (r2.endsWith('at')) {
          word = word.slice(0, -2)
          rv = rv.slice(0, -2)
        }
      } else if (endsWithAny(r2, ['os', 'ic', 'ad'])) {
        word = word.slice(0, -2)
        rv = rv.slice(0, -2)
      }
    } else if ((suffix === 'ira' || suffix === 'iras') && rv.endsWith(suffix) && word.slice(-n - 1, -n) === 'e') {
      step1Success = true
      word = suffixReplace(word, suffix, 'ir')
      rv = suffixReplace(rv, suffix, 'ir')
    } else if (r2.endsWith(suffix)) {
      step1Success = true
      if (suffix === 'logia' || suffix === 'logias') {
        word = suffixReplace(word, suffix, 'log')
        rv = suffixReplace(rv, suffix, 'log')
      } else if (suffix === 'u\u00E7a~o' || suffix === 'u\u00E7o~es') {
        word = suffixReplace(word, suffix, 'u')
        rv = suffixReplace(rv, suffix, 'u')
      } else if (suffix === '\u00EAncia' || suffix === '\u00EAncias') {
        word = suffixReplace(word, suffix, 'ente')
        rv = suffixReplace(rv, suffix, 'ente')
      } else if (suffix === 'mente') {
        word = word.slice(0, -5)
        r2 = r2.slice(0, -5)
        rv = rv.slice(0, -5)
        if (endsWithAny(r2, ['ante', 'avel', 'ivel'])) {
          word = word.slice(0, -4)
          rv = rv.slice(0, -4)
        }
      } else if (suffix === 'idade' || suffix === 'idades') {
        word = word.slice(0, -n)
        r2 = r2.slice(0, -n)
        rv = rv.slice(0, -n)
        if (endsWithAny(r2, ['ic', 'iv'])) {
          word = word.slice(0, -2)
          rv = rv.slice(0, -2)
        } else if (r2.endsWith('abil')) {
          word = word.slice(0, -4)
          rv = rv.slice(0, -4)
        }
      } else if (suffix === 'iva' || suffix === 'ivo' || suffix === 'ivas' || suffix === 'ivos') {
        word = word.slice(0, -n)
        r2 = r2.slice(0, -n)
        rv = rv.slice(0, -n)
        if (r2.endsWith('at')) {
          word = word.slice(0, -2)
          rv = rv.slice(0, -2)
        }
      } else {
        word = word.slice(0, -n)
        rv = rv.slice(0, -n)
      }
    }
    break
  }

  // STEP 2: Verb suffixes
  if (!step1Success) {
    for (const suffix of STEP2_SUFFIXES) {
      if (rv.endsWith(suffix)) {
        step2Success = true
        word = word.slice(0, -suffix.length)
        rv = rv.slice(0, -suffix.length)
        break
      }
    }
  }

  // STEP 3
  if (step1Success || step2Success) {
    if (rv.endsWith('i') && at(word, -2) === 'c') {
      word = word.slice(0, -1)
      rv = rv.slice(0, -1)
    }
  }

  // STEP 4: Residual suffix
  if (!step1Success && !step2Success) {
    for (const suffix of STEP4_SUFFIXES) {
      if (rv.endsWith(suffix)) {
        word = word.slice(0, -suffix.length)
        rv = rv.slice(0, -suffix.length)
        break
      }
    }
  }

  // STEP 5
  if (endsWithAny(rv, ['e', '\u00E9', '\u00EA'])) {
    word = word.slice(0, -1)
    rv = rv.slice(0, -1)
    if ((word.endsWith('gu') && rv.endsWith('u')) || (word.endsWith('ci') && rv.endsWith('i'))) {
      word = word.slice(0, -1)
    }
  } else if (word.endsWith('\u00E7')) {
    word = suffixReplace(word, '\u00E7', 'c')
  }

  return word.replaceAll('a~', '\u00E3').replaceAll('o~', '\u00F5')
}
