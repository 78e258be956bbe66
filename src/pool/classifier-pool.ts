/**
 * The Piscina pool of classifier workers behind one call: the model decoded once (in a
 * thread of its own), its arrays in memory every worker shares; admission limits, texts cut into
 * `batch_size` chunks run in parallel, a timeout per chunk that replaces the worker, and
 * results back in input order.
 */
import { Piscina } from './piscina.js'
import { ServiceError } from '../errors.js'
import type { LabelSource, ModelBatching } from '../settings/model-settings.js'
import type { LineFormat, LinesResult } from '../prediction-lines.js'
import type { Explanation } from '../sklearn/explain.js'
import { Admission } from './admission.js'
import { AdaptiveBatcher, gathers, type BatchLimits, type Share } from './adaptive-batcher.js'
import { TaskAbort } from './task-abort.js'
import { StartingQueue, TaskClock, type Overrun } from './task-clock.js'
import { collectNow } from './collect-garbage.js'
import { decodeModelInThread, type DecodedModel } from './decode-model-thread.js'
import { ModelPublisher } from './model-channel.js'
import { ModelShares } from './model-shares.js'
import { WorkerStarts } from './worker-starts.js'
import { watchShare, watchTask, type PoolObserver, type TaskReport } from './task-observer.js'
import { DEFAULT_MODEL_KEY, RESULT_COLUMNS, type ExplainTask, type LinesTask, type ModelStatus, type PredictResult, type PredictTask, type StatusTask, type WorkerInit, type WorkerMemory, type WorkerStarted, type WorkerStatus } from './messages.js'
import type { ModelPaths } from '../sklearn/load-model.js'
import type { EnsembleExplanation, EnsembleSpec } from '../model/ensemble.js'
import { CLASSIFY_WORKER } from '../layout.js'

/**
 * A worker's young generation. V8 grows it to 48 MB under a steady stream of short-lived
 * strings (tokens, output lines), and keeps it; 12 MB held the CLI's 2,000,000-line run at
 * 141 MB peak instead of 212 MB, at the same speed.
 */
const YOUNG_GENERATION_MB = 12

export interface PoolOptions {
  readonly modelPath: string
  readonly vectorizerPaths: readonly string[]
  /** The model's settings file, or null (none). */
  readonly settingsFile?: string | null
  /** Label names that replace the settings' (the CLI's --labels). */
  readonly labels?: LabelSource | null
  /** Worker threads. */
  readonly workers: number
  /** Per chunk, from the moment a worker takes it; past it the chunk's worker is replaced and the request gets 503. */
  readonly predictionTimeoutMs: number
  /**
   * The longest a request waits in line for an admission slot, and each chunk for a worker;
   * past it, 503 ERR_QUEUE_TIMEOUT. Defaults to predictionTimeoutMs: no request waits longer
   * than it could when that timeout counted the wait too.
   */
  readonly queueTimeoutMs?: number
  readonly maxConcurrentRequests: number
  readonly maxQueue: number
  /** The worker module; tests point it at a wrapper with hooks. Defaults to workers/classify.js. */
  readonly workerFile?: string | URL
  /** The model's decoding, when the caller started it already (main.ts does, first thing). */
  readonly decoding?: Promise<DecodedModel>
  /** Called with the thread id of each worker started to replace another. */
  readonly onWorkerRestart?: (threadId: number) => void
  /** Adaptive batching of every model whose settings do not say otherwise (config's ADAPTIVE_BATCH_*); off by default. */
  readonly adaptiveBatch?: BatchLimits
  /** The first model's own batching, from its settings. */
  readonly modelBatching?: ModelBatching | null
  /** The first model's own share of the workers (its settings' max_workers), or null for the default (model-shares.ts). */
  readonly modelMaxWorkers?: number | null
  /** The first model's members and rule when it is an ensemble. */
  readonly ensemble?: EnsembleSpec | null
  /** MODEL_CACHE_DIR: where every model's compiled file is looked up and written; null or absent: no cache. */
  readonly modelCacheDir?: string | null
}

/** What the pool reports of each predict task it hands a worker: its model, texts, and the requests' chunks it carries. */
export type TaskObserver = (model: string, texts: number, chunks: number) => void

const NO_BATCHING: BatchLimits = { maxTexts: 1, maxWaitMs: 0 }

/** Per text, in input order (columns: no object per prediction). */
export interface Classified {
  readonly classIndex: Int32Array
  /** The confidence of each text (docs/http-api.md, "Answers"). */
  readonly confidence: Float64Array
  /** Seconds the worker spent on each text. */
  readonly seconds: Float64Array
  /** The terms the analyzer made of each text, and how many of them are features. */
  readonly terms: Int32Array
  readonly known: Int32Array
}

/** A prediction of each text, with its score rows when they were asked for (the Open Inference Protocol's outputs). */
export interface Predicted extends Classified {
  /** `predict_proba` rows of `probaWidth`, or null when not asked or the model has none. */
  readonly proba: Float64Array | null
  /** `decision_function` rows of `decisionWidth` (one value per text for two classes), or null. */
  readonly decision: Float64Array | null
  readonly probaWidth: number
  readonly decisionWidth: number
}

/** A model to add to a running pool: its files, settings file and label names. */
export interface ModelSpec {
  readonly paths: ModelPaths
  readonly settingsFile: string | null
  readonly labels?: LabelSource | null
  /** The model's own adaptive batching (its settings' max_batch_size and max_batch_time); what it leaves out is the pool's. */
  readonly batching?: ModelBatching | null
  /** An ensemble's members and rule (its settings' `ensemble`); absent for a single model. */
  readonly ensemble?: EnsembleSpec | null
  /** The most workers its tasks may hold at once (its settings' max_workers), or null for the default (model-shares.ts). */
  readonly maxWorkers?: number | null
}

type Task = PredictTask | LinesTask | ExplainTask | StatusTask

/** Hands one task of a request to Piscina under the request's abort and clocks. */
type TaskRunner = (task: Task, options: { readonly name: string, readonly transferList?: ArrayBuffer[] }) => Promise<unknown>

export class ClassifierPool {
  /** What each worker reported holding of the first model when it started. */
  readonly workerMemory: readonly WorkerMemory[]
  readonly #models = new Map<string, ModelStatus>()
  /** Tasks running or queued per model key, and who waits for a key to fall idle. */
  readonly #busy = new Map<string, number>()
  readonly #idle = new Map<string, Array<() => void>>()
  readonly #workers: number
  readonly #piscina: Piscina<Task, unknown>
  readonly #publisher: ModelPublisher
  readonly #admission: Admission
  readonly #timeoutMs: number
  readonly #queueTimeoutMs: number
  readonly #batching: BatchLimits
  /** Each model's batching limits, when its settings set them. */
  readonly #modelBatching = new Map<string, ModelBatching>()
  /** Each model's gatherers of classify and score chunks (created on first use). */
  readonly #batchers = new Map<string, AdaptiveBatcher<PredictResult>>()
  /** Each model's share of the workers: its tasks past it wait before Piscina. */
  readonly #workerShares: ModelShares
  /** Tasks handed to Piscina and not yet settled (running or in its queue). */
  #running = 0
  #observer: TaskObserver | undefined
  #closed = false
  readonly #starts: WorkerStarts
  readonly #cacheDir: string | null

  private constructor (piscina: Piscina<Task, unknown>, publisher: ModelPublisher, model: ModelStatus, workerMemory: readonly WorkerMemory[], options: PoolOptions, starts: WorkerStarts) {
    this.#piscina = piscina
    this.#publisher = publisher
    this.#models.set(DEFAULT_MODEL_KEY, model)
    this.#workers = options.workers
    this.workerMemory = workerMemory
    this.#admission = new Admission(options.maxConcurrentRequests, options.maxQueue)
    this.#timeoutMs = options.predictionTimeoutMs
    this.#queueTimeoutMs = options.queueTimeoutMs ?? options.predictionTimeoutMs
    this.#batching = options.adaptiveBatch ?? NO_BATCHING
    if (options.modelBatching != null) this.#modelBatching.set(DEFAULT_MODEL_KEY, options.modelBatching)
    this.#workerShares = new ModelShares(options.workers, key => this.#batchers.get(key)?.workerFreed())
    this.#workerShares.add(DEFAULT_MODEL_KEY, options.modelMaxWorkers ?? null)
    this.#starts = starts
    this.#cacheDir = options.modelCacheDir ?? null
  }

  /** Tells `observer` of every classify and score task from now on (the service's Prometheus histogram). */
  observeTasks (observer: TaskObserver): void {
    this.#observer = observer
  }

  /** The adaptive batching `key` is served with. */
  batchingOf (key: string = DEFAULT_MODEL_KEY): BatchLimits {
    return Object.assign({}, this.#batching, this.#modelBatching.get(key))
  }

  /** Workers started to replace one that crashed or timed out. */
  get workerRestarts (): number {
    return Math.max(0, this.#starts.count - this.#starts.first)
  }

  /**
   * Decodes the model once, shares its arrays, starts the workers and waits until every one
   * has created it.
   * @throws ServiceError naming the model file and the problem when it cannot be served.
   */
  static async start (options: PoolOptions, onWorkerError: (err: unknown) => void = () => {}): Promise<ClassifierPool> {
    for (const [name, value] of [['workers', options.workers], ['predictionTimeoutMs', options.predictionTimeoutMs], ['queueTimeoutMs', options.queueTimeoutMs ?? 1]] as const) {
      if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be an integer >= 1`)
    }
    const started = performance.now()
    // The workers start (and load their code) while the model decodes; it reaches them on a channel.
    const publisher = new ModelPublisher()
    const init: WorkerInit = { modelChannel: publisher.name }
    const piscina = new Piscina<Task, unknown>({
      filename: (options.workerFile ?? CLASSIFY_WORKER).toString(),
      name: 'classify',
      minThreads: options.workers,
      maxThreads: options.workers,
      idleTimeout: Infinity,
      // Tells each request's clock when a worker takes its task (task-clock.ts).
      taskQueue: new StartingQueue(),
      workerData: init,
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB }
    })
    // A worker that dies outside a task (or while being replaced) must not take the process down.
    piscina.on('error', onWorkerError)
    // Every worker says so when it starts; past the first ones, each is a replacement.
    const starts = new WorkerStarts(options.workers)
    piscina.on('message', (message: unknown) => {
      const threadId = (message as WorkerStarted | null)?.workerStarted
      if (threadId === undefined) return
      starts.started(threadId)
      if (starts.count > starts.first) options.onWorkerRestart?.(threadId)
    })
    let decoded
    let statuses: WorkerStatus[]
    try {
      decoded = await (options.decoding ?? decodeModelInThread({ model: options.modelPath, vectorizers: options.vectorizerPaths }, options.settingsFile ?? null, options.labels ?? null, options.ensemble ?? null, options.modelCacheDir ?? null))
      statuses = await publishAndCreate(piscina, publisher, DEFAULT_MODEL_KEY, decoded, options.workers)
    } catch (err) {
      // A refusal usually comes while the workers still load their code: let them finish first.
      publisher.close()
      await destroyPool(piscina, starts)
      throw err
    }
    const model = modelStatus(decoded, statuses, performance.now() - started)
    const memory = statuses.map(s => (s as Extract<WorkerStatus, { ok: true }>).memory)
    return new ClassifierPool(piscina, publisher, model, memory, options, starts)
  }

  /** The first model (the only one, unless others were added). */
  get model (): ModelStatus {
    return this.#models.get(DEFAULT_MODEL_KEY)!
  }

  /** The status of the model under `key`, or undefined. */
  modelAt (key: string): ModelStatus | undefined {
    return this.#models.get(key)
  }

  /**
   * Decodes a model in a thread of its own, shares it, and has every worker create it;
   * tasks may name `key` once this resolves.
   * @throws ServiceError naming the file and the problem when it cannot be served (the pool
   * is unchanged).
   */
  async addModel (key: string, spec: ModelSpec): Promise<ModelStatus> {
    const started = performance.now()
    const decoded = await decodeModelInThread(spec.paths, spec.settingsFile, spec.labels ?? null, spec.ensemble ?? null, this.#cacheDir)
    const statuses = await publishAndCreate(this.#piscina, this.#publisher, key, decoded, this.#workers)
    const model = modelStatus(decoded, statuses, performance.now() - started)
    this.#models.set(key, model)
    this.#batchers.delete(key)
    if (spec.batching != null) this.#modelBatching.set(key, spec.batching)
    else this.#modelBatching.delete(key)
    this.#workerShares.add(key, spec.maxWorkers ?? null)
    return model
  }

  /** Stops serving `key`: waits for its tasks to end, then every worker lets go of it. */
  async removeModel (key: string): Promise<void> {
    if ((this.#busy.get(key) ?? 0) > 0) await new Promise<void>(resolve => { this.#idle.set(key, [...(this.#idle.get(key) ?? []), resolve]) })
    this.#models.delete(key)
    this.#batchers.delete(key)
    this.#modelBatching.delete(key)
    this.#workerShares.remove(key)
    this.#publisher.drop(key)
    // The drop message reaches an idle worker only with its next task; a task per worker now
    // has each let go and collect, and this thread collects too.
    await Promise.all(Array.from({ length: this.#workers }, async () => await this.#piscina.run({ model: key } satisfies StatusTask, { name: 'drop' })))
    collectNow()
  }

  /** Counts a task for `key` while it runs, so removeModel can wait for it. */
  async #tracked<T> (key: string, work: Promise<T>): Promise<T> {
    this.#busy.set(key, (this.#busy.get(key) ?? 0) + 1)
    try {
      return await work
    } finally {
      const left = this.#busy.get(key)! - 1
      this.#busy.set(key, left)
      if (left === 0) {
        for (const resolve of this.#idle.get(key) ?? []) resolve()
        this.#idle.delete(key)
      }
    }
  }

  /**
   * Hands one task to Piscina, counting it while it runs or waits in Piscina's queue; when it
   * settles, a worker is free, and the batchers may send what gathered.
   */
  async #hand (key: string, task: Task, options: { readonly name: string, readonly transferList?: ArrayBuffer[], readonly signal: TaskAbort }): Promise<unknown> {
    if (options.name === 'predict') this.#observer?.(key, (task as PredictTask).texts.length, 1)
    return await this.#workerShares.run(key, task, options.signal, async tagged => {
      this.#running++
      try {
        return await this.#piscina.run(tagged as Task, options)
      } finally {
        this.#workerDone()
      }
    })
  }

  /** A task settled: its worker is free, and the batchers may send what gathered. */
  #workerDone (): void {
    this.#running--
    for (const b of this.#batchers.values()) b.workerFreed()
  }

  /** How many workers would take a task now. */
  #freeWorkers (): number {
    return Math.max(0, this.#piscina.threads.length - this.#running)
  }

  /**
   * One gathered task (many requests' chunks) under clocks of its own: PREDICTION_TIMEOUT_MS
   * from the moment a worker takes it (docs/http-api.md, "Limits and timeouts"), QUEUE_TIMEOUT_MS in
   * Piscina's queue; past either, every request in it gets the 503.
   */
  async #runGathered (key: string, texts: string[], chunks: number, scores: boolean): Promise<PredictResult> {
    this.#observer?.(key, texts.length, chunks)
    const abort = new TaskAbort()
    const limits = { queueMs: this.#queueTimeoutMs, runMs: this.#timeoutMs }
    const clock = new TaskClock(abort, limits)
    let handed = false
    try {
      return await clock.run({ texts, model: key, scores } satisfies PredictTask, async tagged => await this.#workerShares.run(key, tagged, abort, async held => {
        handed = true
        this.#running++
        return await this.#piscina.run(held as Task, { name: 'predict', signal: abort })
      })) as PredictResult
    } catch (err) {
      throw workerFailure(err, abort.aborted ? clock.overrun : null, limits)
    } finally {
      clock.stop()
      if (handed) this.#workerDone()
    }
  }

  /** The gatherer of `key`'s chunks, or undefined when the model is not batched. */
  #batcher (key: string): AdaptiveBatcher<PredictResult> | undefined {
    const limits = this.batchingOf(key)
    if (!gathers(limits)) return undefined
    let b = this.#batchers.get(key)
    if (b === undefined) {
      b = new AdaptiveBatcher<PredictResult>(limits, async (texts, chunks, scores) => await this.#runGathered(key, texts, chunks, scores), () => Math.min(this.#freeWorkers(), this.#workerShares.free(key)))
      this.#batchers.set(key, b)
    }
    return b
  }

  /**
   * Each chunk of `batchSize` texts as a share of a worker task's result: a task of its own
   * (batching off), or gathered with other requests' chunks.
   */
  async #shares (key: string, texts: readonly string[], batchSize: number, scores: boolean, run: TaskRunner, abort: TaskAbort, taskEnded?: (report: TaskReport) => void): Promise<Array<Share<PredictResult>>> {
    const chunks: Array<readonly string[]> = []
    for (let start = 0; start < texts.length; start += batchSize) chunks.push(texts.slice(start, start + batchSize))
    const batcher = this.#batcher(key)
    if (batcher !== undefined) {
      return await Promise.all(chunks.map(async chunk => taskEnded === undefined
        ? await batcher.submit(chunk, scores)
        : await watchShare(chunk.length, async () => await batcher.submit(chunk, scores), taskEnded)))
    }
    return await Promise.all(chunks.map(async chunk => {
      try {
        const result = await run({ texts: chunk, model: key, scores } satisfies PredictTask, { name: 'predict' }) as PredictResult
        return { result, offset: 0, length: chunk.length }
      } catch (err) {
        // One failed chunk ends the request: stop its siblings too.
        abort.abort()
        throw err
      }
    }))
  }

  /**
   * The chunk size for a request of `n` texts for `key` whose protocol leaves it to the pool
   * (V2 and gRPC have no batch_size): one task per worker free to take it now, within the
   * model's share of the workers, no task under ten texts, and the whole request as one task
   * when no worker is free. A pool already busy gains no parallelism from more tasks, and
   * each costs both threads a hand-over and a wake-up (bench: a V2 batch of 50 in five tasks
   * against one).
   */
  spreadSize (n: number, key: string = DEFAULT_MODEL_KEY): number {
    const tasks = Math.max(1, Math.min(this.#freeWorkers(), this.#workerShares.free(key), Math.ceil(n / 10)))
    return Math.ceil(n / tasks)
  }

  /** Workers alive now. */
  get workerCount (): number {
    return this.#piscina.threads.length
  }

  get ready (): boolean {
    return !this.#closed && this.workerCount > 0
  }

  get inFlight (): number {
    return this.#admission.active
  }

  get waiting (): number {
    return this.#admission.waiting
  }

  /**
   * Runs `work` inside an admission slot, each of its tasks under the clocks of task-clock.ts
   * (`work` hands its tasks to Piscina through `run`).
   * @throws ServiceError ERR_QUEUE_FULL (503) past the admission limits, ERR_QUEUE_TIMEOUT
   * (503) when it waited past queueTimeoutMs for a slot or a worker, ERR_PREDICTION_TIMEOUT
   * (503) when a task ran past the timeout on its worker, ERR_WORKER_UNAVAILABLE (503) after
   * close, ERR_INTERNAL (500) when a worker fails. `observer` (tracing) is told of the
   * admission and of each task it runs (task-observer.ts).
   */
  async #admitted<T> (key: string, work: (run: TaskRunner, abort: TaskAbort) => Promise<T>, observer?: PoolObserver): Promise<T> {
    if (this.#closed) throw new ServiceError('ERR_WORKER_UNAVAILABLE')
    const askedAt = observer === undefined ? 0 : performance.now()
    await this.#admission.acquire(this.#queueTimeoutMs)
    observer?.admitted?.(askedAt, performance.now())
    const abort = new TaskAbort()
    const clock = new TaskClock(abort, { queueMs: this.#queueTimeoutMs, runMs: this.#timeoutMs })
    const taskEnded = observer?.taskEnded
    const run: TaskRunner = async (task, options) => {
      const dispatch = async (tagged: Task): Promise<unknown> => await this.#hand(key, tagged, Object.assign({}, options, { signal: abort }))
      return taskEnded === undefined ? await clock.run(task, dispatch) : await watchTask(clock, task, options.name, dispatch, taskEnded)
    }
    try {
      return await this.#tracked(key, work(run, abort))
    } catch (err) {
      throw workerFailure(err, abort.aborted ? clock.overrun : null, { queueMs: this.#queueTimeoutMs, runMs: this.#timeoutMs })
    } finally {
      clock.stop()
      this.#admission.release()
    }
  }

  /**
   * Classifies `texts` in chunks of `batchSize`, in parallel, results in input order; with
   * `scores`, each text's predict_proba and decision_function rows too (V2's outputs).
   * @throws ServiceError as `#admitted` says.
   */
  async classify (texts: readonly string[], batchSize: number, key: string = DEFAULT_MODEL_KEY, scores = false, observer?: PoolObserver): Promise<Predicted> {
    return await this.#admitted(key, async (run, abort) => {
      const shares = await this.#shares(key, texts, batchSize, scores, run, abort, observer?.taskEnded)
      const n = texts.length
      const first = shares[0]!.result
      const { probaWidth, decisionWidth } = first
      const out = {
        classIndex: new Int32Array(n),
        confidence: new Float64Array(n),
        seconds: new Float64Array(n),
        terms: new Int32Array(n),
        known: new Int32Array(n),
        proba: scores && first.proba !== null ? new Float64Array(n * probaWidth) : null,
        decision: scores && first.decision !== null ? new Float64Array(n * decisionWidth) : null,
        probaWidth,
        decisionWidth
      }
      shares.forEach(({ result: r, offset, length }, c) => {
        const at = c * batchSize
        const m = r.columns.length / RESULT_COLUMNS.length
        RESULT_COLUMNS.forEach((column, k) => { out[column].set(r.columns.subarray(k * m + offset, k * m + offset + length), at) })
        out.proba?.set(r.proba!.subarray(offset * probaWidth, (offset + length) * probaWidth), at * probaWidth)
        out.decision?.set(r.decision!.subarray(offset * decisionWidth, (offset + length) * decisionWidth), at * decisionWidth)
      })
      return out
    }, observer)
  }

  /**
   * Classifies and formats a chunk of whole input lines as one task (the CLI). `chunk` is
   * moved to the worker: it must own its buffer.
   * @throws ServiceError as `#admitted` says.
   */
  async predictLines (chunk: Uint8Array, format: LineFormat): Promise<LinesResult> {
    return await this.#admitted(DEFAULT_MODEL_KEY, async run => {
      const task: LinesTask = { chunk, format }
      return await run(task, { name: 'lines', transferList: [chunk.buffer as ArrayBuffer] }) as LinesResult
    })
  }

  /**
   * Explains each text's prediction (its `topK` strongest features) as one task.
   * @throws ServiceError ERR_NOT_EXPLAINABLE (422) for a model explanations are not defined
   * for, else as `#admitted` says.
   */
  async explain (texts: readonly string[], topK: number, key: string = DEFAULT_MODEL_KEY, observer?: PoolObserver): Promise<Array<Explanation | EnsembleExplanation>> {
    const refusal = this.#models.get(key)?.explainRefusal
    if (refusal !== undefined) throw new ServiceError('ERR_NOT_EXPLAINABLE', refusal)
    return await this.#admitted(key, async run => {
      const task: ExplainTask = { texts, topK, model: key }
      return await run(task, { name: 'explain' }) as Array<Explanation | EnsembleExplanation>
    }, observer)
  }

  /** Waits for the tasks in flight, then stops the workers. */
  async close (): Promise<void> {
    this.#closed = true
    // Not piscina.close(): it leaves a 30 s timer running that keeps a finished CLI alive.
    await this.#admission.idle()
    // a worker started to replace one that timed out may still be loading its code
    await destroyPool(this.#piscina, this.#starts)
    this.#publisher.close()
  }
}

/** Stops every worker, once none is still loading its modules (see worker-starts.ts). */
async function destroyPool (piscina: Piscina<Task, unknown>, starts: WorkerStarts): Promise<void> {
  await starts.settled(() => piscina.threads)
  await piscina.destroy()
}

/** A task's failure as the service reports it: 503 for our own clocks (saying which), 500 for anything else. */
function workerFailure (err: unknown, overrun: Overrun | null, limits: { readonly queueMs: number, readonly runMs: number }): ServiceError {
  // Already the answer (a gathered task's, which every request in it shares).
  if (err instanceof ServiceError) return err
  if (overrun === 'run' && isAbort(err)) return new ServiceError('ERR_PREDICTION_TIMEOUT', `prediction took longer than ${limits.runMs} ms`, { cause: err })
  if (overrun === 'queue' && isAbort(err)) return new ServiceError('ERR_QUEUE_TIMEOUT', `waited ${limits.queueMs} ms for a worker`, { cause: err })
  // The app's own function failing on a text is named (the log of a 500 shows it; the client never does).
  const message = (err as { message?: unknown } | null)?.message
  const detail = typeof message === 'string' && message.startsWith('user function ') ? `a worker failed: ${message}` : 'a worker failed'
  return new ServiceError('ERR_INTERNAL', detail, { cause: err })
}

function isAbort (err: unknown): boolean {
  return (err as { name?: string } | null)?.name === 'AbortError'
}

/**
 * Publishes a decoded model under `key` and has every worker create it: one status task per
 * worker (a worker takes one such task at a time and answers once the model is created).
 * @throws ServiceError when a worker cannot create it (the key is dropped again).
 */
async function publishAndCreate (piscina: Piscina<Task, unknown>, publisher: ModelPublisher, key: string, decoded: DecodedModel, workers: number): Promise<WorkerStatus[]> {
  // The settings and functions module as the decoding read them, not the files again.
  publisher.publish(key, { state: decoded.state, app: decoded.app })
  const statuses = await Promise.all(Array.from({ length: workers }, async () =>
    await piscina.run({ model: key } satisfies StatusTask, { name: 'status' }) as unknown as WorkerStatus))
  const failed = statuses.find(s => !s.ok)
  if (failed !== undefined && !failed.ok) {
    publisher.drop(key)
    throw new ServiceError(failed.code, failed.message)
  }
  return statuses
}

function modelStatus (decoded: DecodedModel, statuses: readonly WorkerStatus[], loadMs: number): ModelStatus {
  const { bytes, info, notes } = decoded
  return {
    classifier: info.classifier,
    vectorizer: info.vectorizer,
    steps: info.steps,
    classes: info.classes,
    nFeatures: info.nFeatures,
    confidence: info.confidence,
    loadMs,
    sharedBytes: bytes,
    sklearnVersions: info.sklearnVersions,
    explainRefusal: (statuses[0] as Extract<WorkerStatus, { ok: true }>).explainRefusal ?? undefined,
    notes,
    outputs: (statuses[0] as Extract<WorkerStatus, { ok: true }>).outputs
  }
}
