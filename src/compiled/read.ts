/**
 * Reads a compiled model file (format.ts): the preamble checked field by field against the
 * file's size, the checksum over the rest, the two JSON parts parsed under their bounds, the
 * blob read once into a SharedArrayBuffer, and each array a view over it once its dtype,
 * offset and length are checked. What the tree then says of the model is checked by
 * check-model.ts, as the pickle path checks what it decodes.
 */
import { createHash } from 'node:crypto'
import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import { ServiceError } from '../errors.js'
import { CHECKSUM_AT, DTYPES, FORMAT_VERSION, LIMITS, MAGIC, PREAMBLE_BYTES, aligned8, type AnyTypedArray, type CompiledHeader, type DtypeName } from './format.js'
import { decodeTree } from './tree.js'
import { reserved } from '../sklearn/shared-state.js'

/** A compiled file's parts, structurally sound; what they say of the model is not yet checked. */
export interface CompiledFile {
  readonly header: CompiledHeader
  readonly tree: { readonly state: unknown, readonly app: unknown, readonly notes: unknown }
  /** Bytes of shared memory the arrays take. */
  readonly bytes: number
}

function refused (file: string, detail: string): ServiceError {
  return new ServiceError('ERR_MODEL_READ', `damaged compiled model: ${detail}`, { file })
}

/** Whether `bytes` (a file's first bytes) open a compiled model. */
export function hasCompiledMagic (bytes: Uint8Array): boolean {
  return bytes.length >= MAGIC.length && MAGIC.every((b, i) => bytes[i] === b)
}

/** Whether `file` is a compiled model (its first bytes); false for one that cannot be read, which the pickle path then reports. */
export function isCompiledFile (file: string): boolean {
  let fd: number | undefined
  try {
    fd = openSync(file, 'r')
    const head = new Uint8Array(MAGIC.length)
    return readSync(fd, head, 0, head.length, 0) === head.length && hasCompiledMagic(head)
  } catch {
    return false
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** Reads exactly `into.byteLength` bytes at `position`, or fails naming what was short. */
function readFully (fd: number, into: Uint8Array, position: number, file: string): void {
  for (let at = 0; at < into.byteLength;) {
    const n = readSync(fd, into, at, into.byteLength - at, position + at)
    if (n === 0) throw refused(file, `the file ends ${into.byteLength - at} bytes early`)
    at += n
  }
}

interface Preamble {
  readonly headerBytes: number
  readonly treeBytes: number
  readonly blobBytes: number
  readonly blobAt: number
  readonly checksum: Uint8Array
}

function readPreamble (bytes: Uint8Array, size: number, file: string): Preamble {
  if (!hasCompiledMagic(bytes)) throw refused(file, 'not a compiled model (wrong magic)')
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const version = view.getUint32(8, true)
  if (version !== FORMAT_VERSION) throw new ServiceError('ERR_MODEL_UNSUPPORTED', `compiled model format ${version}, but this tfidf-serve reads format ${FORMAT_VERSION}: compile the model again`, { file })
  const headerBytes = view.getUint32(12, true)
  const treeBytes = view.getUint32(16, true)
  const blob = view.getBigUint64(24, true)
  if (view.getUint32(20, true) !== 0) throw refused(file, 'a reserved field is not zero')
  if (headerBytes > LIMITS.headerBytes) throw refused(file, `a header of ${headerBytes} bytes (at most ${LIMITS.headerBytes})`)
  if (treeBytes > LIMITS.treeBytes) throw refused(file, `a tree of ${treeBytes} bytes (at most ${LIMITS.treeBytes})`)
  if (blob > BigInt(LIMITS.blobBytes)) throw refused(file, `arrays of ${blob} bytes (at most ${LIMITS.blobBytes})`)
  const blobBytes = Number(blob)
  const blobAt = aligned8(PREAMBLE_BYTES + headerBytes + treeBytes)
  if (blobAt + blobBytes !== size) throw refused(file, `the parts add up to ${blobAt + blobBytes} bytes but the file has ${size}`)
  return { headerBytes, treeBytes, blobBytes, blobAt, checksum: bytes.slice(CHECKSUM_AT, CHECKSUM_AT + 32) }
}

function parseJson (bytes: Uint8Array, what: string, file: string): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
  } catch (err) {
    throw refused(file, `the ${what} is not JSON: ${(err as Error).message.slice(0, 200)}`)
  }
}

function readHeader (value: unknown, file: string): CompiledHeader {
  const h = value as { product?: unknown, sources?: unknown }
  const roles = new Set(['model', 'vectorizer', 'settings', 'functions', 'labels', 'data'])
  const goodSource = (s: unknown): boolean => {
    const { role, file, sha256 } = (s ?? {}) as Record<string, unknown>
    return typeof role === 'string' && roles.has(role) && typeof file === 'string' && typeof sha256 === 'string' && /^[0-9a-f]{64}$/.test(sha256)
  }
  if (h === null || typeof h !== 'object' || typeof h.product !== 'string' || !Array.isArray(h.sources) || !h.sources.every(goodSource)) throw refused(file, 'the header is not one tfidf-serve writes')
  return h as CompiledHeader
}

/** The views over `buffer` that the array table declares, each checked against the blob. */
function arrayViews (table: unknown, buffer: SharedArrayBuffer, blobBytes: number, file: string): AnyTypedArray[] {
  if (!Array.isArray(table) || table.length > LIMITS.arrays) throw refused(file, 'the array table is not a list of at most ' + String(LIMITS.arrays))
  return table.map((entry: unknown, i) => {
    const [dtype, offset, length] = Array.isArray(entry) && entry.length === 3 ? entry as [unknown, unknown, unknown] : []
    if (typeof dtype !== 'string' || !Object.hasOwn(DTYPES, dtype)) throw refused(file, `array ${i} has the dtype ${JSON.stringify(dtype)?.slice(0, 40) ?? 'none'}`)
    const Kind = DTYPES[dtype as DtypeName] as unknown as { new (buffer: SharedArrayBuffer, offset: number, length: number): AnyTypedArray, readonly BYTES_PER_ELEMENT: number }
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || (offset as number) < 0 || (length as number) < 0 || (offset as number) % 8 !== 0) throw refused(file, `array ${i} has the offset ${String(offset)} and length ${String(length)}`)
    const end = (offset as number) + (length as number) * Kind.BYTES_PER_ELEMENT
    if (end > blobBytes) throw refused(file, `array ${i} ends at byte ${end} of arrays that hold ${blobBytes}`)
    return new Kind(buffer, offset as number, length as number)
  })
}

/**
 * Reads and checks a compiled model file's structure.
 * @throws ServiceError ERR_MODEL_READ naming the file and the first thing wrong with it,
 * ERR_MODEL_UNSUPPORTED for a format version this build does not read.
 */
export function readCompiledFile (file: string): CompiledFile {
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch (err) {
    throw new ServiceError('ERR_MODEL_READ', `the compiled model cannot be read: ${(err as Error).message}`, { file, cause: err })
  }
  try {
    const size = fstatSync(fd).size
    if (size < PREAMBLE_BYTES) throw refused(file, `${size} bytes, fewer than the ${PREAMBLE_BYTES} of the preamble`)
    const head = new Uint8Array(PREAMBLE_BYTES)
    readFully(fd, head, 0, file)
    const p = readPreamble(head, size, file)
    const middle = new Uint8Array(p.blobAt - PREAMBLE_BYTES)
    readFully(fd, middle, PREAMBLE_BYTES, file)
    // Loaded straight into the memory the workers share (sized as shared-state.ts sizes it, for
    // glibc's sake): no copy after this read.
    const buffer = new SharedArrayBuffer(reserved(p.blobBytes))
    const blob = new Uint8Array(buffer, 0, p.blobBytes)
    readFully(fd, blob, p.blobAt, file)
    const sum = createHash('sha256').update(middle).update(blob).digest()
    if (!sum.equals(p.checksum)) throw refused(file, 'the checksum does not match the contents')
    const header = readHeader(parseJson(middle.subarray(0, p.headerBytes), 'header', file), file)
    const body = parseJson(middle.subarray(p.headerBytes, p.headerBytes + p.treeBytes), 'tree', file) as { tree?: unknown, arrays?: unknown } | null
    if (body === null || typeof body !== 'object' || !('tree' in body)) throw refused(file, 'the tree holds no model')
    const views = arrayViews(body.arrays, buffer, p.blobBytes, file)
    let tree: unknown
    try {
      tree = decodeTree(body.tree, (i, where) => {
        if (!Number.isInteger(i) || i < 0 || i >= views.length) throw refused(file, `${where} names array ${i} of ${views.length}`)
        return views[i]!
      })
    } catch (err) {
      throw err instanceof ServiceError ? err.withFile(file) : err
    }
    const parts = tree as CompiledFile['tree'] | null
    if (parts === null || typeof parts !== 'object' || !('state' in parts)) throw refused(file, 'the tree holds no model state')
    return { header, tree: { state: parts.state, app: parts.app ?? null, notes: parts.notes ?? [] }, bytes: p.blobBytes }
  } finally {
    closeSync(fd)
  }
}
