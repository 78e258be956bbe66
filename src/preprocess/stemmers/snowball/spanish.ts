/** NLTK 3.8's `SpanishStemmer`, ported line by line from nltk/stem/snowball.py. */
import { pyLower } from '../../../python/python-str.js'
import { withCodePoints } from './code-points.js'
import { endsWithAny, suffixReplace } from './python.js'
import { r1r2Standard, rvStandard } from './regions.js'

const VOWELS = 'aeiou\u00E1\u00E9\u00ED\u00F3\u00FA\u00FC'
const STEP0_SUFFIXES = ['selas', 'selos', 'sela', 'selo', 'las', 'les', 'los', 'nos', 'me', 'se', 'la', 'le', 'lo']
const STEP0_BEFORE = ['ando', '\u00E1ndo', 'ar', '\u00E1r', 'er', '\u00E9r', 'iendo', 'i\u00E9ndo', 'ir', '\u00EDr']
const STEP1_SUFFIXES = [
  'amientos', 'imientos', 'amiento', 'imiento', 'acion', 'aciones', 'uciones', 'adoras',
  'adores', 'ancias', 'log\u00EDas', 'encias', 'amente', 'idades', 'anzas', 'ismos', 'ables',
  'ibles', 'istas', 'adora', 'aci\u00F3n', 'antes', 'ancia', 'log\u00EDa', 'uci\u00F3n', 'encia',
  'mente', 'anza', 'icos', 'icas', 'ismo', 'able', 'ible', 'ista', 'osos', 'osas', 'ador',
  'ante', 'idad', 'ivas', 'ivos', 'ico', 'ica', 'oso', 'osa', 'iva', 'ivo'
]
const STEP1_ADOR = new Set([
  'adora', 'ador', 'aci\u00F3n', 'adoras', 'adores', 'acion', 'aciones', 'ante', 'antes',
  'ancia', 'ancias'
])
const STEP2A_SUFFIXES = ['yeron', 'yendo', 'yamos', 'yais', 'yan', 'yen', 'yas', 'yes', 'ya', 'ye', 'yo', 'y\u00F3']
const STEP2B_SUFFIXES = [
  'ar\u00EDamos', 'er\u00EDamos', 'ir\u00EDamos', 'i\u00E9ramos', 'i\u00E9semos', 'ar\u00EDais',
  'aremos', 'er\u00EDais', 'eremos', 'ir\u00EDais', 'iremos', 'ierais', 'ieseis', 'asteis',
  'isteis', '\u00E1bamos', '\u00E1ramos', '\u00E1semos', 'ar\u00EDan', 'ar\u00EDas', 'ar\u00E9is',
  'er\u00EDan', 'er\u00EDas', 'er\u00E9is', 'ir\u00EDan', 'ir\u00EDas', 'ir\u00E9is', 'ieran',
  'iesen', 'ieron', 'iendo', 'ieras', 'ieses', 'abais', 'arais', 'aseis', '\u00E9amos',
  'ar\u00E1n', 'ar\u00E1s', 'ar\u00EDa', 'er\u00E1n', 'er\u00E1s', 'er\u00EDa', 'ir\u00E1n',
  'ir\u00E1s', 'ir\u00EDa', 'iera', 'iese', 'aste', 'iste', 'aban', 'aran', 'asen', 'aron',
  'ando', 'abas', 'adas', 'idas', 'aras', 'ases', '\u00EDais', 'ados', 'idos', 'amos', 'imos',
  'emos', 'ar\u00E1', 'ar\u00E9', 'er\u00E1', 'er\u00E9', 'ir\u00E1', 'ir\u00E9', 'aba', 'ada',
  'ida', 'ara', 'ase', '\u00EDan', 'ado', 'ido', '\u00EDas', '\u00E1is', '\u00E9is', '\u00EDa',
  'ad', 'ed', 'id', 'an', 'i\u00F3', 'ar', 'er', 'ir', 'as', '\u00EDs', 'en', 'es'
]
const STEP3_SUFFIXES = ['os', 'a', 'e', 'o', '\u00E1', '\u00E9', '\u00ED', '\u00F3']

/** `SpanishStemmer().stem(word)` (NLTK 3.8, ignore_stopwords=False). */
export function stemSpanish (word: string): string {
  return withCodePoints(pyLower(word), stemLowered)
}

/** `__replace_accented`: á, é, í, ó, ú to a, e, i, o, u. */
function replaceAccented (word: string): string {
  return word.replaceAll('\u00E1', 'a').replaceAll('\u00E9', 'e').replaceAll('\u00ED', 'i')
    .replaceAll('\u00F3', 'o').replaceAll('\u00FA', 'u')
}

function stemLowered (word: string): string {
  let step1Success = false
  let [r1, r2] = r1r2Standard(word, VOWELS)
  let rv = rvStandard(word, VOWELS)

  // STEP 0: Attached pronoun
  for (const suffix of STEP0_SUFFIXES) {
    if (!(word.endsWith(suffix) && rv.endsWith(suffix))) continue
    const n = suffix.length
    if (endsWithAny(rv.slice(0, -n), STEP0_BEFORE) ||
        (rv.slice(0, -n).endsWith('yendo') && word.slice(0, -n).endsWith('uyendo'))) {
      word = replaceAccented(word.slice(0, -n))
      r1 = replaceAccented(r1.slice(0, -n))
      r2 = replaceAccented(r2.slice(0, -n))
      rv = replaceAccented(rv.slice(0, -n))
    }
    break
  }

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
    } else if (r2.endsWith(suffix)) {
      step1Success = true
      if (STEP1_ADOR.has(suffix)) {
        word = word.slice(0, -n)
        r2 = r2.slice(0, -n)
        rv = rv.slice(0, -n)
        if (r2.endsWith('ic')) {
          word = word.slice(0, -2)
          rv = rv.slice(0, -2)
        }
      } else if (suffix === 'log\u00EDa' || suffix === 'log\u00EDas') {
        word = suffixReplace(word, suffix, 'log')
        rv = suffixReplace(rv, suffix, 'log')
      } else if (suffix === 'uci\u00F3n' || suffix === 'uciones') {
        word = suffixReplace(word, suffix, 'u')
        rv = suffixReplace(rv, suffix, 'u')
      } else if (suffix === 'encia' || suffix === 'encias') {
        word = suffixReplace(word, suffix, 'ente')
        rv = suffixReplace(rv, suffix, 'ente')
      } else if (suffix === 'mente') {
        word = word.slice(0, -n)
        r2 = r2.slice(0, -n)
        rv = rv.slice(0, -n)
        if (endsWithAny(r2, ['ante', 'able', 'ible'])) {
          word = word.slice(0, -4)
          rv = rv.slice(0, -4)
        }
      } else if (suffix === 'idad' || suffix === 'idades') {
        word = word.slice(0, -n)
        r2 = r2.slice(0, -n)
        rv = rv.slice(0, -n)
        for (const preSuffix of ['abil', 'ic', 'iv']) {
          if (r2.endsWith(preSuffix)) {
            word = word.slice(0, -preSuffix.length)
            rv = rv.slice(0, -preSuffix.length)
          }
        }
      } else if (suffix === 'ivo' || suffix === 'iva' || suffix === 'ivos' || suffix === 'ivas') {
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

  if (!step1Success) {
    // STEP 2a: Verb suffixes beginning 'y'
    for (const suffix of STEP2A_SUFFIXES) {
      const n = suffix.length
      if (rv.endsWith(suffix) && word.slice(-n - 1, -n) === 'u') {
        word = word.slice(0, -n)
        rv = rv.slice(0, -n)
        break
      }
    }

    // STEP 2b: Other verb suffixes
    for (const suffix of STEP2B_SUFFIXES) {
      if (!rv.endsWith(suffix)) continue
      word = word.slice(0, -suffix.length)
      rv = rv.slice(0, -suffix.length)
      if (suffix === 'en' || suffix === 'es' || suffix === '\u00E9is' || suffix === 'emos') {
        if (word.endsWith('gu')) word = word.slice(0, -1)
        if (rv.endsWith('gu')) rv = rv.slice(0, -1)
      }
      break
    }
  }

  // STEP 3: Residual suffix
  for (const suffix of STEP3_SUFFIXES) {
    if (!rv.endsWith(suffix)) continue
    word = word.slice(0, -suffix.length)
    if (suffix === 'e' || suffix === '\u00E9') {
      rv = rv.slice(0, -suffix.length)
      if (word.slice(-2) === 'gu' && rv.endsWith('u')) word = word.slice(0, -1)
    }
    break
  }

  return replaceAccented(word)
}
