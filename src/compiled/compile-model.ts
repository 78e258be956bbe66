/**
 * `tfidf-serve compile`: a model decoded exactly as the service decodes it (the caller decodes
 * it in the decoding thread, arrays in shared memory), written as one compiled file, then read back through the
 * checks every compiled file meets, so a file that is written is a file that serves.
 */
import { rmSync } from 'node:fs'
import { ServiceError } from '../errors.js'
import { isCompiledFile } from './decode-or-load.js'
import { loadCompiledModel } from './load-compiled.js'
import { productVersion } from './product.js'
import { sourcesOf, type ModelSources } from './sources.js'
import { writeCompiled } from './write.js'

export interface CompileReport {
  readonly out: string
  readonly bytes: number
  /** Bytes of shared memory its arrays take when served. */
  readonly sharedBytes: number
  readonly seconds: number
  readonly product: string
  readonly sources: ReadonlyArray<{ readonly role: string, readonly file: string, readonly sha256: string }>
}

/** A decoded model as the decoding thread hands it over. */
export interface DecodedForCompile {
  readonly state: unknown
  readonly app: unknown
  readonly notes: readonly string[]
  readonly bytes: number
}

/**
 * Compiles `model` to `out`; `decode` decodes it as the service does (in the decoding thread).
 * @throws ServiceError naming the file and the problem: the model cannot be decoded, holds
 * what a compiled file cannot carry, or `out` cannot be written.
 */
export async function compileModel (model: ModelSources, out: string, decode: (model: ModelSources) => Promise<DecodedForCompile>): Promise<CompileReport> {
  const started = performance.now()
  if (model.ensemble === null && isCompiledFile(model.paths.model)) throw new ServiceError('ERR_CONFIG_INVALID', 'the model is compiled already', { file: model.paths.model })
  const sources = sourcesOf(model)
  const decoded = await decode(model)
  const bytes = writeCompiled(out, { state: decoded.state, app: decoded.app, notes: decoded.notes }, { product: productVersion(), sources })
  try {
    await loadCompiledModel(out, model.settingsFile)
  } catch (err) {
    rmSync(out, { force: true })
    const detail = err instanceof ServiceError ? err.detail : String(err)
    throw new ServiceError('ERR_MODEL_UNSUPPORTED', `this model cannot be compiled: ${detail.replace(/^compiled model: /, '')}; serve its pickles instead`, { file: model.paths.model })
  }
  return { out, bytes, sharedBytes: decoded.bytes, seconds: (performance.now() - started) / 1000, product: productVersion(), sources }
}
