/** NLTK 3.8's `ItalianStemmer`, ported line by line from nltk/stem/snowball.py. */
import { pyLower } from '../../../python/python-str.js'
import { withCodePoints } from './code-points.js'
import { endsWithAny, replaceAt, suffixReplace } from './python.js'
import { r1r2Standard, rvStandard } from './regions.js'

const VOWELS = 'aeiou\u00E0\u00E8\u00EC\u00F2\u00F9'
const STEP0_SUFFIXES = [
  'gliela', 'gliele', 'glieli', 'glielo', 'gliene', 'sene', 'mela', 'mele', 'meli', 'melo',
  'mene', 'tela', 'tele', 'teli', 'telo', 'tene', 'cela', 'cele', 'celi', 'celo', 'cene',
  'vela', 'vele', 'veli', 'velo', 'vene', 'gli', 'ci', 'la', 'le', 'li', 'lo', 'mi', 'ne',
  'si', 'ti', 'vi'
]
const STEP1_SUFFIXES = [
  'atrice', 'atrici', 'azione', 'azioni', 'uzione', 'uzioni', 'usione', 'usioni', 'amento',
  'amenti', 'imento', 'imenti', 'amente', 'abile', 'abili', 'ibile', 'ibili', 'mente', 'atore',
  'atori', 'logia', 'logie', 'anza', 'anze', 'iche', 'ichi', 'ismo', 'ismi', 'ista', 'iste',
  'isti', 'ist\u00E0', 'ist\u00E8', 'ist\u00EC', 'ante', 'anti', 'enza', 'enze', 'ico', 'ici',
  'ica', 'ice', 'oso', 'osi', 'osa', 'ose', 'it\u00E0', 'ivo', 'ivi', 'iva', 'ive'
]
const STEP2_SUFFIXES = [
  'erebbero', 'irebbero', 'assero', 'assimo', 'eranno', 'erebbe', 'eremmo', 'ereste',
  'eresti', 'essero', 'iranno', 'irebbe', 'iremmo', 'ireste', 'iresti', 'iscano', 'iscono',
  'issero', 'arono', 'avamo', 'avano', 'avate', 'eremo', 'erete', 'erono', 'evamo', 'evano',
  'evate', 'iremo', 'irete', 'irono', 'ivamo', 'ivano', 'ivate', 'ammo', 'ando', 'asse',
  'assi', 'emmo', 'enda', 'ende', 'endi', 'endo', 'erai', 'erei', 'Yamo', 'iamo', 'immo',
  'irai', 'irei', 'isca', 'isce', 'isci', 'isco', 'ano', 'are', 'ata', 'ate', 'ati', 'ato',
  'ava', 'avi', 'avo', 'er\u00E0', 'ere', 'er\u00F2', 'ete', 'eva', 'evi', 'evo', 'ir\u00E0',
  'ire', 'ir\u00F2', 'ita', 'ite', 'iti', 'ito', 'iva', 'ivi', 'ivo', 'ono', 'uta', 'ute',
  'uti', 'uto', 'ar', 'ir'
]
const STEP3A_SUFFIXES = ['a', 'e', 'i', 'o', '\u00E0', '\u00E8', '\u00EC', '\u00F2']

/** `ItalianStemmer().stem(word)` (NLTK 3.8, ignore_stopwords=False). */
export function stemItalian (word: string): string {
  return withCodePoints(pyLower(word), stemLowered)
}

function stemLowered (word: string): string {
  let step1Success = false

  // All acute accents become grave accents.
  word = word.replaceAll('\u00E1', '\u00E0').replaceAll('\u00E9', '\u00E8').replaceAll('\u00ED', '\u00EC')
    .replaceAll('\u00F3', '\u00F2').replaceAll('\u00FA', '\u00F9')

  for (let i = 1; i < word.length; i++) {
    if (word[i - 1] === 'q' && word[i] === 'u') word = replaceAt(word, i, 'U')
  }
  for (let i = 1; i < word.length - 1; i++) {
    if (VOWELS.includes(word[i - 1]!) && VOWELS.includes(word[i + 1]!)) {
      if (word[i] === 'u') word = replaceAt(word, i, 'U')
      else if (word[i] === 'i') word = replaceAt(word, i, 'I')
    }
  }

  let [r1, r2] = r1r2Standard(word, VOWELS)
  let rv = rvStandard(word, VOWELS)

  // STEP 0: Attached pronoun
  for (const suffix of STEP0_SUFFIXES) {
    if (!rv.endsWith(suffix)) continue
    const n = suffix.length
    const before4 = rv.slice(-n - 4, -n)
    const before2 = rv.slice(-n - 2, -n)
    if (before4 === 'ando' || before4 === 'endo') {
      word = word.slice(0, -n)
      r1 = r1.slice(0, -n)
      r2 = r2.slice(0, -n)
      rv = rv.slice(0, -n)
    } else if (before2 === 'ar' || before2 === 'er' || before2 === 'ir') {
      word = suffixReplace(word, suffix, 'e')
      r1 = suffixReplace(r1, suffix, 'e')
      r2 = suffixReplace(r2, suffix, 'e')
      rv = suffixReplace(rv, suffix, 'e')
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
      } else if (endsWithAny(r2, ['os', 'ic'])) {
        word = word.slice(0, -2)
        rv = rv.slice(0, -2)
      } else if (r2.endsWith('abil')) {
        word = word.slice(0, -4)
        rv = rv.slice(0, -4)
      }
    } else if ((suffix === 'amento' || suffix === 'amenti' || suffix === 'imento' || suffix === 'imenti') &&
        rv.endsWith(suffix)) {
      step1Success = true
      word = word.slice(0, -6)
      rv = rv.slice(0, -6)
    } else if (r2.endsWith(suffix)) {
      step1Success = true
      if (suffix === 'azione' || suffix === 'azioni' || suffix === 'atore' || suffix === 'atori') {
        word = word.slice(0, -n)
        r2 = r2.slice(0, -n)
        rv = rv.slice(0, -n)
        if (r2.endsWith('ic')) {
          word = word.slice(0, -2)
          rv = rv.slice(0, -2)
        }
      } else if (suffix === 'logia' || suffix === 'logie') {
        word = word.slice(0, -2)
        // NLTK takes RV from the word here, not from RV.
        rv = word.slice(0, -2)
      } else if (suffix === 'uzione' || suffix === 'uzioni' || suffix === 'usione' || suffix === 'usioni') {
        word = word.slice(0, -5)
        rv = rv.slice(0, -5)
      } else if (suffix === 'enza' || suffix === 'enze') {
        word = suffixReplace(word, suffix, 'te')
        rv = suffixReplace(rv, suffix, 'te')
      } else if (suffix === 'it\u00E0') {
        word = word.slice(0, -3)
        r2 = r2.slice(0, -3)
        rv = rv.slice(0, -3)
        if (endsWithAny(r2, ['ic', 'iv'])) {
          word = word.slice(0, -2)
          rv = rv.slice(0, -2)
        } else if (r2.endsWith('abil')) {
          word = word.slice(0, -4)
          rv = rv.slice(0, -4)
        }
      } else if (suffix === 'ivo' || suffix === 'ivi' || suffix === 'iva' || suffix === 'ive') {
        word = word.slice(0, -3)
        r2 = r2.slice(0, -3)
        rv = rv.slice(0, -3)
        if (r2.endsWith('at')) {
          word = word.slice(0, -2)
          r2 = r2.slice(0, -2)
          rv = rv.slice(0, -2)
          if (r2.endsWith('ic')) {
            word = word.slice(0, -2)
            rv = rv.slice(0, -2)
          }
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
        word = word.slice(0, -suffix.length)
        rv = rv.slice(0, -suffix.length)
        break
      }
    }
  }

  // STEP 3a
  if (endsWithAny(rv, STEP3A_SUFFIXES)) {
    word = word.slice(0, -1)
    rv = rv.slice(0, -1)
    if (rv.endsWith('i')) {
      word = word.slice(0, -1)
      rv = rv.slice(0, -1)
    }
  }

  // STEP 3b
  if (endsWithAny(rv, ['ch', 'gh'])) word = word.slice(0, -1)

  return word.replaceAll('I', 'i').replaceAll('U', 'u')
}
