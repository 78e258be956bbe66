/**
 * NLTK 3.8's `SnowballStemmer(language)` for every language it has, each ported line by
 * line from nltk/stem/snowball.py and checked word for word against NLTK
 * (test/preprocess/snowball.test.ts). Strings are handled as Python handles them: lowered
 * with Python's `str.lower()`, indexed by code point.
 *
 * Only `ignore_stopwords=False` is reproduced: NLTK's stop-word lists are not part of this
 * package, and with the option off NLTK consults none.
 */
import { createPorterStemmer } from '../porter.js'
import { createArabicStemmer } from './arabic.js'
import { stemDutch } from './dutch.js'
import { stemEnglish } from './english.js'
import { stemFinnish } from './finnish.js'
import { stemFrench } from './french.js'
import { stemGerman } from './german.js'
import { stemHungarian } from './hungarian.js'
import { stemItalian } from './italian.js'
import { stemPortuguese } from './portuguese.js'
import { stemRomanian } from './romanian.js'
import { stemRussian } from './russian.js'
import { stemDanish, stemNorwegian, stemSwedish } from './scandinavian.js'
import { stemSpanish } from './spanish.js'

type Stem = (word: string) => string

// Factories, not functions, because the Arabic stemmer carries state from word to word.
const FACTORIES: ReadonlyMap<string, () => Stem> = new Map<string, () => Stem>([
  ['arabic', createArabicStemmer],
  ['danish', () => stemDanish],
  ['dutch', () => stemDutch],
  ['english', () => stemEnglish],
  ['finnish', () => stemFinnish],
  ['french', () => stemFrench],
  ['german', () => stemGerman],
  ['hungarian', () => stemHungarian],
  ['italian', () => stemItalian],
  ['norwegian', () => stemNorwegian],
  // NLTK's snowball PorterStemmer is nltk.stem.porter.PorterStemmer() in its default mode.
  ['porter', () => createPorterStemmer('NLTK_EXTENSIONS')],
  ['portuguese', () => stemPortuguese],
  ['romanian', () => stemRomanian],
  ['russian', () => stemRussian],
  ['spanish', () => stemSpanish],
  ['swedish', () => stemSwedish]
])

/** `SnowballStemmer.languages` of NLTK 3.8, in its order. */
export const SNOWBALL_LANGUAGES: readonly string[] = Object.freeze([...FACTORIES.keys()])

/**
 * Creates `SnowballStemmer(language).stem` (NLTK 3.8, ignore_stopwords=False).
 *
 * The returned function throws a RangeError where NLTK raises IndexError (the Hungarian
 * stemmer on the empty string). The Arabic one keeps NLTK's state between calls, so make
 * one per sequence of words that one NLTK stemmer object would have seen.
 *
 * @throws Error naming the language and the known ones when NLTK has no such stemmer.
 */
export function createSnowballStemmer (language: string): Stem {
  const factory = FACTORIES.get(language)
  if (factory === undefined) {
    throw new Error(`no Snowball stemmer for language '${language}'; NLTK 3.8 has ${SNOWBALL_LANGUAGES.join(', ')}`)
  }
  return factory()
}
