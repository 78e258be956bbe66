/**
 * A model repository on disk (MODEL_REPOSITORY): every folder in it is a model named after
 * it (or after its settings' `name`), holding its files directly or in numbered version
 * folders (`spam/1/`, `spam/2/`, as Triton lays them out; the highest is served unless the
 * settings' `parameters.version` names another). A `model-settings.json` in the version
 * folder, or else in the model folder, is read as for a single model, so an MLServer
 * repository of scikit-learn models is served as it is.
 */
import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { ServiceError } from '../errors.js'
import type { ModelSpec } from '../pool/classifier-pool.js'
import { SETTINGS_FILE, conventionalFiles, readModelSettings } from '../settings/model-settings.js'

/** A model folder as found: its name, the version to serve and how to load it, or why it cannot be. */
export type FoundModel =
  | { readonly name: string, readonly version: string, readonly versions: readonly string[], readonly spec: ModelSpec, readonly folder: string }
  | { readonly name: string, readonly version: null, readonly versions: readonly string[], readonly problem: string, readonly folder: string }

const isDir = (p: string): boolean => { try { return statSync(p).isDirectory() } catch { return false } }

/** The model in one folder (a model folder, or one of its version folders). */
function specIn (dir: string, modelDir: string): ModelSpec | string {
  const settingsFile = [path.join(dir, SETTINGS_FILE), path.join(modelDir, SETTINGS_FILE)].find(f => existsSync(f)) ?? null
  const settings = settingsFile === null ? null : readModelSettings(settingsFile)
  // Settings in the version folder may name the files; otherwise they are the folder's own.
  const named = settings !== null && path.dirname(settings.file) === dir && settings.model !== null
  const files = named ? { model: settings.model!, vectorizers: [...settings.vectorizers] } : conventionalFiles(dir, new Set(settings?.labels != null && 'file' in settings.labels ? [settings.labels.file] : []))
  if (files.model === null) return `no model file in ${dir} (final_best_model.pkl, or one pickle)`
  return { paths: { model: files.model, vectorizers: files.vectorizers }, settingsFile, batching: settings?.batching ?? null }
}

/** Reads one model folder; a bad settings file or a missing model is reported, not thrown. */
export function readModelFolder (folder: string): FoundModel {
  const base = path.basename(folder)
  let name = base
  try {
    const top = path.join(folder, SETTINGS_FILE)
    const settings = existsSync(top) ? readModelSettings(top) : null
    if (settings !== null) name = settings.name
    const versions = readdirSync(folder).filter(v => /^\d+$/.test(v) && isDir(path.join(folder, v))).sort((a, b) => Number(a) - Number(b))
    const version = settings?.version ?? (versions.length > 0 ? versions[versions.length - 1]! : '1')
    const dir = versions.length > 0 ? path.join(folder, version) : folder
    if (versions.length > 0 && !versions.includes(version)) return { name, version: null, versions, problem: `version ${version} named by the settings is not a folder of ${folder}`, folder }
    const spec = specIn(dir, folder)
    if (typeof spec === 'string') return { name, version: null, versions, problem: spec, folder }
    return { name, version, versions: versions.length > 0 ? versions : [version], spec, folder }
  } catch (err) {
    return { name, version: null, versions: [], problem: err instanceof Error ? err.message : String(err), folder }
  }
}

/** Every model folder of `root`, by name order (hidden folders skipped). */
export function scanRepository (root: string): FoundModel[] {
  return readdirSync(root).filter(f => !f.startsWith('.') && isDir(path.join(root, f))).sort().map(f => readModelFolder(path.join(root, f)))
}

/**
 * The repository's default model: DEFAULT_MODEL, or the only model there is.
 * @throws ServiceError ERR_CONFIG_INVALID when there is none to choose, or it cannot load.
 */
export function chooseDefault (root: string, name: string | undefined): Extract<FoundModel, { version: string }> {
  let found: FoundModel[]
  try {
    found = scanRepository(root)
  } catch (err) {
    throw new ServiceError('ERR_CONFIG_INVALID', `invalid configuration: MODEL_REPOSITORY cannot be read: ${(err as Error).message}`, { file: root })
  }
  const names = found.map(f => f.name)
  const chosen = name !== undefined ? found.find(f => f.name === name) : found.length === 1 ? found[0] : undefined
  if (chosen === undefined) {
    throw new ServiceError('ERR_CONFIG_INVALID', name !== undefined
      ? `invalid configuration: DEFAULT_MODEL ${JSON.stringify(name)} is not a model of the repository (${names.join(', ') || 'none'})`
      : `invalid configuration: ${found.length === 0 ? 'the repository holds no model folder' : `DEFAULT_MODEL must name one of the repository's models (${names.join(', ')})`}`, { file: root })
  }
  if (chosen.version === null) throw new ServiceError('ERR_CONFIG_INVALID', `the default model ${chosen.name} cannot be loaded: ${chosen.problem}`, { file: chosen.folder })
  return chosen
}
