/**
 * Writes a compiled model file (format.ts): the decoded model's tree and arrays, behind a
 * header naming the product version and the sources' SHA-256. Written to a temporary name
 * beside the target and renamed over it, so a reader (a replica sharing the cache) never sees
 * half a file.
 */
import { createHash } from 'node:crypto'
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs'
import path from 'node:path'
import { ServiceError } from '../errors.js'
import { CHECKSUM_AT, FORMAT_VERSION, LIMITS, MAGIC, PREAMBLE_BYTES, aligned8, dtypeOf, type CompiledHeader } from './format.js'
import { encodeTree } from './tree.js'

/** What a compiled file holds of a decoded model: what the decoding thread hands the workers, and its notes. */
export interface CompiledContent {
  readonly state: unknown
  readonly app: unknown
  readonly notes: readonly string[]
}

/** The file's bytes after the preamble, in order, with the blob's size. */
function layout (content: CompiledContent, header: CompiledHeader): { parts: Uint8Array[], blobBytes: number, headerBytes: number, treeBytes: number } {
  const { tree, arrays } = encodeTree({ state: content.state, app: content.app, notes: content.notes })
  let offset = 0
  const table = arrays.map(a => {
    const dtype = dtypeOf(a)
    if (dtype === undefined) throw new ServiceError('ERR_MODEL_UNSUPPORTED', `the model's state holds a ${a.constructor.name}, which a compiled file cannot hold`)
    const entry = [dtype, offset, a.length] as const
    offset += aligned8(a.byteLength)
    return entry
  })
  const headerJson = Buffer.from(JSON.stringify(header), 'utf8')
  const treeJson = Buffer.from(JSON.stringify({ tree, arrays: table }), 'utf8')
  if (treeJson.length > LIMITS.treeBytes) throw new ServiceError('ERR_MODEL_UNSUPPORTED', `the model's state takes ${treeJson.length} bytes of description, over the ${LIMITS.treeBytes} a compiled file allows`)
  const parts: Uint8Array[] = [headerJson, treeJson, new Uint8Array(aligned8(PREAMBLE_BYTES + headerJson.length + treeJson.length) - (PREAMBLE_BYTES + headerJson.length + treeJson.length))]
  for (const a of arrays) {
    parts.push(new Uint8Array(a.buffer, a.byteOffset, a.byteLength))
    parts.push(new Uint8Array(aligned8(a.byteLength) - a.byteLength))
  }
  return { parts, blobBytes: offset, headerBytes: headerJson.length, treeBytes: treeJson.length }
}

function preamble (headerBytes: number, treeBytes: number, blobBytes: number): Uint8Array {
  const out = new Uint8Array(PREAMBLE_BYTES)
  const view = new DataView(out.buffer)
  out.set(MAGIC, 0)
  view.setUint32(8, FORMAT_VERSION, true)
  view.setUint32(12, headerBytes, true)
  view.setUint32(16, treeBytes, true)
  view.setBigUint64(24, BigInt(blobBytes), true)
  return out
}

/**
 * Writes `content` to `file` as a compiled model.
 * @returns the bytes written.
 * @throws ServiceError ERR_MODEL_UNSUPPORTED when the state holds what the format cannot,
 * ERR_CONFIG_INVALID naming the file when it cannot be written.
 */
export function writeCompiled (file: string, content: CompiledContent, header: CompiledHeader): number {
  const { parts, blobBytes, headerBytes, treeBytes } = layout(content, header)
  const hash = createHash('sha256')
  for (const p of parts) hash.update(p)
  const head = preamble(headerBytes, treeBytes, blobBytes)
  head.set(hash.digest(), CHECKSUM_AT)
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`)
  let fd: number | undefined
  let written = 0
  try {
    fd = openSync(temporary, 'w')
    for (const p of [head, ...parts]) {
      for (let at = 0; at < p.byteLength;) at += writeSync(fd, p, at, p.byteLength - at)
      written += p.byteLength
    }
    fsyncSync(fd)
    closeSync(fd)
    fd = undefined
    renameSync(temporary, file)
  } catch (err) {
    if (fd !== undefined) closeSync(fd)
    rmSync(temporary, { force: true })
    throw new ServiceError('ERR_CONFIG_INVALID', `the compiled model cannot be written: ${(err as Error).message}`, { file, cause: err })
  }
  return written
}
