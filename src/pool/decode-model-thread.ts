/**
 * Decodes a model in a thread of its own (workers/decode.ts) and returns its state, arrays
 * in shared memory, once that thread has ended and taken the decoding garbage with it.
 */
import { once } from 'node:events'
import { Worker } from 'node:worker_threads'
import { ServiceError } from '../errors.js'
import type { LabelSource } from '../settings/model-settings.js'
import type { ModelPaths } from '../sklearn/load-model.js'
import type { DecodeReply, DecodeRequest } from './decode-messages.js'

const DECODER = new URL('../../workers/decode.js', import.meta.url)

/** A model decoded and shared: its state, the bytes of shared memory, its description. */
export type DecodedModel = Extract<DecodeReply, { ok: true }>

/**
 * @throws ServiceError naming the file and the problem when the model cannot be served.
 */
export async function decodeModelInThread (paths: ModelPaths, settingsFile: string | null = null, labels: LabelSource | null = null): Promise<DecodedModel> {
  const request: DecodeRequest = { paths: { model: paths.model, vectorizers: [...(paths.vectorizers ?? [])] }, settingsFile, labels }
  const worker = new Worker(DECODER, { workerData: request })
  const exited = once(worker, 'exit')
  const [reply] = await Promise.race([once(worker, 'message'), exited.then(([code]) => { throw new Error(`the model decoder stopped with code ${String(code)}`) })]) as [DecodeReply]
  await exited
  if (!reply.ok) throw new ServiceError(reply.code, reply.detail, { file: reply.file, offset: reply.offset })
  return reply
}
