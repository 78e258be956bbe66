/**
 * The worker task. The pool decodes each model once and publishes its state, whose arrays
 * live in shared memory: a worker creates a model's working estimators over them (and its own
 * scratch buffers) the first time a task names that model, keeps them while the model is
 * served, and lets go when the pool drops it.
 */
import { parentPort, threadId, workerData } from 'node:worker_threads'
import { ServiceError } from '../src/errors.js'
import { createAnyPredictor, type EnsembleExplanation, type EnsemblePredictor } from '../src/model/ensemble.js'
import { predictLines, type LinesResult } from '../src/prediction-lines.js'
import type { TermCoverage } from '../src/sklearn/estimator.js'
import type { Explanation } from '../src/sklearn/explain.js'
import type { PhaseTimes, TextClassifier } from '../src/sklearn/predictor.js'
import { stateBytes } from '../src/sklearn/shared-state.js'
import { CHUNK_CLOCK, COLUMN, DEFAULT_MODEL_KEY, epochNow, RESULT_COLUMNS, type PredictResult, type PredictTask, type ExplainTask, type LinesTask, type StatusTask, type WorkerInit, type WorkerStarted, type WorkerStatus } from '../src/pool/messages.js'
import { collectNow } from '../src/pool/collect-garbage.js'
import { ModelSubscriber, type PublishedModel } from '../src/pool/model-channel.js'

const init = workerData as WorkerInit
// The pool counts the workers that start after the first ones: replacements.
parentPort?.postMessage({ workerStarted: threadId } satisfies WorkerStarted)

type Made = { predictor: TextClassifier | EnsemblePredictor, model: PublishedModel } | { failure: WorkerStatus }

/** The models this worker has created (or is creating), by key: only those the pool serves. */
const models = new Map<string, Promise<Made>>()
const subscriber = new ModelSubscriber(init.modelChannel, drop, () => [...models.keys()])

/** The predictor for `key`, or why it could not be made (as data: errors lose their code across threads). */
async function make (key: string): Promise<Made> {
  let model: PublishedModel
  try {
    model = await subscriber.receive(key)
  } catch (err) {
    return { failure: { ok: false, code: 'ERR_MODEL_NOT_READY', message: (err as Error).message } }
  }
  try {
    return { predictor: await createAnyPredictor(model.state, model.app), model }
  } catch (err) {
    if (err instanceof ServiceError) return { failure: { ok: false, code: err.code, message: err.message } }
    return { failure: { ok: false, code: 'ERR_INTERNAL', message: String(err) } }
  }
}

function made (key: string = DEFAULT_MODEL_KEY): Promise<Made> {
  let m = models.get(key)
  if (m === undefined) {
    m = make(key)
    models.set(key, m)
    // A key no worker can get (not served): nothing is kept for it.
    const mine = m
    void m.then(r => { if ('failure' in r && !r.failure.ok && r.failure.code === 'ERR_MODEL_NOT_READY' && models.get(key) === mine) models.delete(key) })
  }
  return m
}

/**
 * Lets go of a dropped model and collects, so its shared memory can go back to the system.
 * First a few turns of the event loop: channel messages that reached this worker before the
 * drop (the model published again to a worker that asked for it) are only delivered now,
 * each a fresh reference to the model's arrays; collected before they are, they would hold
 * the memory until this worker's next collection, which an idle worker may never reach
 * (measured: one 18 MB model's arrays stayed after every unload).
 */
async function drop (key: string): Promise<void> {
  models.delete(key)
  for (let turn = 0; turn < 3; turn++) await new Promise(resolve => setImmediate(resolve))
  collectNow()
}

/** Whether the model was created, and what of it this worker holds in its own memory. */
export async function status (task?: StatusTask): Promise<WorkerStatus> {
  const m = await made(task?.model)
  if ('failure' in m) return m.failure
  const { total, shared } = stateBytes(m.model.state)
  return { ok: true, memory: { sharedBytes: shared, ownBytes: total - shared }, explainRefusal: m.predictor.explainRefusal ?? null, outputs: outputsOf(m.predictor) }
}

/** Which scores the model gives, from one prediction (a text of one space: no feature, never refused). */
function outputsOf (predictor: TextClassifier | EnsemblePredictor): { proba: boolean, decisionWidth: number } {
  try {
    const p = predictor.predict(' ')
    return { proba: p.proba !== undefined, decisionWidth: p.decision?.length ?? 0 }
  } catch {
    return { proba: false, decisionWidth: 0 }
  }
}

/** The model, or the reason it could not be made, thrown. */
async function predictor (key?: string): Promise<TextClassifier | EnsemblePredictor> {
  const m = await made(key)
  if ('failure' in m) throw new Error(m.failure.ok ? 'unreachable' : m.failure.message)
  return m.predictor
}

/**
 * Every prediction's task: the columns of each text and, when asked, its score rows. A task
 * of several chunks (`chunkSize`) marks each chunk's start in `chunkClock` for the pool's
 * prediction timeout, and stops before a chunk once the pool marks the request abandoned.
 */
export async function predict (task: PredictTask): Promise<PredictResult> {
  const model = await predictor(task.model)
  const clock = task.chunkClock
  const chunkSize = task.chunkSize ?? task.texts.length
  // A traced call's task times the vectorizer and the classifier (a worker has no tracer: the times go back with the result).
  const phases: PhaseTimes | undefined = task.timed === true ? { vectorizeMs: 0, scoreMs: 0 } : undefined
  const n = task.texts.length
  // The columns of RESULT_COLUMNS, one after another (messages.ts's COLUMN).
  const columns = new Float64Array(RESULT_COLUMNS.length * n)
  const [classAt, confidenceAt, secondsAt, termsAt, knownAt] = [COLUMN.classIndex * n, COLUMN.confidence * n, COLUMN.seconds * n, COLUMN.terms * n, COLUMN.known * n]
  let proba: Float64Array | null = null
  let decision: Float64Array | null = null
  let probaWidth = 0
  let decisionWidth = 0
  const coverage: TermCoverage = { terms: 0, known: 0 }
  for (let i = 0; i < n; i++) {
    if (clock !== undefined && i % chunkSize === 0) {
      if (clock[CHUNK_CLOCK.abandoned] !== 0) throw new Error('the request was abandoned')
      clock[CHUNK_CLOCK.startedAt] = epochNow()
    }
    coverage.terms = 0
    coverage.known = 0
    const t0 = performance.now()
    const p = model.predict(task.texts[i]!, coverage, phases)
    columns[secondsAt + i] = (performance.now() - t0) / 1000
    columns[classAt + i] = p.classIndex
    columns[confidenceAt + i] = p.confidence
    columns[termsAt + i] = coverage.terms
    columns[knownAt + i] = coverage.known
    if (!task.scores) continue
    if (i === 0) {
      probaWidth = p.proba?.length ?? 0
      decisionWidth = p.decision?.length ?? 0
      proba = p.proba === undefined ? null : new Float64Array(n * probaWidth)
      decision = p.decision === undefined ? null : new Float64Array(n * decisionWidth)
    }
    proba?.set(p.proba!, i * probaWidth)
    decision?.set(p.decision!, i * decisionWidth)
  }
  return phases === undefined ? { columns, proba, decision, probaWidth, decisionWidth } : { columns, proba, decision, probaWidth, decisionWidth, phases }
}

export async function explain (task: ExplainTask): Promise<Array<Explanation | EnsembleExplanation>> {
  const model = await predictor(task.model)
  return task.texts.map(text => model.explain(text, task.topK))
}

export async function lines (task: LinesTask): Promise<LinesResult> {
  return predictLines(await predictor(task.model), task.chunk, task.format)
}
