/**
 * Decodes a model in a thread of its own (workers/decode.ts) and returns its state, arrays
 * in shared memory, once that thread has ended and taken the decoding garbage with it; or
 * loads the service's first model in the calling thread when it is a compiled file.
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
import { isCompiledFile } from '../compiled/read.js'

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
  if (!reply.ok) throw new ServiceError(reply.code, reply.detail, { file: reply.file, offset: reply.offset, subject: reply.subject })
  return reply
}

/**
 * The service's first model when it is a compiled file (MODEL_PATH=model.tfsc, a settings file
 * naming one), loaded in the calling thread: the front thread at start-up, which serves
 * nothing yet. A compiled load is one read into shared memory, views and checks, with next to
 * no garbage, so the thread decodeModelInThread would start for it (a Node instance of its
 * own, and its bundle to load, on cores the workers are starting on) costs more than the load.
 * Anything else, and a compiled model made with a functions module (user code, which this
 * thread never imports), goes to the decoding thread as before. A compiled load waits for
 * `after` (main.ts: the workers have been started, so they load their code meanwhile);
 * a decoding starts now. `here` resolves when this thread's part is over (the model loaded
 * or refused here, or handed to the decoding thread): main.ts lets it finish before it loads
 * the HTTP stack, as the workers wait for the model, not for the HTTP stack.
 * @throws ServiceError as decodeModelInThread would, naming the file and the problem.
 */
export function loadFirstModel (paths: ModelPaths, settingsFile: string | null, ensemble: EnsembleSpec | null, cacheDir: string | null, after: Promise<void>): { readonly model: Promise<DecodedModel>, readonly here: Promise<void> } {
  if (ensemble === null && isCompiledFile(paths.model)) {
    let handedOver!: () => void
    const here = new Promise<void>(resolve => { handedOver = resolve })
    const model = after.then(async () => await loadCompiledHere(paths, settingsFile, ensemble, cacheDir, handedOver))
    model.then(handedOver, handedOver)
    return { model, here }
  }
  return { model: decodeModelInThread(paths, settingsFile, null, ensemble, cacheDir), here: Promise.resolve() }
}

async function loadCompiledHere (paths: ModelPaths, settingsFile: string | null, ensemble: EnsembleSpec | null, cacheDir: string | null, handedOver: () => void): Promise<DecodedModel> {
  const { loadCompiledModelWithoutCode } = await import('../compiled/load-compiled.js')
  let loaded
  try {
    loaded = await loadCompiledModelWithoutCode(paths.model, settingsFile)
  } catch (err) {
    // As the decoding thread reports it: the code, detail, file and offset.
    if (err instanceof ServiceError) throw new ServiceError(err.code, err.detail, { file: err.file, offset: err.offset, subject: err.subject })
    throw new ServiceError('ERR_INTERNAL', String((err as Error).stack ?? err))
  }
  if (loaded === null) {
    handedOver()
    return await decodeModelInThread(paths, settingsFile, null, ensemble, cacheDir)
  }
  const { state, bytes, info, notes, app } = loaded
  return { ok: true, state, bytes, info, notes, app, compiling: false }
}
