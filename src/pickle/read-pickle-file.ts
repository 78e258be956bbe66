/**
 * A model file from disk to Python values: size check, compression by magic bytes,
 * then the pickle machine with joblib's array hook. Every failure is a ServiceError
 * naming the file.
 */
import { readFile, stat } from 'node:fs/promises'
import { ServiceError } from '../errors.js'
import { decompress, detectCompression } from './decompress.js'
import { readJoblibArray } from './joblib.js'
import { unpickle, type UnpicklerOptions } from './unpickler.js'
import type { PyValue } from './values.js'
import { checkValueLimits, defaultValueLimits, summarize } from './value-walk.js'

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
export async function readPickleFile (path: string, options: ReadPickleOptions = {}): Promise<PyValue> {
  const maxFileBytes = options.maxFileBytes ?? READ_DEFAULTS.maxFileBytes
  let bytes: Uint8Array
  try {
    const info = await stat(path)
    if (!info.isFile()) throw new ServiceError('ERR_MODEL_READ', 'not a regular file', { file: path })
    if (info.size > maxFileBytes) throw new ServiceError('ERR_PICKLE_LIMIT', `file of ${info.size} bytes is over the ${maxFileBytes}-byte limit`, { file: path })
    bytes = await readFile(path)
  } catch (err) {
    if (err instanceof ServiceError) throw err
    const code = (err as { code?: string }).code
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (err as Error).message
    throw new ServiceError('ERR_MODEL_READ', `cannot read the file: ${reason}`, { file: path, cause: err })
  }
  try {
    return await decodePickleBytes(bytes, options)
  } catch (err) {
    if (err instanceof ServiceError) throw err.withFile(path)
    // A bug of ours that a strange file reached still fails as one line naming the file.
    throw new ServiceError('ERR_PICKLE_INVALID', `unexpected ${err instanceof Error ? err.name : 'error'} while decoding: ${summarize(err instanceof Error ? err.message : err)}`, { file: path, cause: err })
  }
}

/** The bytes of a pickle or joblib file (plain or compressed) as Python values. */
export async function decodePickleBytes (bytes: Uint8Array, options: ReadPickleOptions = {}): Promise<PyValue> {
  if (bytes.length === 0) throw new ServiceError('ERR_PICKLE_TRUNCATED', 'empty file', { offset: 0 })
  const compression = detectCompression(bytes)
  const pickle = compression === undefined
    ? bytes
    : await decompress(bytes, compression, options.maxDecompressedBytes ?? READ_DEFAULTS.maxDecompressedBytes)
  const value = unpickleJoblib(pickle, options)
  // Every later pass over the value (ours or a message's) is bounded once this holds.
  checkValueLimits(value, defaultValueLimits(pickle.length))
  return value
}

/** An uncompressed pickle or joblib stream as Python values (synchronous). */
export function unpickleJoblib (bytes: Uint8Array, options: Omit<UnpicklerOptions, 'afterBuild'> = {}): PyValue {
  try {
    return unpickle(bytes, { ...options, afterBuild: readJoblibArray })
  } catch (err) {
    // An allocation the limits let through but the heap refused is still the file's fault.
    if (err instanceof RangeError) throw new ServiceError('ERR_PICKLE_LIMIT', `out of memory: ${err.message}`, { cause: err })
    throw err
  }
}
