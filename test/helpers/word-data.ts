/**
 * The reference copies of NLTK's and Sastrawi's data in ../shared (REFERENCE-DATA.md there),
 * read as the app's installation would be: call these inside before/it, never at import, so a
 * machine without ../shared fails those tests one by one.
 */
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { readNltkPunkt } from '../../src/preprocess/word-data/nltk-punkt.js'
import { readStepData, type StepData } from '../../src/preprocess/word-data/step-data.js'
import type { TokenizerNltkVersion } from '../../src/preprocess/tokenizers/nltk-version.js'
import type { PunktTablesOf } from '../../src/preprocess/tokenizers/word-tokenize.js'
import type { SastrawiFiles } from '../../src/settings/model-settings.js'
import type { StepSpec } from '../../src/settings/step-schema.js'
import { requireShared } from './shared-data.js'

/** ../shared/nltk_data; inside a test, or the one line that test fails with when it is absent. */
export const sharedNltkData = (): string => requireShared('nltk_data')

/** Sastrawi's lists as files (the dictionary and the stop words written out). */
export const sharedSastrawi = (): SastrawiFiles => {
  const folder = requireShared('sastrawi')
  return { package: null, dictionary: path.join(folder, 'kata-dasar.txt'), stopwords: path.join(folder, 'stopwords-id.txt') }
}

const layoutFolders = new Map<string, string>()

/** An NLTK_DATA folder holding ../shared's stop words and only one Punkt layout (links into ../shared). */
export function oneLayoutFolder (layout: 'punkt' | 'punkt_tab'): string {
  let folder = layoutFolders.get(layout)
  if (folder === undefined) {
    folder = mkdtempSync(path.join(tmpdir(), `tfidf-nltk-${layout}-`))
    mkdirSync(path.join(folder, 'tokenizers'))
    mkdirSync(path.join(folder, 'corpora'))
    symlinkSync(path.join(sharedNltkData(), 'tokenizers', layout), path.join(folder, 'tokenizers', layout))
    symlinkSync(path.join(sharedNltkData(), 'corpora', 'stopwords'), path.join(folder, 'corpora', 'stopwords'))
    layoutFolders.set(layout, folder)
  }
  return folder
}

/** Punkt's tables from `folder` (../shared/nltk_data by default, found when a test first asks), each read once. */
export function punktFrom (folder?: string): PunktTablesOf {
  const read = new Map<string, ReturnType<typeof readNltkPunkt>>()
  return (version: TokenizerNltkVersion, language: string) => {
    const key = `${version}/${language}`
    let r = read.get(key)
    if (r === undefined) read.set(key, r = readNltkPunkt([folder ?? sharedNltkData()], language, version))
    return r.tables
  }
}

/** What `steps` read from ../shared (or `nltkData`), NLTK's own search path left out. */
export function sharedStepData (steps: readonly StepSpec[], nltkData = sharedNltkData()): StepData {
  return readStepData(steps, { nltkData, sastrawi: sharedSastrawi() }, { HOME: '' })
}
