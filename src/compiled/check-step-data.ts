/**
 * The data a compiled model's steps read (NLTK's and Sastrawi's lists, src/preprocess/word-data),
 * checked as every other part of a compiled file is before it is used: each list a list of
 * strings, each Punkt table what Punkt keeps, each file read named with its SHA-256.
 */
import type { StepData } from '../preprocess/word-data/step-data.js'
import { Fields, shapeProblem } from '../sklearn/state-fields.js'

/** At most this many lists of each kind: a model names a handful. */
const MAX_LISTS = 1000

function checkFileRead (f: Fields, name: string): void {
  checkRead(f.object(name))
}

function checkRead (read: Fields): void {
  read.string('folder')
  read.string('file')
  if (!/^[0-9a-f]{64}$/.test(read.string('sha256'))) throw shapeProblem(`${read.where}.sha256`, 'is not a SHA-256')
}

function checkRecord (value: unknown, where: string, each: (entry: Fields, key: string) => void): void {
  const f = new Fields(value, where)
  const keys = Object.keys(value as object)
  if (keys.length > MAX_LISTS) throw shapeProblem(where, 'holds too many lists')
  for (const key of keys) each(f.object(key), key)
}

function checkWordList (f: Fields, name: string): void {
  f.nullable(name, n => {
    const list = f.object(n)
    checkFileRead(list, 'read')
    return list.strings('words')
  })
}

function checkPunktTables (tables: Fields): void {
  tables.strings('abbrevTypes')
  tables.strings('sentStarters')
  const collocations = tables.strings('collocations')
  if (collocations.some(c => c.split('\t').length !== 2)) throw shapeProblem(`${tables.where}.collocations`, 'are not all pairs of types')
  tables.list('orthoContext').forEach((entry, i) => {
    const where = `${tables.where}.orthoContext[${i}]`
    if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== 'string' || !Number.isSafeInteger(entry[1]) || (entry[1] as number) < 0) throw shapeProblem(where, 'is not a [type, flags] pair')
  })
}

/** @throws ServiceError ERR_MODEL_SHAPE naming the path of the first thing wrong. */
export function checkStepData (value: unknown, where: string): StepData {
  const f = new Fields(value, where)
  f.strings('nltkFolders')
  checkRecord(f.value('stopwords'), `${where}.stopwords`, (list, language) => {
    if (list.string('language') !== language) throw shapeProblem(`${list.where}.language`, `is not ${JSON.stringify(language)}`)
    checkFileRead(list, 'read')
    list.strings('words')
  })
  checkRecord(f.value('punkt'), `${where}.punkt`, (punkt, key) => {
    const language = punkt.string('language')
    if (!/^3\.(8|10)$/.test(key.split('/')[0]!) || key.split('/')[1] !== language) throw shapeProblem(punkt.where, `is not the tables of ${JSON.stringify(key)}`)
    punkt.oneOf('layout', ['punkt_tab', 'punkt'])
    punkt.list('files', 1).forEach((file, i) => checkRead(new Fields(file, `${punkt.where}.files[${i}]`)))
    checkPunktTables(punkt.object('tables'))
  })
  checkWordList(f, 'sastrawiDictionary')
  checkWordList(f, 'sastrawiStopWords')
  return value as StepData
}
