/**
 * Starts what serves the models: the repository's default model (or MODEL_PATH's, named
 * 'default') decoded into a new pool, then the repository's other models beside it. The
 * default model failing stops start-up; any other failing is only marked UNAVAILABLE.
 */
import type { Config } from '../config.js'
import { ClassifierPool, type ModelSpec, type PoolOptions } from '../pool/classifier-pool.js'
import { chooseDefault } from './layout.js'
import { ModelRepository, type RepositoryEvents } from './model-repository.js'

/** The default model: the repository's chosen one, or MODEL_PATH's as a repository of one. */
export interface DefaultModel {
  readonly name: string
  readonly version: string
  readonly folder: string | null
  readonly spec: ModelSpec
}

export function defaultModelOf (config: Readonly<Config>): DefaultModel {
  if (config.modelRepository === null) {
    return { name: 'default', version: '1', folder: null, spec: { paths: { model: config.modelPath, vectorizers: config.vectorizerPaths }, settingsFile: config.settingsFile } }
  }
  const found = chooseDefault(config.modelRepository, config.defaultModel ?? undefined)
  return { name: found.name, version: found.version, folder: found.folder, spec: found.spec }
}

/** The repository over `pool`, which already serves `first` under its first key. */
export function repositoryOver (pool: ClassifierPool, config: Readonly<Config>, first: DefaultModel, events: RepositoryEvents = {}): ModelRepository {
  return new ModelRepository(pool, { root: config.modelRepository, defaultName: first.name, defaultVersion: first.version, defaultSpec: first.spec, defaultFolder: first.folder, labelNames: config.labelNames, ...events })
}

/** A pool serving the default model and a repository over it, the other models loaded. */
export async function openRepository (config: Readonly<Config>, options: Partial<PoolOptions> = {}, events: RepositoryEvents = {}): Promise<{ pool: ClassifierPool, repository: ModelRepository }> {
  const first = defaultModelOf(config)
  const pool = await ClassifierPool.start({ ...config, modelPath: first.spec.paths.model, vectorizerPaths: first.spec.paths.vectorizers ?? [], settingsFile: first.spec.settingsFile, ...options })
  const repository = repositoryOver(pool, config, first, events)
  await repository.loadAll()
  return { pool, repository }
}
