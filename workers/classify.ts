/**
 * The worker task. The pool decodes the model once and sends every worker its state, whose
 * arrays live in shared memory: a worker only creates the working estimators over them
 * (and its own scratch buffers), then classifies batches of texts.
 */
import { getHeapStatistics } from 'node:v8'
import { workerData } from 'node:worker_threads'
import { ServiceError } from '../src/errors.js'
import { createPredictor, type ModelState } from '../src/sklearn/load-model.js'
import type { TextClassifier } from '../src/sklearn/predictor.js'
import { stateBytes } from '../src/sklearn/shared-state.js'
import type { ClassifyResult, ClassifyTask, WorkerInit, WorkerStatus } from '../src/pool/messages.js'
import { receiveModel } from '../src/pool/model-channel.js'

const init = workerData as WorkerInit

/** The predictor, or why it could not be made (as data: errors lose their code across threads). */
const made: Promise<{ predictor: TextClassifier, state: ModelState } | { failure: WorkerStatus }> = receiveModel(init.modelChannel).then(state => {
  try {
    return { predictor: createPredictor(state), state }
  } catch (err) {
    if (err instanceof ServiceError) return { failure: { ok: false, code: err.code, message: err.message } as const }
    return { failure: { ok: false, code: 'ERR_INTERNAL', message: String(err) } as const }
  }
})

/** Whether the model was created, and what of it this worker holds in its own memory. */
export async function status (): Promise<WorkerStatus> {
  const m = await made
  if ('failure' in m) return m.failure
  const { total, shared } = stateBytes(m.state)
  return { ok: true, memory: { sharedBytes: shared, ownBytes: total - shared, heapUsed: getHeapStatistics().used_heap_size } }
}

export async function classify (task: ClassifyTask): Promise<ClassifyResult> {
  const m = await made
  if ('failure' in m) throw new Error(m.failure.ok ? 'unreachable' : m.failure.message)
  const predictor = m.predictor
  const n = task.texts.length
  const classIndex = new Int32Array(n)
  const confidence = new Float64Array(n)
  const seconds = new Float64Array(n)
  const full = task.full === true ? { proba: [] as number[], decision: [] as number[], probaWidth: 0, decisionWidth: 0 } : undefined
  for (let i = 0; i < n; i++) {
    const t0 = performance.now()
    const p = predictor.predict(task.texts[i]!)
    seconds[i] = (performance.now() - t0) / 1000
    classIndex[i] = p.classIndex
    confidence[i] = p.confidence
    if (full !== undefined) {
      full.probaWidth = p.proba?.length ?? 0
      full.decisionWidth = p.decision?.length ?? 0
      if (p.proba !== undefined) for (const v of p.proba) full.proba.push(v)
      if (p.decision !== undefined) for (const v of p.decision) full.decision.push(v)
    }
  }
  if (full === undefined) return { classIndex, confidence, seconds }
  return { classIndex, confidence, seconds, proba: Float64Array.from(full.proba), probaWidth: full.probaWidth, decision: Float64Array.from(full.decision), decisionWidth: full.decisionWidth }
}
