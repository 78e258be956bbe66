/**
 * `nltk.corpus.stopwords.words(language)` read where the app's NLTK reads it: the first data
 * folder holding corpora/stopwords/ (NLTK stops at the first one, as here), then that
 * language's file: decoded as UTF-8, cut at Python's line boundaries, the lines blank after
 * rstrip() dropped and every other kept as it is, in file order, duplicates included.
 */
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { pyRstrip } from '../../python/str-strip.js'
import { isFile, isFolder, readDataFile, utf8Text, type FileRead } from './read-files.js'
import { missingData } from './missing-data.js'

/** One language's list as the step read it. */
export interface StopWordsRead {
  readonly language: string
  readonly read: FileRead
  readonly words: readonly string[]
}

const CORPUS = path.join('corpora', 'stopwords')

/** Python's str.splitlines() boundaries. */
const LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/

export function stopWordLines (text: string): string[] {
  return text.split(LINE_BREAK).filter((line, i, all) => !(i === all.length - 1 && line === '') && pyRstrip(line) !== '')
}

/**
 * @throws Error in one line naming the package, the folders searched and the fix when no
 *   folder has the corpus, or the languages it has when it lacks this one.
 */
export function readNltkStopWords (folders: readonly string[], language: string): StopWordsRead {
  const folder = folders.find(f => isFolder(path.join(f, CORPUS)))
  if (folder === undefined) throw missingData('stopwords', CORPUS, folders)
  const relative = path.join(CORPUS, language)
  if (language.includes('/') || language.startsWith('.') || !isFile(path.join(folder, relative))) {
    const has = readdirSync(path.join(folder, CORPUS)).filter(f => f !== 'README' && !f.startsWith('.')).sort()
    throw new Error(`no NLTK stop-word list for ${JSON.stringify(language)}; the stopwords corpus at ${path.join(folder, CORPUS)} has ${has.join(', ')}`)
  }
  const { bytes, read } = readDataFile(folder, relative)
  return { language, read, words: stopWordLines(utf8Text(bytes, path.join(folder, relative))) }
}
