/**
 * NLTK 3.8's `ArabicStemmer` (the Snowball Arabic light stemmer), ported line by line from
 * nltk/stem/snowball.py with its quirks:
 * - its "diacritics" and "punctuation" character classes are written with stray hyphens
 *   (`[\u064b-\u064c-\u064d-...]`), so Python's regex also strips every "-";
 * - the one-letter "tables" of some steps are plain strings that NLTK loops over letter by
 *   letter, so noun step 2b removes two letters after a final "ا" or "ت";
 * - it never resets `suffixes_verb_step1_success`: once one word has passed verb step 1,
 *   every later word stemmed by the same stemmer takes that branch. A stemmer made by
 *   `createArabicStemmer` keeps that state, as one NLTK stemmer object does.
 */
import { withCodePoints } from './code-points.js'
import { prefixReplace, suffixReplace } from './python.js'

const VOCALIZATION = /[-\u064B-\u0652]/g
const KASHEEDA = /\u0640/g
const ARABIC_PUNCTUATION_MARKS = /[-\u060C-\u061B\u061F]/g
const INITIAL_HAMZAT = /^[\u0622\u0623\u0625]/
const LAST_HAMZAT = ['\u0623', '\u0625', '\u0622', '\u0624', '\u0626']

const CHECKS1 = ['\u0643\u0627\u0644', '\u0628\u0627\u0644', '\u0627\u0644', '\u0644\u0644']
const CHECKS2 = ['\u0629', '\u0627\u062A']

const SUFFIX_NOUN_STEP1A = [
  '\u064A', '\u0643', '\u0647', '\u0646\u0627', '\u0643\u0645', '\u0647\u0627', '\u0647\u0646',
  '\u0647\u0645', '\u0643\u0645\u0627', '\u0647\u0645\u0627'
]
const SUFFIX_NOUN_STEP2A = ['\u0627', '\u064A', '\u0648']
// NLTK's `__suffix_noun_step2b` is the string "ات", looped over letter by letter.
const SUFFIX_NOUN_STEP2B = ['\u0627', '\u062A']
const SUFFIX_VERB_STEP1 = [
  '\u0647', '\u0643', '\u0646\u064A', '\u0646\u0627', '\u0647\u0627', '\u0647\u0645',
  '\u0647\u0646', '\u0643\u0645', '\u0643\u0646', '\u0647\u0645\u0627', '\u0643\u0645\u0627',
  '\u0643\u0645\u0648'
]
const SUFFIX_VERB_STEP2A = [
  '\u062A', '\u0627', '\u0646', '\u064A', '\u0646\u0627', '\u062A\u0627', '\u062A\u0646',
  '\u0627\u0646', '\u0648\u0646', '\u064A\u0646', '\u062A\u0645\u0627'
]
const SUFFIX_VERB_STEP2B = ['\u0648\u0627', '\u062A\u0645']
const SUFFIX_VERB_STEP2C = ['\u0648', '\u062A\u0645\u0648']

const PREFIX_STEP1 = ['\u0623', '\u0623\u0623', '\u0623\u0622', '\u0623\u0624', '\u0623\u0627', '\u0623\u0625']
const PREFIX_STEP2A = ['\u0641\u0627\u0644', '\u0648\u0627\u0644']
const PREFIX_STEP2B = ['\u0641', '\u0648']
const PREFIX_STEP3A_NOUN = ['\u0627\u0644', '\u0644\u0644', '\u0643\u0627\u0644', '\u0628\u0627\u0644']
const PREFIX_STEP3B_NOUN = ['\u0628', '\u0643', '\u0644', '\u0628\u0628', '\u0643\u0643']
const PREFIX_STEP3_VERB = ['\u0633\u064A', '\u0633\u062A', '\u0633\u0646', '\u0633\u0623']
const PREFIX_STEP4_VERB = ['\u064A\u0633\u062A', '\u0646\u0633\u062A', '\u062A\u0633\u062A']

const CONJUGATION_SUFFIX_VERB_1 = ['\u0647', '\u0643']
const CONJUGATION_SUFFIX_VERB_2 = [
  '\u0646\u064A', '\u0646\u0627', '\u0647\u0627', '\u0647\u0645', '\u0647\u0646', '\u0643\u0645', '\u0643\u0646'
]
const CONJUGATION_SUFFIX_VERB_3 = ['\u0647\u0645\u0627', '\u0643\u0645\u0627', '\u0643\u0645\u0648']
const CONJUGATION_SUFFIX_VERB_4 = ['\u0627', '\u0646', '\u064A']
const CONJUGATION_SUFFIX_VERB_PAST = ['\u0646\u0627', '\u062A\u0627', '\u062A\u0646']
const CONJUGATION_SUFFIX_VERB_PRESENT = ['\u0627\u0646', '\u0648\u0646', '\u064A\u0646']
const CONJUGATION_SUFFIX_NOUN_1 = ['\u064A', '\u0643', '\u0647']
const CONJUGATION_SUFFIX_NOUN_2 = ['\u0646\u0627', '\u0643\u0645', '\u0647\u0627', '\u0647\u0646', '\u0647\u0645']
const CONJUGATION_SUFFIX_NOUN_3 = ['\u0643\u0645\u0627', '\u0647\u0645\u0627']

/** Prefixes, articles and prepositions. */
const PREFIXES1 = ['\u0648\u0627', '\u0641\u0627']
const ARTICLES_3LEN = ['\u0643\u0627\u0644', '\u0628\u0627\u0644']
const ARTICLES_2LEN = ['\u0627\u0644', '\u0644\u0644']
const PREPOSITIONS1 = ['\u0643', '\u0644']
const PREPOSITIONS2 = ['\u0628\u0628', '\u0643\u0643']

/**
 * Creates `ArabicStemmer().stem` (NLTK 3.8, ignore_stopwords=False), one stemmer object
 * with NLTK's state carried from word to word (see the module comment). Arabic is not
 * lower-cased.
 */
export function createArabicStemmer (): (word: string) => string {
  const stemmer = new ArabicStemmer()
  return word => withCodePoints(word, token => stemmer.stem(token))
}

class ArabicStemmer {
  #isVerb = true
  #isNoun = true
  #isDefined = false

  // Never reset by NLTK's stem(): see the module comment.
  #suffixesVerbStep1Success = false
  #suffixVerbStep2aSuccess = false
  #suffixVerbStep2bSuccess = false
  #suffixNounStep2c2Success = false
  #suffixNounStep2aSuccess = false
  #suffixNounStep2bSuccess = false
  #suffixeNounStep1bSuccess = false
  #prefixStep2aSuccess = false
  #prefixStep3aNounSuccess = false
  #prefixStep3bNounSuccess = false

  stem (word: string): string {
    this.#isVerb = true
    this.#isNoun = true
    this.#isDefined = false
    this.#suffixVerbStep2aSuccess = false
    this.#suffixVerbStep2bSuccess = false
    this.#suffixNounStep2c2Success = false
    this.#suffixNounStep2aSuccess = false
    this.#suffixNounStep2bSuccess = false
    this.#suffixeNounStep1bSuccess = false
    this.#prefixStep2aSuccess = false
    this.#prefixStep3aNounSuccess = false
    this.#prefixStep3bNounSuccess = false

    let modified = word
    // Guess the type and properties.
    this.#checks1(modified)
    this.#checks2(modified)
    modified = normalizePre(modified)
    if (modified.length <= 2) return modified

    if (this.#isVerb) {
      modified = this.#suffixVerbStep1(modified)
      if (this.#suffixesVerbStep1Success) {
        modified = this.#suffixVerbStep2a(modified)
        if (!this.#suffixVerbStep2aSuccess) modified = suffixVerbStep2c(modified)
      } else {
        modified = this.#suffixVerbStep2b(modified)
        if (!this.#suffixVerbStep2bSuccess) modified = this.#suffixVerbStep2a(modified)
      }
    }
    if (this.#isNoun) {
      modified = this.#suffixNounStep2c2(modified)
      if (!this.#suffixNounStep2c2Success) {
        if (!this.#isDefined) {
          modified = this.#suffixNounStep1a(modified)
          modified = this.#suffixNounStep2a(modified)
          if (!this.#suffixNounStep2aSuccess) modified = this.#suffixNounStep2b(modified)
          if (!this.#suffixNounStep2bSuccess && !this.#suffixNounStep2aSuccess) {
            modified = suffixNounStep2c1(modified)
          }
        } else {
          modified = this.#suffixNounStep1b(modified)
          if (this.#suffixeNounStep1bSuccess) {
            modified = this.#suffixNounStep2a(modified)
            if (!this.#suffixNounStep2aSuccess) modified = this.#suffixNounStep2b(modified)
            if (!this.#suffixNounStep2bSuccess && !this.#suffixNounStep2aSuccess) {
              modified = suffixNounStep2c1(modified)
            }
          } else {
            if (!this.#isDefined) modified = this.#suffixNounStep2a(modified)
            modified = this.#suffixNounStep2b(modified)
          }
        }
      }
      modified = suffixNounStep3(modified)
    }
    if (!this.#isNoun && this.#isVerb) modified = suffixAllAlefMaqsura(modified)

    // Prefixes
    modified = prefixStep1(modified)
    modified = this.#prefixStep2a(modified)
    if (!this.#prefixStep2aSuccess) modified = prefixStep2b(modified)
    modified = this.#prefixStep3aNoun(modified)
    if (!this.#prefixStep3aNounSuccess && this.#isNoun) {
      modified = this.#prefixStep3bNoun(modified)
    } else if (!this.#prefixStep3bNounSuccess && this.#isVerb) {
      modified = prefixStep3Verb(modified)
      modified = this.#prefixStep4Verb(modified)
    }

    return normalizePost(modified)
  }

  #checks1 (token: string): void {
    for (const prefix of CHECKS1) {
      if (!token.startsWith(prefix)) continue
      if (ARTICLES_3LEN.includes(prefix) && token.length > 4) {
        this.#markDefinedNoun()
        break
      }
      if (ARTICLES_2LEN.includes(prefix) && token.length > 3) {
        this.#markDefinedNoun()
        break
      }
    }
  }

  #markDefinedNoun (): void {
    this.#isNoun = true
    this.#isVerb = false
    this.#isDefined = true
  }

  #checks2 (token: string): void {
    for (const suffix of CHECKS2) {
      if (!token.endsWith(suffix)) continue
      if ((suffix === '\u0629' && token.length > 2) || (suffix === '\u0627\u062A' && token.length > 3)) {
        this.#isNoun = true
        this.#isVerb = false
        break
      }
    }
  }

  #suffixVerbStep1 (token: string): string {
    for (const suffix of SUFFIX_VERB_STEP1) {
      if (!token.endsWith(suffix)) continue
      const cut = conjugationCut(token, suffix, CONJUGATION_SUFFIX_VERB_1, CONJUGATION_SUFFIX_VERB_2, CONJUGATION_SUFFIX_VERB_3)
      if (cut > 0) {
        this.#suffixesVerbStep1Success = true
        return token.slice(0, -cut)
      }
    }
    return token
  }

  #suffixVerbStep2a (token: string): string {
    for (const suffix of SUFFIX_VERB_STEP2A) {
      if (!(token.endsWith(suffix) && token.length > 3)) continue
      let cut = 0
      if (suffix === '\u062A' && token.length >= 4) cut = 1
      else if (CONJUGATION_SUFFIX_VERB_4.includes(suffix) && token.length >= 4) cut = 1
      else if (CONJUGATION_SUFFIX_VERB_PAST.includes(suffix) && token.length >= 5) cut = 2
      else if (CONJUGATION_SUFFIX_VERB_PRESENT.includes(suffix) && token.length > 5) cut = 2
      else if (suffix === '\u062A\u0645\u0627' && token.length >= 6) cut = 3
      if (cut > 0) {
        this.#suffixVerbStep2aSuccess = true
        return token.slice(0, -cut)
      }
    }
    return token
  }

  #suffixVerbStep2b (token: string): string {
    for (const suffix of SUFFIX_VERB_STEP2B) {
      if (token.endsWith(suffix) && token.length >= 5) {
        this.#suffixVerbStep2bSuccess = true
        return token.slice(0, -2)
      }
    }
    return token
  }

  #suffixNounStep2c2 (token: string): string {
    if (token.endsWith('\u0629') && token.length >= 3) {
      this.#suffixNounStep2c2Success = true
      return token.slice(0, -1)
    }
    return token
  }

  #suffixNounStep1a (token: string): string {
    for (const suffix of SUFFIX_NOUN_STEP1A) {
      if (!token.endsWith(suffix)) continue
      const cut = conjugationCut(token, suffix, CONJUGATION_SUFFIX_NOUN_1, CONJUGATION_SUFFIX_NOUN_2, CONJUGATION_SUFFIX_NOUN_3)
      // NLTK records success here in a flag it never reads.
      if (cut > 0) return token.slice(0, -cut)
    }
    return token
  }

  #suffixNounStep2a (token: string): string {
    for (const suffix of SUFFIX_NOUN_STEP2A) {
      if (token.endsWith(suffix) && token.length > 4) {
        this.#suffixNounStep2aSuccess = true
        return token.slice(0, -1)
      }
    }
    return token
  }

  #suffixNounStep2b (token: string): string {
    for (const suffix of SUFFIX_NOUN_STEP2B) {
      if (token.endsWith(suffix) && token.length >= 5) {
        this.#suffixNounStep2bSuccess = true
        return token.slice(0, -2)
      }
    }
    return token
  }

  #suffixNounStep1b (token: string): string {
    if (token.endsWith('\u0646') && token.length > 5) {
      this.#suffixeNounStep1bSuccess = true
      return token.slice(0, -1)
    }
    return token
  }

  #prefixStep2a (token: string): string {
    for (const prefix of PREFIX_STEP2A) {
      if (token.startsWith(prefix) && token.length > 5) {
        this.#prefixStep2aSuccess = true
        return token.slice(prefix.length)
      }
    }
    return token
  }

  #prefixStep3aNoun (token: string): string {
    for (const prefix of PREFIX_STEP3A_NOUN) {
      if (!token.startsWith(prefix)) continue
      if (ARTICLES_2LEN.includes(prefix) && token.length > 4) {
        this.#prefixStep3aNounSuccess = true
        return token.slice(prefix.length)
      }
      if (ARTICLES_3LEN.includes(prefix) && token.length > 5) return token.slice(prefix.length)
    }
    return token
  }

  #prefixStep3bNoun (token: string): string {
    for (const prefix of PREFIX_STEP3B_NOUN) {
      if (!token.startsWith(prefix)) continue
      if (token.length > 3) {
        if (prefix === '\u0628') {
          this.#prefixStep3bNounSuccess = true
          return token.slice(prefix.length)
        }
        if (PREPOSITIONS2.includes(prefix)) {
          this.#prefixStep3bNounSuccess = true
          return prefixReplace(token, prefix, prefix[1]!)
        }
      }
      if (PREPOSITIONS1.includes(prefix) && token.length > 4) {
        this.#prefixStep3bNounSuccess = true
        return token.slice(prefix.length)
      }
    }
    return token
  }

  #prefixStep4Verb (token: string): string {
    for (const prefix of PREFIX_STEP4_VERB) {
      if (token.startsWith(prefix) && token.length > 4) {
        this.#isVerb = true
        this.#isNoun = false
        return prefixReplace(token, prefix, '\u0627\u0633\u062A')
      }
    }
    return token
  }
}

/** How many letters a one-, two- or three-letter conjugation suffix removes, given NLTK's length limits; 0 for none. */
function conjugationCut (
  token: string, suffix: string, one: readonly string[], two: readonly string[], three: readonly string[]
): number {
  if (one.includes(suffix) && token.length >= 4) return 1
  if (two.includes(suffix) && token.length >= 5) return 2
  if (three.includes(suffix) && token.length >= 6) return 3
  return 0
}

/** `__normalize_pre`: strips diacritics, kasheeda and punctuation (and, by NLTK's regexes, "-"). */
function normalizePre (token: string): string {
  return token.replace(VOCALIZATION, '').replace(KASHEEDA, '').replace(ARABIC_PUNCTUATION_MARKS, '')
}

/** `__normalize_post`: a final hamza carrier becomes "ء", the others plain letters. */
function normalizePost (token: string): string {
  for (const hamza of LAST_HAMZAT) {
    if (token.endsWith(hamza)) {
      token = suffixReplace(token, hamza, '\u0621')
      break
    }
  }
  return token.replace(INITIAL_HAMZAT, '\u0627').replaceAll('\u0624', '\u0648').replaceAll('\u0626', '\u064A')
    .replace(/[\u0623\u0622\u0625]/g, '\u0627')
}

function suffixVerbStep2c (token: string): string {
  for (const suffix of SUFFIX_VERB_STEP2C) {
    if (!token.endsWith(suffix)) continue
    if (suffix === '\u062A\u0645\u0648' && token.length >= 6) return token.slice(0, -3)
    if (suffix === '\u0648' && token.length >= 4) return token.slice(0, -1)
  }
  return token
}

function suffixNounStep2c1 (token: string): string {
  return token.endsWith('\u062A') && token.length >= 4 ? token.slice(0, -1) : token
}

function suffixNounStep3 (token: string): string {
  // The ya' nisbiya.
  return token.endsWith('\u064A') && token.length >= 3 ? token.slice(0, -1) : token
}

function suffixAllAlefMaqsura (token: string): string {
  return token.endsWith('\u0649') ? suffixReplace(token, '\u0649', '\u064A') : token
}

function prefixStep1 (token: string): string {
  for (const prefix of PREFIX_STEP1) {
    // The lone "أ" matches none of the replacements, so the loop goes on to the pairs.
    if (token.startsWith(prefix) && token.length > 3 && prefix.length === 2) {
      return prefixReplace(token, prefix, prefix[1]!)
    }
  }
  return token
}

function prefixStep2b (token: string): string {
  for (const prefix of PREFIX_STEP2B) {
    if (token.startsWith(prefix) && token.length > 3 && !PREFIXES1.includes(token.slice(0, 2))) {
      return token.slice(prefix.length)
    }
  }
  return token
}

function prefixStep3Verb (token: string): string {
  for (const prefix of PREFIX_STEP3_VERB) {
    if (token.startsWith(prefix) && token.length > 4) return prefixReplace(token, prefix, prefix[1]!)
  }
  return token
}
