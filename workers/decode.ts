/**
 * A short-lived thread that reads and decodes the model files, moves the state's arrays into
 * shared memory and hands the state to the thread that started it, then ends. Decoding
 * leaves several times the model's size in garbage (the pickle's objects, strings, the
 * arrays before they move); in a thread of its own, all of it goes when the thread ends,
 * where on the main thread V8 would return those pages to the system only gradually.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { ServiceError } from '../src/errors.js'
import type { DecodeReply, DecodeRequest } from '../src/pool/decode-messages.js'
import { decodeEnsemble } from '../src/model/ensemble.js'
import { decodeServedModel } from '../src/model/served-model.js'
import { shareState } from '../src/sklearn/shared-state.js'

const request = workerData as DecodeRequest

async function decode (): Promise<DecodeReply> {
  try {
    const { state, info, notes, app } = request.ensemble !== null
      ? { ...await decodeEnsemble(request.ensemble), app: null }
      : await decodeServedModel({ paths: request.paths, settingsFile: request.settingsFile, labels: request.labels })
    const shared = shareState(state)
    return { ok: true, state: shared.state, bytes: shared.bytes, info, notes, app }
  } catch (err) {
    // Errors lose their class and code across threads: they cross as data.
    if (err instanceof ServiceError) return { ok: false, code: err.code, detail: err.detail, file: err.file, offset: err.offset }
    return { ok: false, code: 'ERR_INTERNAL', detail: String((err as Error).stack ?? err), file: undefined, offset: undefined }
  }
}

parentPort!.postMessage(await decode())
