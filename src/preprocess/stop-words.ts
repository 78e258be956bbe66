/**
 * NLTK's stop-word lists, `nltk.corpus.stopwords.words(language)`, as NLTK 3.8 reads the
 * stopwords corpus: each file's non-blank lines in file order, duplicates and trailing
 * spaces kept. The lists live in src/preprocess/data/nltk-stopwords.json, made and checked
 * against NLTK by test/fixtures/preprocess/stopwords-data.py; SOURCES.md beside it names the
 * nltk_data commit they come from.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { PREPROCESS_DATA_DIR } from '../layout.js'

/** The data file, kept with the sources (src/layout.ts). */
export const NLTK_STOPWORDS_PATH = path.join(PREPROCESS_DATA_DIR, 'nltk-stopwords.json')

// 110 KB, read at import: the language list is a constant, and every list is needed at once
// by whichever model names it.
const LISTS: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries(JSON.parse(readFileSync(NLTK_STOPWORDS_PATH, 'utf8')) as Record<string, string[]>)
    .map(([language, words]) => [language, Object.freeze(words)])
)

/** Every language the stopwords corpus has, as `stopwords.fileids()` lists them (sorted). */
export const NLTK_STOPWORD_LANGUAGES: readonly string[] = Object.freeze([...LISTS.keys()])

/**
 * `nltk.corpus.stopwords.words(language)`: the same frozen list on every call.
 *
 * @param language a file name of the corpus, e.g. 'english'; case-sensitive, as NLTK's
 *   lookup is on Linux.
 * @throws Error naming the language and the available ones when there is no such list.
 */
export function nltkStopWords (language: string): readonly string[] {
  const words = LISTS.get(language)
  if (words === undefined) {
    throw new Error(`no NLTK stop-word list for ${JSON.stringify(language)}; available: ${NLTK_STOPWORD_LANGUAGES.join(', ')}`)
  }
  return words
}
