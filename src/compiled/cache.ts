/**
 * MODEL_CACHE_DIR: a model's compiled file kept under a name made of what it was compiled from
 * (each source's SHA-256, the product version, the format version), so a later start of the
 * same files loads it instead of decoding the pickles. An entry is untrusted like any compiled
 * file: one that is foreign, stale or damaged is ignored, in one line, and compiled again.
 */
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { ServiceError } from '../errors.js'
import { FORMAT_VERSION, type SourceFile } from './format.js'
import { loadCompiledModel, type LoadedCompiled } from './load-compiled.js'
import { productVersion } from './product.js'

/** The entry's file name: the sources' roles and hashes, the product and the format, hashed. */
export function cacheFile (dir: string, sources: readonly SourceFile[]): string {
  const key = createHash('sha256').update(JSON.stringify([FORMAT_VERSION, productVersion(), sources.map(s => [s.role, s.sha256])])).digest('hex')
  return path.join(dir, `${key}.tfsc`)
}

/** What a look in the cache found: the model, or why not (a line for the log) and where to write it. */
export type CacheLookup =
  | { readonly hit: true, readonly model: LoadedCompiled, readonly note: string }
  | { readonly hit: false, readonly file: string, readonly note: string }

function sameSources (a: readonly SourceFile[], b: readonly SourceFile[]): boolean {
  return a.length === b.length && a.every((s, i) => s.role === b[i]!.role && s.sha256 === b[i]!.sha256)
}

/**
 * Looks for the compiled model of `sources` in `dir`.
 * @param settingsFile the serving settings (the functions module a compiled model needs).
 */
export async function lookInCache (dir: string, sources: readonly SourceFile[], settingsFile: string | null): Promise<CacheLookup> {
  const file = cacheFile(dir, sources)
  const model = sources.find(s => s.role === 'model')?.file ?? 'the model'
  if (!existsSync(file)) return { hit: false, file, note: `model cache: no entry for ${model}; compiling ${file} beside serving` }
  try {
    const loaded = await loadCompiledModel(file, settingsFile)
    if (loaded.header.product !== productVersion()) throw new ServiceError('ERR_MODEL_READ', `written by ${loaded.header.product}`)
    if (!sameSources(loaded.header.sources, sources)) throw new ServiceError('ERR_MODEL_READ', 'compiled from other files')
    return { hit: true, model: loaded, note: `model cache: loaded ${model} from ${file}` }
  } catch (err) {
    const reason = err instanceof ServiceError ? err.detail : String(err)
    return { hit: false, file, note: `model cache: ignored ${file} (${reason}); decoding ${model} and compiling it again` }
  }
}
