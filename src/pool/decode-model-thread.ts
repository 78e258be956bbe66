/**
 * Decodes a model in a thread of its own (workers/decode.ts) and returns its state, arrays
 * in shared memory, once that thread has ended and taken the decoding garbage with it.
 */
import { once } from 'node:events'
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import { ServiceError } from '../errors.js'
import type { EnsembleSpec } from '../model/ensemble.js'
import type { LabelSource } from '../settings/model-settings.js'
import type { ModelPaths } from '../sklearn/load-model.js'
import type { DecodeReply, DecodeRequest } from './decode-messages.js'
import { DECODE_WORKER } from '../layout.js'

/** A model decoded and shared: its state, the bytes of shared memory, its description. */
export type DecodedModel = Extract<DecodeReply, { ok: true }>

/**
 * At most this many decoding threads at once (a repository loads its folders side by side):
 * more would not decode faster on these cores, and each thread running beside others gets a
 * malloc arena of its own that keeps its fragments after the thread ends (measured: ten at
 * once left about 40 MB in ten arenas after their models were unloaded).
 */
const MAX_DECODING = Math.max(1, availableParallelism())
let decoding = 0
const waiting: Array<() => void> = []

async function turn (): Promise<void> {
  if (decoding < MAX_DECODING) {
    decoding++
    return
  }
  await new Promise<void>(resolve => waiting.push(resolve))
}

function done (): void {
  const next = waiting.shift()
  if (next !== undefined) next()
  else decoding--
}

/**
 * @throws ServiceError naming the file and the problem when the model cannot be served.
 */
export async function decodeModelInThread (paths: ModelPaths, settingsFile: string | null = null, labels: LabelSource | null = null, ensemble: EnsembleSpec | null = null, cacheDir: string | null = null): Promise<DecodedModel> {
  await turn()
  try {
    return await decodeNow({ paths: { model: paths.model, vectorizers: [...(paths.vectorizers ?? [])] }, settingsFile, labels, ensemble, cacheDir })
  } finally {
    done()
  }
}

async function decodeNow (request: DecodeRequest): Promise<DecodedModel> {
  const worker = new Worker(DECODE_WORKER, { workerData: request })
  const exited = once(worker, 'exit')
  const [reply] = await Promise.race([once(worker, 'message'), exited.then(([code]) => { throw new Error(`the model decoder stopped with code ${String(code)}`) })]) as [DecodeReply]
  // A thread writing the model's cache entry is not waited for: the model serves meanwhile.
  if (!reply.ok || !reply.compiling) await exited
  if (!reply.ok) throw new ServiceError(reply.code, reply.detail, { file: reply.file, offset: reply.offset })
  return reply
}
