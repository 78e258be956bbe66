/**
 * Sastrawi's word lists read from the app's installation: the stemmer's dictionary
 * (kata-dasar.txt, in the installed package's Stemmer/data/, or a file the settings name) and
 * its stop-word list (a file the settings name: PySastrawi keeps that list in its code, so it
 * is written out once, one word a line). docs/preprocessing.md, "Where the data comes from".
 */
import path from 'node:path'
import type { SastrawiFiles } from '../../settings/model-settings.js'
import { isFile, readDataFile, utf8Text, type FileRead } from './read-files.js'

export interface WordListRead {
  readonly read: FileRead
  readonly words: readonly string[]
}

/** Where the dictionary is inside an installed Sastrawi package (site-packages/Sastrawi). */
export const PACKAGE_DICTIONARY = path.join('Stemmer', 'data', 'kata-dasar.txt')

function readList (file: string, keep: (line: string) => boolean): WordListRead {
  const { bytes, read } = readDataFile(path.dirname(file), path.basename(file))
  return { read, words: utf8Text(bytes, file).split('\n').map(l => l.replace(/\r$/, '')).filter(keep) }
}

const fix = 'name it in model-settings.json: "sastrawi": "<the installed Sastrawi package folder>" or {"dictionary": "<kata-dasar.txt>", "stopwords": "<a file of its stop words, one a line>"}'

/**
 * ArrayDictionary of kata-dasar.txt: its lines, but empty and blank ones.
 * @throws Error in one line naming what was looked for and the fix.
 */
export function readSastrawiDictionary (files: SastrawiFiles | null): WordListRead {
  const file = files?.dictionary ?? (files?.package == null ? null : path.join(files.package, PACKAGE_DICTIONARY))
  if (file === null) throw new Error(`Sastrawi's dictionary (kata-dasar.txt) is not named: ${fix}`)
  if (!isFile(file)) throw new Error(`Sastrawi's dictionary is not installed: no ${file}; ${fix}`)
  return readList(file, w => w.trim() !== '')
}

/**
 * `StopWordRemoverFactory().get_stop_words()` as a file: its lines in order, but empty ones.
 * @throws Error in one line naming what was looked for and the fix.
 */
export function readSastrawiStopWords (files: SastrawiFiles | null): WordListRead {
  const file = files?.stopwords ?? null
  if (file === null) throw new Error(`Sastrawi's stop-word list is not named (PySastrawi keeps it in its code: write StopWordRemoverFactory().get_stop_words() to a file, one word a line): ${fix}`)
  if (!isFile(file)) throw new Error(`Sastrawi's stop-word list is not there: no ${file}; ${fix}`)
  return readList(file, w => w !== '')
}
