/**
 * The worker task. Each worker thread loads and decodes the model itself when it starts,
 * so the front thread never blocks on decoding, then classifies batches of texts.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { workerData } from 'node:worker_threads'
import { ServiceError } from '../src/errors.js'
import { loadModel } from '../src/sklearn/load-model.js'
import type { Predictor } from '../src/sklearn/predictor.js'
import type { ClassifyResult, ClassifyTask, WorkerInit, WorkerStatus } from '../src/pool/messages.js'

const init = workerData as WorkerInit
const started = performance.now()

/**
 * Decoding a model leaves several times its final size in garbage (the pickle's memo,
 * dicts, arrays). A full collection right after loading returns those pages before the
 * first request instead of whenever V8 gets round to it; a worker cannot be given
 * --expose-gc, so the flag is set at run time and `gc` taken from a fresh context.
 */
function collectGarbage (): void {
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as (() => void) | undefined
  gc?.()
}

const loading: Promise<{ predictor: Predictor, status: WorkerStatus }> = loadModel({ model: init.modelPath, vectorizers: init.vectorizerPaths })
  .then(({ predictor, notes }) => {
    collectGarbage()
    return { predictor, notes }
  })
  .then(({ predictor, notes }) => ({
    predictor,
    status: {
      ok: true as const,
      model: { ...predictor.info, loadMs: performance.now() - started, notes, classes: [...predictor.classes] }
    }
  }))

/** The model's description, or why it failed to load (as data: errors lose their code across threads). */
export async function status (): Promise<WorkerStatus> {
  try {
    return (await loading).status
  } catch (err) {
    if (err instanceof ServiceError) return { ok: false, code: err.code, message: err.message }
    return { ok: false, code: 'ERR_INTERNAL', message: String(err) }
  }
}

export async function classify (task: ClassifyTask): Promise<ClassifyResult> {
  const { predictor } = await loading
  const n = task.texts.length
  const classIndex = new Int32Array(n)
  const confidence = new Float64Array(n)
  const seconds = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    const t0 = performance.now()
    const p = predictor.predict(task.texts[i]!)
    seconds[i] = (performance.now() - t0) / 1000
    classIndex[i] = p.classIndex
    confidence[i] = p.confidence
  }
  return { classIndex, confidence, seconds }
}
