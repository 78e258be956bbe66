/**
 * A model file from disk to Python values: size check, compression by magic bytes,
 * then the pickle machine with joblib's array hooks (joblib >= 0.10 arrays in the stream,
 * joblib < 0.10 arrays in files beside it). Every failure is a ServiceError naming the file.
 */
import { readFileSync, statSync } from 'node:fs'
import { readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { ServiceError } from '../errors.js'
import { decompress, detectCompression } from './decompress.js'
import { readJoblibArray } from './joblib.js'
import { readOldJoblibArray, type SideFiles } from './old-joblib.js'
import { unpickle, type UnpicklerOptions } from './unpickler.js'
import type { PyValue } from './values.js'
import type { RefusedGlobal } from './unresolved.js'
import { summarize } from './summarize.js'
import { textDamage } from './text-damage.js'
import { checkValueLimits, defaultValueLimits } from './value-walk.js'

export interface ReadPickleOptions extends Omit<UnpicklerOptions, 'afterBuild'> {
  /** Largest file accepted. Defaults to 2 GiB. */
  readonly maxFileBytes?: number
  /** Largest decompressed pickle accepted (the bound on a decompression bomb). Defaults to 1 GiB. */
  readonly maxDecompressedBytes?: number
}

export const READ_DEFAULTS = Object.freeze({
  maxFileBytes: 2 * 1024 ** 3,
  maxDecompressedBytes: 1024 ** 3
})

/**
 * Reads a pickle or joblib file (plain or compressed).
 * @throws ServiceError naming `path`: ERR_MODEL_READ, ERR_MODEL_COMPRESSION or ERR_PICKLE_*.
 */
export async function readPickleFile (file: string, options: ReadPickleOptions = {}): Promise<PyValue> {
  const maxFileBytes = options.maxFileBytes ?? READ_DEFAULTS.maxFileBytes
  let bytes: Uint8Array
  try {
    const info = await stat(file)
    if (!info.isFile()) throw new ServiceError('ERR_MODEL_READ', info.isDirectory() ? 'a folder, not a model file' : 'not a regular file', { file, subject: true })
    if (info.size > maxFileBytes) throw new ServiceError('ERR_PICKLE_LIMIT', `file of ${info.size} bytes is over the ${maxFileBytes}-byte limit`, { file })
    bytes = await readFile(file)
  } catch (err) {
    if (err instanceof ServiceError) throw err
    const failure = readFailure(err)
    throw new ServiceError('ERR_MODEL_READ', failure ?? `cannot read the file: ${(err as Error).message}`, { file, cause: err, subject: failure !== undefined })
  }
  try {
    return await decodePickleBytes(bytes, options, sideFilesOf(file, maxFileBytes, options.maxDecompressedBytes ?? READ_DEFAULTS.maxDecompressedBytes))
  } catch (err) {
    if (err instanceof ServiceError) throw err.withFile(file)
    // A bug of ours that a strange file reached still fails as one line naming the file.
    throw new ServiceError('ERR_PICKLE_INVALID', `unexpected ${err instanceof Error ? err.name : 'error'} while decoding: ${summarize(err instanceof Error ? err.message : err)}`, { file, cause: err })
  }
}

/** What a failed read says of the file itself ("no such file: FILE"), when it is one of those. */
function readFailure (err: unknown): string | undefined {
  const code = (err as { code?: string }).code
  return code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : undefined
}

/**
 * The files beside `file` that a joblib < 0.10 pickle may name (old-joblib.ts checks the
 * names), read whole and synchronously as the unpickler meets them; all of them together
 * at most `maxBytes`.
 */
function sideFilesOf (file: string, maxBytes: number, maxDecompressedBytes: number): SideFiles {
  const folder = path.dirname(file)
  let total = 0
  return {
    maxDecompressedBytes,
    read: name => {
      const sidePath = path.join(folder, name)
      try {
        const info = statSync(sidePath)
        if (!info.isFile()) throw new ServiceError('ERR_MODEL_READ', `cannot read the array file ${name} beside it: not a regular file`)
        total += info.size
        if (total > maxBytes) throw new ServiceError('ERR_PICKLE_LIMIT', `array files beside the pickle of more than ${maxBytes} bytes in all`)
        return readFileSync(sidePath)
      } catch (err) {
        if (err instanceof ServiceError) throw err
        throw new ServiceError('ERR_MODEL_READ', `cannot read the array file ${name} beside it: ${readFailure(err)}`, { cause: err })
      }
    }
  }
}

/**
 * The bytes of a pickle or joblib file (plain or compressed) as Python values.
 * @param side the folder's files for a joblib < 0.10 pickle; without it, such a pickle is refused.
 */
export async function decodePickleBytes (bytes: Uint8Array, options: ReadPickleOptions = {}, side?: SideFiles): Promise<PyValue> {
  if (bytes.length === 0) throw new ServiceError('ERR_PICKLE_TRUNCATED', 'empty file', { offset: 0 })
  const damage = textDamage(bytes)
  if (damage !== undefined) throw damage
  const compression = detectCompression(bytes)
  const pickle = compression === undefined
    ? bytes
    : await decompress(bytes, compression, options.maxDecompressedBytes ?? READ_DEFAULTS.maxDecompressedBytes)
  const report = options.onRefusedGlobal
  let first: RefusedGlobal | undefined
  const value = unpickleJoblib(pickle, report === undefined ? options : { ...options, onRefusedGlobal: g => { first ??= g; report(g) } }, side)
  try {
    // Every later pass over the value (ours or a message's) is bounded once this holds.
    checkValueLimits(value, defaultValueLimits(pickle.length))
  } catch (err) {
    // The strict reader would have refused the first refused global before getting here.
    if (first !== undefined) throw first.toError()
    throw err
  }
  return value
}

/** An uncompressed pickle or joblib stream as Python values (synchronous). */
export function unpickleJoblib (bytes: Uint8Array, options: Omit<UnpicklerOptions, 'afterBuild'> = {}, side?: SideFiles): PyValue {
  try {
    return unpickle(bytes, { ...options, afterBuild: (built, stream) => readOldJoblibArray(readJoblibArray(built, stream), stream, side) })
  } catch (err) {
    // An allocation the limits let through but the heap refused is still the file's fault.
    if (err instanceof RangeError) throw new ServiceError('ERR_PICKLE_LIMIT', `out of memory: ${err.message}`, { cause: err })
    throw err
  }
}
