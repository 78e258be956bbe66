/**
 * A model repository on disk (MODEL_REPOSITORY): every folder in it is a model named after
 * it (or after its settings' `name`), holding its files directly or in numbered version
 * folders (`spam/1/`, `spam/2/`, as Triton lays them out; the highest is served unless the
 * settings' `parameters.version` names another). A `model-settings.json` in the version
 * folder, or else in the model folder, is read as for a single model, so an MLServer
 * repository of scikit-learn models is served as it is. A folder whose settings declare an
 * `ensemble` is a model made of files of that folder and of other models of the repository.
 */
import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { ServiceError } from '../errors.js'
import { ensembleSpecOf, type EnsembleSpec } from '../model/ensemble-spec.js'
import type { ModelSpec } from '../pool/classifier-pool.js'
import { SETTINGS_FILE, conventionalFiles, readModelSettings, type ModelSettings } from '../settings/model-settings.js'

/** A model folder as found: its name, the version to serve and how to load it, or why it cannot be; `ensemble` when its settings declare one. */
export type FoundModel =
  | { readonly name: string, readonly version: string, readonly versions: readonly string[], readonly spec: ModelSpec, readonly folder: string, readonly ensemble?: true }
  | { readonly name: string, readonly version: null, readonly versions: readonly string[], readonly problem: string, readonly folder: string, readonly ensemble?: true }

const isDir = (p: string): boolean => { try { return statSync(p).isDirectory() } catch { return false } }

/**
 * An ensemble's members: files of its folder, read with its settings as the folder would serve
 * each alone, and models of the repository `root` by name, read from their own folders.
 * @returns the spec, or what makes it unservable (one line naming the member).
 */
function ensembleSpec (settings: ModelSettings, name: string, root: string | null): EnsembleSpec | string {
  let known: FoundModel[] | undefined
  return ensembleSpecOf(settings, m => {
    const where = `ensemble member ${m.name}`
    if (m.model === name) return `${where} is this ensemble itself`
    if (root === null) return `${where} names the repository model ${JSON.stringify(m.model)}, but this model is not served from a repository (MODEL_REPOSITORY)`
    // Read without resolving ensembles: a member that is one is refused below, so no cycle is ever followed.
    known ??= scanRepository(root, null)
    const found = known.find(f => f.name === m.model)
    if (found === undefined) return `${where}: no model named ${JSON.stringify(m.model)} in the repository (${known.map(f => f.name).filter(n => n !== name).join(', ') || 'none'})`
    if (found.ensemble === true) return `${where}: ${m.model} is itself an ensemble, and an ensemble of ensembles is not served (name its members here instead)`
    if (found.version === null) return `${where} (${m.model}) cannot be loaded: ${found.problem}`
    return { name: m.name, weight: m.weight, paths: found.spec.paths, settingsFile: found.spec.settingsFile }
  })
}

/** The spec of a model whose settings declare an ensemble (its "model file" is its settings file), or why it cannot be served. */
export function ensembleModelSpec (settings: ModelSettings, name: string, root: string | null): ModelSpec | string {
  const ensemble = ensembleSpec(settings, name, root)
  if (typeof ensemble === 'string') return ensemble
  return { paths: { model: settings.file, vectorizers: [] }, settingsFile: settings.file, batching: settings.batching, maxWorkers: settings.maxWorkers, ensemble }
}

/** The model in one folder (a model folder, or one of its version folders); `root`: the repository, which an ensemble's members may name models of. */
function specIn (dir: string, modelDir: string, name: string, root: string | null): ModelSpec | string {
  const settingsFile = [path.join(dir, SETTINGS_FILE), path.join(modelDir, SETTINGS_FILE)].find(f => existsSync(f)) ?? null
  const settings = settingsFile === null ? null : readModelSettings(settingsFile)
  if (settings?.ensemble != null) return ensembleModelSpec(settings, name, root)
  // Settings in the version folder may name the files; otherwise they are the folder's own.
  const named = settings !== null && path.dirname(settings.file) === dir && settings.model !== null
  const files = named ? { model: settings.model!, vectorizers: [...settings.vectorizers] } : conventionalFiles(dir, new Set(settings?.labels != null && 'file' in settings.labels ? [settings.labels.file] : []))
  if (files.model === null) return `no model file in ${dir} (final_best_model.pkl, or one pickle)`
  return { paths: { model: files.model, vectorizers: files.vectorizers }, settingsFile, batching: settings?.batching ?? null, maxWorkers: settings?.maxWorkers ?? null }
}

/**
 * Reads one model folder; a bad settings file or a missing model is reported, not thrown.
 * @param root the repository it belongs to (an ensemble's members may name its models), or
 * null (MODEL_DIR, or looking up members): an ensemble's repository members are then not looked up.
 */
export function readModelFolder (folder: string, root: string | null): FoundModel {
  const base = path.basename(folder)
  let name = base
  let ensemble = false
  try {
    const top = path.join(folder, SETTINGS_FILE)
    const settings = existsSync(top) ? readModelSettings(top) : null
    if (settings !== null) name = settings.name
    ensemble = settings?.ensemble != null
    const versions = readdirSync(folder).filter(v => /^\d+$/.test(v) && isDir(path.join(folder, v))).sort((a, b) => Number(a) - Number(b))
    const version = settings?.version ?? (versions.length > 0 ? versions[versions.length - 1]! : '1')
    const dir = versions.length > 0 ? path.join(folder, version) : folder
    if (versions.length > 0 && !versions.includes(version)) return { name, version: null, versions, problem: `version ${version} named by the settings is not a folder of ${folder}`, folder, ...marked(ensemble) }
    const spec = specIn(dir, folder, name, root)
    if (typeof spec === 'string') return { name, version: null, versions, problem: spec, folder, ...marked(ensemble) }
    return { name, version, versions: versions.length > 0 ? versions : [version], spec, folder, ...marked(ensemble || spec.ensemble != null) }
  } catch (err) {
    return { name, version: null, versions: [], problem: err instanceof Error ? err.message : String(err), folder, ...marked(ensemble) }
  }
}

const marked = (ensemble: boolean): { ensemble?: true } => ensemble ? { ensemble: true } : {}

/** Every model folder of `root`, by name order (hidden folders skipped). */
export function scanRepository (root: string, membersOf: string | null = root): FoundModel[] {
  return readdirSync(root).filter(f => !f.startsWith('.') && isDir(path.join(root, f))).sort().map(f => readModelFolder(path.join(root, f), membersOf))
}

/** What names a repository and a model of it, in messages: the environment's variables, or the command line's flags. */
export interface ChoiceNames {
  readonly repository: string
  readonly model: string
}

const SERVICE_CHOICE: ChoiceNames = { repository: 'MODEL_REPOSITORY', model: 'DEFAULT_MODEL' }

/**
 * The repository's model `name` (the service's DEFAULT_MODEL, the command line's
 * --model-name), or the only model there is.
 * @param names what the messages call the repository and the name (the service's variables by default).
 * @throws ServiceError ERR_CONFIG_INVALID when there is none to choose, or it cannot load.
 */
export function chooseDefault (root: string, name: string | undefined, names: ChoiceNames = SERVICE_CHOICE): Extract<FoundModel, { version: string }> {
  let found: FoundModel[]
  try {
    found = scanRepository(root)
  } catch (err) {
    throw new ServiceError('ERR_CONFIG_INVALID', `invalid configuration: ${names.repository} cannot be read: ${(err as Error).message}`, { file: root })
  }
  const all = found.map(f => f.name)
  const chosen = name !== undefined ? found.find(f => f.name === name) : found.length === 1 ? found[0] : undefined
  if (chosen === undefined) {
    throw new ServiceError('ERR_CONFIG_INVALID', name !== undefined
      ? `invalid configuration: ${names.model} ${JSON.stringify(name)} is not a model of the repository (${all.join(', ') || 'none'})`
      : `invalid configuration: ${found.length === 0 ? 'the repository holds no model folder' : `${names.model} must name one of the repository's models (${all.join(', ')})`}`, { file: root })
  }
  if (chosen.version === null) throw new ServiceError('ERR_CONFIG_INVALID', `the ${names === SERVICE_CHOICE ? 'default ' : ''}model ${chosen.name} cannot be loaded: ${chosen.problem}`, { file: chosen.folder })
  return chosen
}

/**
 * The repository a model's settings file sits in, as the server would read it: the folder
 * above the model's folder (above its version folder's, for `spam/2/model-settings.json`).
 */
export function repositoryHolding (settingsFile: string): string {
  const dir = path.dirname(path.resolve(settingsFile))
  return path.dirname(/^\d+$/.test(path.basename(dir)) ? path.dirname(dir) : dir)
}
