/**
 * The worker task. The pool decodes the model once and sends every worker its state, whose
 * arrays live in shared memory: a worker only creates the working estimators over them
 * (and its own scratch buffers), then classifies batches of texts.
 */
import { parentPort, threadId, workerData } from 'node:worker_threads'
import { ServiceError } from '../src/errors.js'
import { predictLines, type LinesResult } from '../src/prediction-lines.js'
import { createServedPredictor, type ServedModelState } from '../src/model/served-model.js'
import type { TermCoverage } from '../src/sklearn/estimator.js'
import type { Explanation } from '../src/sklearn/explain.js'
import type { TextClassifier } from '../src/sklearn/predictor.js'
import { stateBytes } from '../src/sklearn/shared-state.js'
import type { ClassifyResult, ClassifyTask, ExplainTask, LinesTask, WorkerInit, WorkerStarted, WorkerStatus } from '../src/pool/messages.js'
import { receiveModel } from '../src/pool/model-channel.js'

const init = workerData as WorkerInit
// The pool counts the workers that start after the first ones: replacements.
parentPort?.postMessage({ workerStarted: threadId } satisfies WorkerStarted)

/** The predictor, or why it could not be made (as data: errors lose their code across threads). */
const made: Promise<{ predictor: TextClassifier, state: ServedModelState } | { failure: WorkerStatus }> = receiveModel(init.modelChannel).then(async state => {
  try {
    return { predictor: await createServedPredictor(state as ServedModelState, init.settingsFile), state: state as ServedModelState }
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
  return { ok: true, memory: { sharedBytes: shared, ownBytes: total - shared }, explainRefusal: m.predictor.explainRefusal ?? null }
}

/** The model, or the reason it could not be made, thrown. */
async function predictor (): Promise<TextClassifier> {
  const m = await made
  if ('failure' in m) throw new Error(m.failure.ok ? 'unreachable' : m.failure.message)
  return m.predictor
}

export async function classify (task: ClassifyTask): Promise<ClassifyResult> {
  const model = await predictor()
  const n = task.texts.length
  // The columns of RESULT_COLUMNS, one after another.
  const columns = new Float64Array(5 * n)
  const coverage: TermCoverage = { terms: 0, known: 0 }
  for (let i = 0; i < n; i++) {
    coverage.terms = 0
    coverage.known = 0
    const t0 = performance.now()
    const p = model.predict(task.texts[i]!, coverage)
    columns[2 * n + i] = (performance.now() - t0) / 1000
    columns[i] = p.classIndex
    columns[n + i] = p.confidence
    columns[3 * n + i] = coverage.terms
    columns[4 * n + i] = coverage.known
  }
  return { columns }
}

export async function explain (task: ExplainTask): Promise<Explanation[]> {
  const model = await predictor()
  return task.texts.map(text => model.explain(text, task.topK))
}

export async function lines (task: LinesTask): Promise<LinesResult> {
  return predictLines(await predictor(), task.chunk, task.format)
}
