/**
 * The NLTK stemmers a Pipeline step class's state describes (sklearn/text/nltk-state.ts), as
 * the built-in ones with Python's method names, so a port calls them as the Python did:
 * `state.stemmer.stem(w)`, `state.lemmatizer.lemmatize(w, 'v')`. Each gives what NLTK 3.8
 * gives, and remembers recent words as the declared word steps do.
 */
import { pyLower } from '../python/python-str.js'
import { NLTK_CLASS_KEY, type NltkDescription } from '../sklearn/text/nltk-state.js'
import { memoized } from './compile-steps.js'
import { DEFAULT_RULES, createLancasterStemmer } from './stemmers/lancaster.js'
import { createPorterStemmer, type PorterMode } from './stemmers/porter.js'
import { createSnowballStemmer } from './stemmers/snowball/index.js'
import { createWordNetLemmatizer, type WordNetPos } from './wordnet-lemmatizer.js'

/** `nltk.stem.PorterStemmer(mode)`: `stem(word, to_lowercase=True)`. */
export interface PorterStemmerObject { readonly mode: string, stem: (word: string, toLowercase?: boolean) => string }
/** `nltk.stem.SnowballStemmer(language, ignore_stopwords)`: `stem(word)`. */
export interface SnowballStemmerObject { readonly language: string, readonly stopwords: ReadonlySet<string>, stem: (word: string) => string }
/** `nltk.stem.LancasterStemmer(strip_prefix_flag)`: `stem(word)`. */
export interface LancasterStemmerObject { stem: (word: string) => string }
/** `nltk.stem.WordNetLemmatizer()`: `lemmatize(word, pos='n')`. */
export interface WordNetLemmatizerObject { lemmatize: (word: string, pos?: string) => string }

function porter (mode: string): PorterStemmerObject {
  const lowering = memoized(createPorterStemmer(mode as PorterMode))
  const asGiven = memoized(createPorterStemmer(mode as PorterMode, { toLowercase: false }))
  return Object.freeze({ mode, stem: (word: string, toLowercase = true) => (toLowercase ? lowering : asGiven)(word) })
}

/**
 * Where each language's `stem` in NLTK 3.8 tests `word in self.stopwords` (non-empty only with
 * ignore_stopwords=True): after lowercasing, except Russian (the word as given) and 'porter'
 * (never). Arabic tests its normalized form, which only its stemmer computes: refused.
 */
function stopwordTest (language: string, stopwords: ReadonlySet<string>): ((word: string) => string | undefined) | null {
  if (stopwords.size === 0 || language === 'porter') return null
  if (language === 'arabic') throw new Error("SnowballStemmer('arabic', ignore_stopwords=True) is not reproduced: its stop words are tested on the normalized word")
  if (language === 'russian') return word => stopwords.has(word) ? word : undefined
  return word => { const lower = pyLower(word); return stopwords.has(lower) ? lower : undefined }
}

function snowball (language: string, words: readonly string[]): SnowballStemmerObject {
  const stopwords: ReadonlySet<string> = new Set(words)
  const test = stopwordTest(language, stopwords)
  // One Arabic stemmer object keeps flags from one word to the next in NLTK: a fresh one per word, as the word step does.
  const base = language === 'arabic' ? (w: string) => createSnowballStemmer('arabic')(w) : createSnowballStemmer(language)
  const stem = memoized(test === null ? base : w => test(w) ?? base(w))
  return Object.freeze({ language, stopwords, stem })
}

function lancaster (stripPrefix: boolean, rules: readonly string[]): LancasterStemmerObject {
  if (rules.length !== DEFAULT_RULES.length || rules.some((r, i) => r !== DEFAULT_RULES[i])) {
    throw new Error('LancasterStemmer with rules of its own (rule_tuple) is not reproduced: only NLTK\'s default rules are')
  }
  return Object.freeze({ stem: memoized(createLancasterStemmer({ stripPrefix })) })
}

function wordnet (): WordNetLemmatizerObject {
  const byPos = new Map<string, (word: string) => string>()
  return Object.freeze({
    lemmatize: (word: string, pos = 'n') => {
      let lemmatize = byPos.get(pos)
      if (lemmatize === undefined) byPos.set(pos, lemmatize = memoized(createWordNetLemmatizer(pos as WordNetPos)))
      return lemmatize(word)
    }
  })
}

function live (description: NltkDescription): object {
  switch (description.__class__) {
    case 'nltk.stem.porter.PorterStemmer': return porter(description.mode)
    case 'nltk.stem.snowball.SnowballStemmer': return snowball(description.language, description.stopwords)
    case 'nltk.stem.lancaster.LancasterStemmer': return lancaster(description.strip_prefix, description.rules)
    case 'nltk.stem.wordnet.WordNetLemmatizer': return wordnet()
  }
}

function isDescription (value: object): value is NltkDescription {
  return Object.hasOwn(value, NLTK_CLASS_KEY) && typeof (value as Record<string, unknown>)[NLTK_CLASS_KEY] === 'string' &&
    ((value as Record<string, string>)[NLTK_CLASS_KEY]!).startsWith('nltk.stem.')
}

/**
 * A step class's state (plain data) with every NLTK description in it replaced by the live
 * stemmer; the rest is copied as it is.
 * @throws Error for a stemmer whose state asks for what is not reproduced (stepFunction names the class).
 */
export function reviveNltkObjects (state: unknown): unknown {
  if (state === null || typeof state !== 'object') return state
  if (Array.isArray(state)) return state.map(reviveNltkObjects)
  if (isDescription(state)) return live(state)
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>
  for (const [key, value] of Object.entries(state)) out[key] = reviveNltkObjects(value)
  return out
}
