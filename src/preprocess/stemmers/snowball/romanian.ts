/**
 * NLTK 3.8's `RomanianStemmer`, ported line by line from nltk/stem/snowball.py. Its
 * tables use the cedilla letters "ş" and "ţ" (U+015F, U+0163), not the comma-below "ș"
 * and "ț", and several of its tests look for a suffix anywhere in a region ("suffix in
 * r1") rather than at its end; both are kept.
 */
import { pyLower } from '../../../python/python-str.js'
import { withCodePoints } from './code-points.js'
import { at, replaceAt, suffixReplace } from './python.js'
import { r1r2Standard, rvStandard } from './regions.js'

const VOWELS = 'aeiou\u0103\u00E2\u00EE'
const STEP0_SUFFIXES = [
  'iilor', 'ului', 'elor', 'iile', 'ilor', 'atei', 'a\u0163ie', 'a\u0163ia', 'aua', 'ele', 'iua',
  'iei', 'ile', 'ul', 'ea', 'ii'
]
const STEP1_SUFFIXES = [
  'abilitate', 'abilitati', 'abilit\u0103\u0163i', 'ibilitate', 'abilit\u0103i', 'ivitate',
  'ivitati', 'ivit\u0103\u0163i', 'icitate', 'icitati', 'icit\u0103\u0163i', 'icatori',
  'ivit\u0103i', 'icit\u0103i', 'icator', 'a\u0163iune', 'atoare', '\u0103toare', 'i\u0163iune',
  'itoare', 'iciva', 'icive', 'icivi', 'iciv\u0103', 'icala', 'icale', 'icali', 'ical\u0103',
  'ativa', 'ative', 'ativi', 'ativ\u0103', 'atori', '\u0103tori', 'itiva', 'itive', 'itivi',
  'itiv\u0103', 'itori', 'iciv', 'ical', 'ativ', 'ator', '\u0103tor', 'itiv', 'itor'
]
const STEP2_SUFFIXES = [
  'abila', 'abile', 'abili', 'abil\u0103', 'ibila', 'ibile', 'ibili', 'ibil\u0103', 'atori',
  'itate', 'itati', 'it\u0103\u0163i', 'abil', 'ibil', 'oasa', 'oas\u0103', 'oase', 'anta',
  'ante', 'anti', 'ant\u0103', 'ator', 'it\u0103i', 'iune', 'iuni', 'isme', 'ista', 'iste',
  'isti', 'ist\u0103', 'i\u015Fti', 'ata', 'at\u0103', 'ati', 'ate', 'uta', 'ut\u0103', 'uti',
  'ute', 'ita', 'it\u0103', 'iti', 'ite', 'ica', 'ice', 'ici', 'ic\u0103', 'osi', 'o\u015Fi',
  'ant', 'iva', 'ive', 'ivi', 'iv\u0103', 'ism', 'ist', 'at', 'ut', 'it', 'ic', 'os', 'iv'
]
const STEP3_SUFFIXES = [
  'seser\u0103\u0163i', 'aser\u0103\u0163i', 'iser\u0103\u0163i', '\u00E2ser\u0103\u0163i',
  'user\u0103\u0163i', 'seser\u0103m', 'aser\u0103m', 'iser\u0103m', '\u00E2ser\u0103m',
  'user\u0103m', 'ser\u0103\u0163i', 'sese\u015Fi', 'seser\u0103', 'easc\u0103',
  'ar\u0103\u0163i', 'ur\u0103\u0163i', 'ir\u0103\u0163i', '\u00E2r\u0103\u0163i', 'ase\u015Fi',
  'aser\u0103', 'ise\u015Fi', 'iser\u0103', '\u00E2se\u015Fi', '\u00E2ser\u0103', 'use\u015Fi',
  'user\u0103', 'ser\u0103m', 'sesem', 'indu', '\u00E2ndu', 'eaz\u0103', 'e\u015Fti',
  'e\u015Fte', '\u0103\u015Fti', '\u0103\u015Fte', 'ea\u0163i', 'ia\u0163i', 'ar\u0103m',
  'ur\u0103m', 'ir\u0103m', '\u00E2r\u0103m', 'asem', 'isem', '\u00E2sem', 'usem', 'se\u015Fi',
  'ser\u0103', 'sese', 'are', 'ere', 'ire', '\u00E2re', 'ind', '\u00E2nd', 'eze', 'ezi', 'esc',
  '\u0103sc', 'eam', 'eai', 'eau', 'iam', 'iai', 'iau', 'a\u015Fi', 'ar\u0103', 'u\u015Fi',
  'ur\u0103', 'i\u015Fi', 'ir\u0103', '\u00E2\u015Fi', '\u00E2r\u0103', 'ase', 'ise', '\u00E2se',
  'use', 'a\u0163i', 'e\u0163i', 'i\u0163i', '\u00E2\u0163i', 'sei', 'ez', 'am', 'ai', 'au',
  'ea', 'ia', 'ui', '\u00E2i', '\u0103m', 'em', 'im', '\u00E2m', 'se'
]
const STEP3_DELETE = [
  'seser\u0103\u0163i', 'seser\u0103m', 'ser\u0103\u0163i', 'sese\u015Fi', 'seser\u0103',
  'ser\u0103m', 'sesem', 'se\u015Fi', 'ser\u0103', 'sese', 'a\u0163i', 'e\u0163i', 'i\u0163i',
  '\u00E2\u0163i', 'sei', '\u0103m', 'em', 'im', '\u00E2m', 'se'
]
const STEP1_TO_IC = [
  'icitate', 'icitati', 'icit\u0103i', 'icit\u0103\u0163i', 'icator', 'icatori', 'iciv', 'iciva',
  'icive', 'icivi', 'iciv\u0103', 'ical', 'icala', 'icale', 'icali', 'ical\u0103'
]
const STEP1_TO_AT = [
  'ativ', 'ativa', 'ative', 'ativi', 'ativ\u0103', 'a\u0163iune', 'atoare', 'ator', 'atori',
  '\u0103toare', '\u0103tor', '\u0103tori'
]
const STEP1_TO_IT = [
  'itiv', 'itiva', 'itive', 'itivi', 'itiv\u0103', 'i\u0163iune', 'itoare', 'itor', 'itori'
]
const STEP1_TO_ABIL = ['abilitate', 'abilitati', 'abilit\u0103i', 'abilit\u0103\u0163i']
const STEP1_TO_IV = ['ivitate', 'ivitati', 'ivit\u0103i', 'ivit\u0103\u0163i']
const STEP2_TO_IST = ['ism', 'isme', 'ist', 'ista', 'iste', 'isti', 'ist\u0103', 'i\u015Fti']
const STEP4_SUFFIXES = ['ie', 'a', 'e', 'i', '\u0103']

/** `RomanianStemmer().stem(word)` (NLTK 3.8, ignore_stopwords=False). */
export function stemRomanian (word: string): string {
  return withCodePoints(pyLower(word), stemLowered)
}

function stemLowered (word: string): string {
  let step1Success = false
  let step2Success = false

  for (let i = 1; i < word.length - 1; i++) {
    if (VOWELS.includes(word[i - 1]!) && VOWELS.includes(word[i + 1]!)) {
      if (word[i] === 'u') word = replaceAt(word, i, 'U')
      else if (word[i] === 'i') word = replaceAt(word, i, 'I')
    }
  }

  const [r1, r2Start] = r1r2Standard(word, VOWELS)
  let r2 = r2Start
  let rv = rvStandard(word, VOWELS)

  // STEP 0: Removal of plurals and other simplifications
  for (const suffix of STEP0_SUFFIXES) {
    if (!word.endsWith(suffix)) continue
    if (r1.includes(suffix)) {
      if (suffix === 'ul' || suffix === 'ului') {
        word = word.slice(0, -suffix.length)
        rv = rv.includes(suffix) ? rv.slice(0, -suffix.length) : ''
      } else if (suffix === 'aua' || suffix === 'atei' || (suffix === 'ile' && word.slice(-5, -3) !== 'ab')) {
        word = word.slice(0, -2)
      } else if (suffix === 'ea' || suffix === 'ele' || suffix === 'elor') {
        word = suffixReplace(word, suffix, 'e')
        rv = rv.includes(suffix) ? suffixReplace(rv, suffix, 'e') : ''
      } else if (['ii', 'iua', 'iei', 'iile', 'iilor', 'ilor'].includes(suffix)) {
        word = suffixReplace(word, suffix, 'i')
        rv = rv.includes(suffix) ? suffixReplace(rv, suffix, 'i') : ''
      } else if (suffix === 'a\u0163ie' || suffix === 'a\u0163ia') {
        word = word.slice(0, -1)
      }
    }
    break
  }

  // STEP 1: Reduction of combining suffixes, repeated while one is replaced
  for (;;) {
    let replacementDone = false
    for (const suffix of STEP1_SUFFIXES) {
      if (!word.endsWith(suffix)) continue
      if (r1.includes(suffix)) {
        step1Success = true
        replacementDone = true
        if (STEP1_TO_ABIL.includes(suffix)) {
          word = suffixReplace(word, suffix, 'abil')
        } else if (suffix === 'ibilitate') {
          word = word.slice(0, -5)
        } else if (STEP1_TO_IV.includes(suffix)) {
          word = suffixReplace(word, suffix, 'iv')
        } else if (STEP1_TO_IC.includes(suffix)) {
          word = suffixReplace(word, suffix, 'ic')
        } else if (STEP1_TO_AT.includes(suffix)) {
          word = suffixReplace(word, suffix, 'at')
          if (r2.includes(suffix)) r2 = suffixReplace(r2, suffix, 'at')
        } else if (STEP1_TO_IT.includes(suffix)) {
          word = suffixReplace(word, suffix, 'it')
          if (r2.includes(suffix)) r2 = suffixReplace(r2, suffix, 'it')
        }
      } else {
        step1Success = false
      }
      break
    }
    if (!replacementDone) break
  }

  // STEP 2: Removal of standard suffixes
  for (const suffix of STEP2_SUFFIXES) {
    if (!word.endsWith(suffix)) continue
    if (r2.includes(suffix)) {
      step2Success = true
      if (suffix === 'iune' || suffix === 'iuni') {
        if (at(word, -5) === '\u0163') word = word.slice(0, -5) + 't'
      } else if (STEP2_TO_IST.includes(suffix)) {
        word = suffixReplace(word, suffix, 'ist')
      } else {
        word = word.slice(0, -suffix.length)
      }
    }
    break
  }

  // STEP 3: Removal of verb suffixes
  if (!step1Success && !step2Success) {
    for (const suffix of STEP3_SUFFIXES) {
      if (!word.endsWith(suffix)) continue
      if (rv.includes(suffix)) {
        if (STEP3_DELETE.includes(suffix)) {
          word = word.slice(0, -suffix.length)
          rv = rv.slice(0, -suffix.length)
        } else if (!rv.startsWith(suffix) && !'aeio\u0103\u00E2\u00EE'.includes(at(rv, rv.indexOf(suffix) - 1))) {
          word = word.slice(0, -suffix.length)
        }
        break
      }
    }
  }

  // STEP 4: Removal of final vowel
  for (const suffix of STEP4_SUFFIXES) {
    if (!word.endsWith(suffix)) continue
    if (rv.includes(suffix)) word = word.slice(0, -suffix.length)
    break
  }

  return word.replaceAll('I', 'i').replaceAll('U', 'u')
}
