/**
 * A short-lived thread that reads and decodes the model files (or loads a compiled one),
 * moves the state's arrays into shared memory and hands the state to the thread that started
 * it, then ends. Decoding leaves several times the model's size in garbage (the pickle's
 * objects, strings, the arrays before they move); in a thread of its own, all of it goes when
 * the thread ends, where on the main thread V8 would return those pages to the system only
 * gradually. A model that goes into the cache (MODEL_CACHE_DIR) is written after it is handed
 * over, so the service does not wait for the write.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { ServiceError } from '../src/errors.js'
import type { DecodeReply, DecodeRequest } from '../src/pool/decode-messages.js'
import { decodeOrLoad, type SharedModel } from '../src/compiled/decode-or-load.js'

const request = workerData as DecodeRequest

async function decode (): Promise<{ reply: DecodeReply, compile?: SharedModel['compile'] }> {
  try {
    const { state, bytes, info, notes, app, compile } = await decodeOrLoad({ paths: request.paths, settingsFile: request.settingsFile, labels: request.labels, ensemble: request.ensemble }, request.cacheDir)
    return { reply: { ok: true, state, bytes, info, notes, app, compiling: compile !== undefined }, compile }
  } catch (err) {
    // Errors lose their class and code across threads: they cross as data.
    if (err instanceof ServiceError) return { reply: { ok: false, code: err.code, detail: err.detail, file: err.file, offset: err.offset, subject: err.subject } }
    return { reply: { ok: false, code: 'ERR_INTERNAL', detail: String((err as Error).stack ?? err), file: undefined, offset: undefined, subject: false } }
  }
}

const { reply, compile } = await decode()
parentPort!.postMessage(reply)
// A cache entry that cannot be written costs only the next start's speed: that start decodes again.
try {
  compile?.write()
} catch {}
