/**
 * The files a model is decoded from, each with its SHA-256: the model and vectorizer files,
 * the settings file, the functions module and the labels it names, the data files its steps
 * read (NLTK's and Sastrawi's lists; or an ensemble's members' own). A compiled file records
 * them; the cache finds its entry by them, so new NLTK data is a new entry.
 */
import { createHash } from 'node:crypto'
import { closeSync, openSync, readSync } from 'node:fs'
import type { EnsembleSpec } from '../model/ensemble.js'
import path from 'node:path'
import { filesRead, readStepData } from '../preprocess/word-data/step-data.js'
import { readModelSettings, type LabelSource, type ModelSettings } from '../settings/model-settings.js'
import type { ModelPaths } from '../sklearn/load-model.js'
import type { SourceFile } from './format.js'

/** What decodes a model: its files, settings, label names and, for an ensemble, its members. */
export interface ModelSources {
  readonly paths: ModelPaths
  readonly settingsFile: string | null
  readonly labels: LabelSource | null
  readonly ensemble: EnsembleSpec | null
}

/** SHA-256 of a file, read in pieces (a model file may be large; no copy of it is kept). */
export function hashFile (file: string): string {
  const hash = createHash('sha256')
  const chunk = new Uint8Array(1024 * 1024)
  const fd = openSync(file, 'r')
  try {
    for (let n; (n = readSync(fd, chunk, 0, chunk.length, null)) > 0;) hash.update(chunk.subarray(0, n))
  } finally {
    closeSync(fd)
  }
  return hash.digest('hex')
}

function source (role: SourceFile['role'], file: string): SourceFile {
  return { role, file, sha256: hashFile(file) }
}

/** A settings file and what it names that the model is built with: its functions module, its LabelEncoder file. */
function settingsSources (settingsFile: string | null): SourceFile[] {
  if (settingsFile === null) return []
  const settings = readModelSettings(settingsFile)
  return [
    source('settings', settingsFile),
    ...(settings.functions === null ? [] : [source('functions', settings.functions)]),
    ...(settings.labels !== null && 'file' in settings.labels ? [source('labels', settings.labels.file)] : []),
    ...dataSources(settings)
  ]
}

/** The data files the settings' steps read now; none when some is missing (decoding then refuses the model, naming it). */
function dataSources (settings: ModelSettings): SourceFile[] {
  try {
    return filesRead(readStepData(settings.preprocess, settings)).map(f => ({ role: 'data', file: path.join(f.folder, f.file), sha256: f.sha256 }))
  } catch {
    return []
  }
}

function labelSources (labels: LabelSource | null): SourceFile[] {
  if (labels === null) return []
  if ('file' in labels) return [source('labels', labels.file)]
  // Names given as a JSON object (the command line's --labels): their content is the source.
  return [{ role: 'labels', file: '(label names)', sha256: createHash('sha256').update(JSON.stringify(labels.map)).digest('hex') }]
}

/**
 * Every source of a model, in a fixed order, hashed.
 * @throws Error (from the file system) when one cannot be read.
 */
export function sourcesOf (model: ModelSources): SourceFile[] {
  if (model.ensemble !== null) {
    const members = model.ensemble.members.flatMap(m => [
      source('model', m.paths.model),
      ...(m.paths.vectorizers ?? []).map(v => source('vectorizer', v)),
      ...(m.settingsFile === model.ensemble!.file ? [] : settingsSources(m.settingsFile))
    ])
    return [...settingsSources(model.ensemble.file), ...members]
  }
  return [
    source('model', model.paths.model),
    ...(model.paths.vectorizers ?? []).map(v => source('vectorizer', v)),
    ...settingsSources(model.settingsFile),
    ...labelSources(model.labels)
  ]
}
