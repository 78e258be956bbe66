/**
 * What the decoding thread runs: a compiled file is loaded (checked) instead of decoded; with
 * a cache directory, a model's pickles are looked up there first by their SHA-256, and on a
 * miss decoded as always, its compiled file written once the state is handed over.
 */
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import { ServiceError } from '../errors.js'
import { decodeEnsemble, type AnyModelState } from '../model/ensemble.js'
import { decodeServedModel, type AppSource } from '../model/served-model.js'
import { shareState } from '../sklearn/shared-state.js'
import type { ModelInfo } from '../sklearn/predictor.js'
import { lookInCache } from './cache.js'
import type { SourceFile } from './format.js'
import { loadCompiledModel } from './load-compiled.js'
import { productVersion } from './product.js'
import { isCompiledFile } from './read.js'
import { sourcesOf, type ModelSources } from './sources.js'
import { writeCompiled } from './write.js'

// Where it always was for its callers; read.ts holds it so that checking a file's magic loads no decoder.
export { isCompiledFile }

/** A model ready to share: its state (arrays in shared memory), settings, description and notes. */
export interface SharedModel {
  readonly state: AnyModelState
  readonly app: AppSource | null
  readonly info: ModelInfo
  readonly notes: readonly string[]
  readonly bytes: number
  /** Set when a cache entry is to be written once the model is handed over: where, and the call that writes it. */
  readonly compile?: { readonly file: string, readonly write: () => void }
}

async function decodePickles (model: ModelSources): Promise<Omit<SharedModel, 'compile'>> {
  const { state, info, notes, app } = model.ensemble !== null
    ? { ...await decodeEnsemble(model.ensemble), app: null }
    : await decodeServedModel({ paths: model.paths, settingsFile: model.settingsFile, labels: model.labels })
  const shared = shareState(state)
  return { state: shared.state, bytes: shared.bytes, info, notes, app }
}

/** The sources' hashes, or null when one cannot be read (the decoding then reports it as it always does). */
function hashedSources (model: ModelSources): SourceFile[] | null {
  try {
    return sourcesOf(model)
  } catch {
    return null
  }
}

/**
 * Decodes a model's files, or loads its compiled file (given as the model, or found in `cacheDir`).
 * @throws ServiceError naming the file and the problem.
 */
export async function decodeOrLoad (model: ModelSources, cacheDir: string | null): Promise<SharedModel> {
  if (model.ensemble === null && isCompiledFile(model.paths.model)) {
    if (model.labels !== null) throw new ServiceError('ERR_CONFIG_INVALID', 'a compiled model carries the label names it was compiled with: compile it again with these labels', { file: model.paths.model })
    const { state, app, info, notes, bytes } = await loadCompiledModel(model.paths.model, model.settingsFile)
    return { state, app, info, notes, bytes }
  }
  const sources = cacheDir === null ? null : hashedSources(model)
  if (cacheDir === null || sources === null) return await decodePickles(model)
  const found = await lookInCache(cacheDir, sources, model.settingsFile)
  if (found.hit) {
    const { state, app, info, notes, bytes } = found.model
    return { state, app, info, notes: [...notes, found.note], bytes }
  }
  const decoded = await decodePickles(model)
  const write = (): void => {
    mkdirSync(path.dirname(found.file), { recursive: true })
    writeCompiled(found.file, decoded, { product: productVersion(), sources })
  }
  return { ...decoded, notes: [...decoded.notes, found.note], compile: { file: found.file, write } }
}
