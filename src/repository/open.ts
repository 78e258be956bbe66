/**
 * Starts what serves the models: the repository's default model (or MODEL_PATH's, named
 * 'default') decoded into a new pool, then the repository's other models beside it. The
 * default model failing stops start-up; any other failing is only marked UNAVAILABLE.
 */
import { existsSync, statSync } from 'node:fs'
import path from 'node:path'
import type { Config } from '../config.js'
import { ServiceError } from '../errors.js'
import { modelPathsFromEnv } from '../paths.js'
import { ClassifierPool, type ModelSpec, type PoolOptions } from '../pool/classifier-pool.js'
import { chooseDefault, ensembleModelSpec, readModelFolder } from './layout.js'
import { ModelRepository, type RepositoryEvents } from './model-repository.js'
import { readModelSettings } from '../settings/model-settings.js'

/** The name of the one model when neither MODEL_NAME nor its settings name it. */
const DEFAULT_NAME = 'default'

/** The default model: the repository's chosen one, or MODEL_PATH's as a repository of one. */
export interface DefaultModel {
  readonly name: string
  readonly version: string
  readonly folder: string | null
  readonly spec: ModelSpec
}

/** What decides the default model: the settings below, as Config holds them (or the environment, read early). */
export type DefaultModelSource = Pick<Config, 'modelRepository' | 'defaultModel' | 'modelDir' | 'modelName' | 'modelPath' | 'vectorizerPaths' | 'settingsFile' | 'modelCacheDir'>

/**
 * The repository's DEFAULT_MODEL (or only model); without a repository, MODEL_DIR's model (a
 * folder holding one, as KServe mounts it), else MODEL_PATH's (or the shipped one), named
 * MODEL_NAME, else (MODEL_DIR, MODEL_SETTINGS) the settings' `name`, else `default`
 * (docs/http-api.md, "Settings").
 * @throws ServiceError ERR_CONFIG_INVALID when it cannot be chosen or read.
 */
export function defaultModelOf (source: DefaultModelSource): DefaultModel {
  if (source.modelRepository !== null) {
    const found = chooseDefault(source.modelRepository, source.defaultModel ?? undefined)
    return { name: found.name, version: found.version, folder: found.folder, spec: found.spec }
  }
  if (source.modelDir !== null) {
    const dir = source.modelDir
    if (!existsSync(dir)) throw new ServiceError('ERR_CONFIG_INVALID', 'invalid configuration: MODEL_DIR does not exist', { file: dir, subject: true })
    if (!statSync(dir).isDirectory()) throw new ServiceError('ERR_CONFIG_INVALID', 'invalid configuration: MODEL_DIR is a file, not a folder (MODEL_PATH names a file)', { file: dir, subject: true })
    const found = readModelFolder(dir, null)
    if (found.version === null) throw new ServiceError('ERR_CONFIG_INVALID', `MODEL_DIR holds no model that can be served: ${found.problem}`, { file: dir })
    const settingsFile = path.join(dir, 'model-settings.json')
    const declared = existsSync(settingsFile) ? readModelSettings(settingsFile).declaredName : null
    return { name: source.modelName ?? declared ?? DEFAULT_NAME, version: found.version, folder: dir, spec: found.spec }
  }
  const settings = source.settingsFile === null ? null : readModelSettings(source.settingsFile)
  const name = source.modelName ?? settings?.declaredName ?? DEFAULT_NAME
  if (settings?.ensemble != null) {
    // MODEL_SETTINGS alone may declare an ensemble of files (no repository: no models by name).
    const spec = ensembleModelSpec(settings, name, null)
    if (typeof spec === 'string') throw new ServiceError('ERR_CONFIG_INVALID', `invalid model settings: ${spec}`, { file: settings.file })
    return { name, version: '1', folder: null, spec }
  }
  const batching = settings?.batching ?? null
  return { name, version: '1', folder: null, spec: { paths: { model: source.modelPath, vectorizers: source.vectorizerPaths }, settingsFile: source.settingsFile, batching, maxWorkers: settings?.maxWorkers ?? null } }
}

/** The same settings read straight from the environment, before the configuration is parsed (main.ts starts decoding first). */
export function defaultModelSourceFromEnv (env: NodeJS.ProcessEnv, cwd: string = process.cwd()): DefaultModelSource {
  const set = (name: string): string | null => env[name] === undefined || env[name] === '' ? null : env[name]!
  const repository = set('MODEL_REPOSITORY')
  const dir = set('MODEL_DIR')
  const cache = set('MODEL_CACHE_DIR')
  return {
    ...modelPathsFromEnv(env, cwd),
    modelRepository: repository === null ? null : path.resolve(cwd, repository),
    defaultModel: set('DEFAULT_MODEL'),
    modelDir: dir === null ? null : path.resolve(cwd, dir),
    modelName: set('MODEL_NAME'),
    modelCacheDir: cache === null ? null : path.resolve(cwd, cache)
  }
}

/** The repository over `pool`, which already serves `first` under its first key. */
export function repositoryOver (pool: ClassifierPool, config: Readonly<Config>, first: DefaultModel, events: RepositoryEvents = {}): ModelRepository {
  return new ModelRepository(pool, { root: config.modelRepository, defaultName: first.name, defaultVersion: first.version, defaultSpec: first.spec, defaultFolder: first.folder, labelNames: config.labelNames, ...events })
}

/** A pool serving the default model and a repository over it, the other models loaded. */
export async function openRepository (config: Readonly<Config>, options: Partial<PoolOptions> = {}, events: RepositoryEvents = {}): Promise<{ pool: ClassifierPool, repository: ModelRepository }> {
  const first = defaultModelOf(config)
  const pool = await ClassifierPool.start({ ...config, modelPath: first.spec.paths.model, vectorizerPaths: first.spec.paths.vectorizers ?? [], settingsFile: first.spec.settingsFile, modelBatching: first.spec.batching, modelMaxWorkers: first.spec.maxWorkers, ensemble: first.spec.ensemble ?? null, ...options })
  const repository = repositoryOver(pool, config, first, events)
  await repository.loadAll()
  return { pool, repository }
}
