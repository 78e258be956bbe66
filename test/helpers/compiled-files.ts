/** Compiled model files for tests: made from fixture models, taken apart and put back together with a fresh checksum. */
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { CHECKSUM_AT, PREAMBLE_BYTES, aligned8 } from '../../src/compiled/format.js'
import { writeCompiled } from '../../src/compiled/write.js'
import { decodeServedModel, type ServedModelSpec } from '../../src/model/served-model.js'
import { shareState } from '../../src/sklearn/shared-state.js'
import { ROOT } from './paths.js'

export const DEFAULT_PATHS = { model: path.join(ROOT, 'models', 'final_best_model.pkl'), vectorizers: [path.join(ROOT, 'models', 'tfidf_vectorizer.pkl')] }

export function tempDir (prefix = 'tfsc-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix))
}

/** Compiles a model in this thread, as the decoding thread would, to `file`. */
export async function compileInProcess (spec: ServedModelSpec, file: string): Promise<string> {
  const decoded = await decodeServedModel(spec)
  const shared = shareState(decoded.state)
  writeCompiled(file, { state: shared.state, app: decoded.app, notes: decoded.notes }, { product: 'test', sources: [] })
  return file
}

/** A compiled file's parts, as they lie in it. */
export interface CompiledParts {
  preamble: Uint8Array
  header: unknown
  body: { tree: unknown, arrays: Array<[string, number, number]> }
  blob: Uint8Array
}

export function splitCompiled (bytes: Uint8Array): CompiledParts {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const h = view.getUint32(12, true)
  const t = view.getUint32(16, true)
  const blobAt = aligned8(PREAMBLE_BYTES + h + t)
  const text = (from: number, to: number): string => Buffer.from(bytes.subarray(from, to)).toString('utf8')
  return {
    preamble: bytes.slice(0, PREAMBLE_BYTES),
    header: JSON.parse(text(PREAMBLE_BYTES, PREAMBLE_BYTES + h)),
    body: JSON.parse(text(PREAMBLE_BYTES + h, PREAMBLE_BYTES + h + t)) as CompiledParts['body'],
    blob: bytes.slice(blobAt)
  }
}

/** The parts as a file again: lengths and checksum recomputed, so only what was changed is wrong. */
export function joinCompiled (parts: CompiledParts): Uint8Array {
  const header = Buffer.from(JSON.stringify(parts.header))
  const body = Buffer.from(JSON.stringify(parts.body))
  const blobAt = aligned8(PREAMBLE_BYTES + header.length + body.length)
  const out = new Uint8Array(blobAt + parts.blob.length)
  out.set(parts.preamble)
  const view = new DataView(out.buffer)
  view.setUint32(12, header.length, true)
  view.setUint32(16, body.length, true)
  view.setBigUint64(24, BigInt(parts.blob.length), true)
  out.set(header, PREAMBLE_BYTES)
  out.set(body, PREAMBLE_BYTES + header.length)
  out.set(parts.blob, blobAt)
  return withChecksum(out)
}

/** `bytes` with the checksum field made to match what follows the preamble. */
export function withChecksum (bytes: Uint8Array): Uint8Array {
  const out = bytes.slice()
  if (out.length >= PREAMBLE_BYTES) out.set(createHash('sha256').update(out.subarray(PREAMBLE_BYTES)).digest(), CHECKSUM_AT)
  return out
}

export function readBytes (file: string): Uint8Array {
  return new Uint8Array(readFileSync(file))
}

export function writeBytes (file: string, bytes: Uint8Array): string {
  writeFileSync(file, bytes)
  return file
}
