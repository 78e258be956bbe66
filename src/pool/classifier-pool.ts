/**
 * The Piscina pool of classifier workers behind one call: the model decoded once (in a
 * thread of its own), its arrays in memory every worker shares; each model version one record,
 * pinned by the requests it answers and dropped from every worker once unpinned
 * (docs/many-models.md); admission limits, a request's `batch_size` chunks spread over the free
 * workers, a timeout per chunk that replaces the worker, work its caller abandoned dropped
 * (docs/operations.md), and results back in input order. #dispatch and #runTask are the one
 * path from a call to a worker.
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
import { ModelPublisher, type WorkerHeld } from './model-channel.js'
import { ModelShares } from './model-shares.js'
import { WorkerStarts } from './worker-starts.js'
import { watchShare, watchTask, type PoolObserver, type TaskReport } from './task-observer.js'
import { abandonment } from './abandoned.js'
import { CHUNK_CLOCK, COLUMN, DEFAULT_MODEL_KEY, epochNow, NOT_SERVED, RESULT_COLUMNS, type ExplainTask, type LinesTask, type ModelStatus, type PredictResult, type PredictTask, type StatusTask, type WorkerInit, type WorkerMemory, type WorkerStarted, type WorkerStatus } from './messages.js'
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

/**
 * A request's hold on one model version: taken before any await (quota, admission, the queue)
 * and released once its last chunk settles; the version is dropped only when no pin is left
 * (docs/many-models.md).
 */
export interface ModelPin {
  readonly key: string
  /** Lets go (once; later calls do nothing). */
  release: () => void
  /** Another pin of the same version (the pool's own, for a call's work, released when that settles). */
  again: () => ModelPin
}

/** What a caller may pass a pool call: its caller's abort (the client went away, a timeout, a gRPC cancel), and the pin it took. */
export interface PoolCall {
  readonly signal?: AbortSignal
  readonly pin?: ModelPin
}

/** All the pool's state of one model version, created by addModel and removed whole by removeModel. */
class ModelRecord {
  readonly status: ModelStatus
  readonly batching: ModelBatching | null
  /** Its gatherer of classify and score chunks (created on first use, when it batches). */
  batcher: AdaptiveBatcher<PredictResult> | undefined
  pins = 0
  /** removeModel has begun: no new pin. */
  retiring = false
  readonly #unpinned: Array<() => void> = []

  constructor (status: ModelStatus, batching: ModelBatching | null) {
    this.status = status
    this.batching = batching
  }

  /** Resolves once no request holds this version. */
  async unpinned (): Promise<void> {
    if (this.pins === 0) return
    await new Promise<void>(resolve => this.#unpinned.push(resolve))
  }

  unpin (): void {
    if (--this.pins === 0) for (const resolve of this.#unpinned.splice(0)) resolve()
  }
}

/** A pin of `record`, which a pin already holds or which is not retiring. */
function pinOf (key: string, record: ModelRecord): ModelPin {
  record.pins++
  let held = true
  return {
    key,
    release: () => {
      if (!held) return
      held = false
      record.unpin()
    },
    again: () => pinOf(key, record)
  }
}

/** One request's work once admitted: its clocks, the abort of all its tasks, its caller's signal. */
interface RequestRun {
  readonly key: string
  readonly clock: TaskClock
  readonly abort: TaskAbort
  readonly signal: AbortSignal | undefined
  readonly taskEnded: ((report: TaskReport) => void) | undefined
}

/** What the pool has done with tasks so far, from its own counts. */
export interface PoolCounts {
  /** Tasks a worker took. */
  readonly tasksStarted: number
  /** Texts of abandoned requests that never reached a worker. */
  readonly textsDropped: number
}

/** Work in flight at each stage of the dispatch path. */
export interface PoolStages {
  /** Requests in line for an admission slot. */
  readonly queued: number
  /** Requests holding a slot. */
  readonly admitted: number
  /** Tasks waiting for their model's share of the workers. */
  readonly awaitingShare: number
  /** Tasks handed to Piscina and not yet settled (on a worker or in Piscina's queue). */
  readonly handed: number
}

export class ClassifierPool {
  /** What each worker reported holding of the first model when it started. */
  readonly workerMemory: readonly WorkerMemory[]
  /** Every model version served, each with all its state. */
  readonly #models = new Map<string, ModelRecord>()
  readonly #workers: number
  readonly #piscina: Piscina<Task, unknown>
  readonly #publisher: ModelPublisher
  readonly #admission: Admission
  readonly #timeoutMs: number
  readonly #queueTimeoutMs: number
  readonly #batching: BatchLimits
  /** Each model's share of the workers: its tasks past it wait before Piscina. */
  readonly #workerShares: ModelShares
  /** Tasks handed to Piscina and not yet settled (running or in its queue). */
  #handed = 0
  #tasksStarted = 0
  #textsDropped = 0
  #observer: TaskObserver | undefined
  #closed = false
  readonly #starts: WorkerStarts
  readonly #cacheDir: string | null

  private constructor (piscina: Piscina<Task, unknown>, publisher: ModelPublisher, model: ModelStatus, workerMemory: readonly WorkerMemory[], options: PoolOptions, starts: WorkerStarts) {
    this.#piscina = piscina
    this.#publisher = publisher
    this.#models.set(DEFAULT_MODEL_KEY, new ModelRecord(model, options.modelBatching ?? null))
    this.#workers = options.workers
    this.workerMemory = workerMemory
    this.#admission = new Admission(options.maxConcurrentRequests, options.maxQueue)
    this.#timeoutMs = options.predictionTimeoutMs
    this.#queueTimeoutMs = options.queueTimeoutMs ?? options.predictionTimeoutMs
    this.#batching = options.adaptiveBatch ?? NO_BATCHING
    this.#workerShares = new ModelShares(options.workers, key => this.#models.get(key)?.batcher?.workerFreed())
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
    return Object.assign({}, this.#batching, this.#models.get(key)?.batching)
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
    let piscina: Piscina<Task, unknown> | undefined
    const publisher = new ModelPublisher(() => piscina?.threads.map(t => t.threadId) ?? [])
    const init: WorkerInit = { modelChannel: publisher.name }
    piscina = new Piscina<Task, unknown>({
      filename: (options.workerFile ?? CLASSIFY_WORKER).toString(),
      name: 'classify',
      minThreads: options.workers,
      maxThreads: options.workers,
      idleTimeout: Infinity,
      // An idle worker must hear the model channel (a drop, the pool's census): with atomics,
      // Piscina parks it in Atomics.wait, where no message reaches it until its next task.
      useAtomics: false,
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
    return this.#models.get(DEFAULT_MODEL_KEY)!.status
  }

  /** The status of the model under `key`, or undefined. */
  modelAt (key: string): ModelStatus | undefined {
    return this.#models.get(key)?.status
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
    this.#models.set(key, new ModelRecord(model, spec.batching ?? null))
    this.#workerShares.add(key, spec.maxWorkers ?? null)
    return model
  }

  /**
   * Stops serving `key`: no new pin from now; once the requests that pinned it are answered,
   * its state goes whole and every worker lets go of it (each confirms).
   */
  async removeModel (key: string): Promise<void> {
    const record = this.#models.get(key)
    if (record === undefined || record.retiring) return
    record.retiring = true
    await record.unpinned()
    this.#models.delete(key)
    this.#workerShares.remove(key)
    await this.#publisher.drop(key)
    collectNow()
  }

  /**
   * Pins the version served under `key` for a request, synchronously: call it before the
   * request's first await.
   * @throws ServiceError ERR_MODEL_NOT_READY (503) at once when `key` is not served (or is going).
   */
  pin (key: string = DEFAULT_MODEL_KEY): ModelPin {
    const record = this.#models.get(key)
    if (record === undefined || record.retiring) throw new ServiceError('ERR_MODEL_NOT_READY', 'the model version this request was for is no longer served')
    return pinOf(key, record)
  }

  /** The model keys the pool holds state for: its records, and its shares of the workers. */
  get modelKeys (): { readonly models: readonly string[], readonly shares: readonly string[] } {
    return { models: [...this.#models.keys()], shares: this.#workerShares.keys() }
  }

  /** What each worker alive holds, as each says over the model channel (a busy one answers once its task yields). */
  async workersHeld (): Promise<WorkerHeld[]> {
    return await this.#publisher.census()
  }

  get counts (): PoolCounts {
    return { tasksStarted: this.#tasksStarted, textsDropped: this.#textsDropped }
  }

  get stages (): PoolStages {
    return { queued: this.#admission.waiting, admitted: this.#admission.active, awaitingShare: this.#workerShares.waiting, handed: this.#handed }
  }

  /** How many workers would take a task now. */
  #freeWorkers (): number {
    return Math.max(0, this.#piscina.threads.length - this.#handed)
  }

  /**
   * The one way a request's work reaches the workers, top to bottom: pin the model (before any
   * await), take an admission slot, do `work` (whose tasks go through #runTask), settle. The
   * caller's `signal` frees the slot at once; work already on a worker finishes or meets its
   * prediction timeout, and the pin is held until it settles.
   * @throws ServiceError ERR_MODEL_NOT_READY (503) when the model is not served, ERR_QUEUE_FULL
   * (503) past the admission limits, ERR_QUEUE_TIMEOUT (503) when it waited past queueTimeoutMs
   * for a slot or a worker, ERR_PREDICTION_TIMEOUT (503) when a chunk ran past the timeout on
   * its worker, ERR_REQUEST_TIMEOUT (503) when the caller's signal fired, ERR_WORKER_UNAVAILABLE
   * (503) after close, ERR_INTERNAL (500) when a worker fails. `observer` (tracing) is told of
   * the admission and of each task it runs (task-observer.ts).
   */
  async #dispatch<T> (key: string, call: PoolCall | undefined, observer: PoolObserver | undefined, work: (run: RequestRun) => Promise<T>): Promise<T> {
    if (this.#closed) throw new ServiceError('ERR_WORKER_UNAVAILABLE')
    // Its own pin, from the caller's when it took one: released when the work settles.
    const pin = call?.pin?.again() ?? this.pin(key)
    const signal = call?.signal
    let settling: Promise<T> | undefined
    try {
      const askedAt = observer === undefined ? 0 : performance.now()
      await this.#admission.acquire(this.#queueTimeoutMs, signal)
      observer?.admitted?.(askedAt, performance.now())
      const abort = new TaskAbort()
      const limits = { queueMs: this.#queueTimeoutMs, runMs: this.#timeoutMs }
      const clock = new TaskClock(abort, limits)
      const run: RequestRun = { key, clock, abort, signal, taskEnded: observer?.taskEnded }
      settling = (async () => {
        try {
          return await work(run)
        } catch (err) {
          throw workerFailure(err, abort.aborted ? clock.overrun : null, limits)
        } finally {
          clock.stop()
        }
      })()
      try {
        return await untilAbandoned(settling, signal)
      } finally {
        this.#admission.release()
      }
    } finally {
      // The pin lasts until the last task settles, even when the caller left before.
      if (settling === undefined) pin.release()
      else settling.then(pin.release, pin.release)
    }
  }

  /**
   * One worker task of a request, from its model's share of the workers to its settling. Only
   * the request's own clocks (and a failed sibling) abort it once a worker has it; the caller's
   * signal drops it only while no worker has taken it: Piscina's abort of a running task ends
   * its worker, which costs every request on that worker, so a running task finishes (a task of
   * several chunks starts no further chunk) or meets its prediction timeout.
   */
  async #runTask (run: RequestRun, task: Task, name: string, transferList?: ArrayBuffer[], gatheredChunks?: number): Promise<unknown> {
    const texts = (task as { texts?: readonly string[] }).texts?.length ?? 0
    const chunkClock = (task as PredictTask).chunkClock
    if (run.signal?.aborted === true) {
      this.#textsDropped += texts
      throw abandonment(run.signal)
    }
    const abort = new TaskAbort(run.abort)
    let started = false
    const onStart = (): void => {
      started = true
      this.#tasksStarted++
      if (chunkClock !== undefined) chunkClock[CHUNK_CLOCK.startedAt] = epochNow()
    }
    const gone = (): void => {
      if (!started) {
        this.#textsDropped += texts
        abort.abort()
      } else if (chunkClock !== undefined) chunkClock[CHUNK_CLOCK.abandoned] = 1
    }
    run.signal?.addEventListener('abort', gone, { once: true })
    if (name === 'predict') this.#observer?.(run.key, texts, gatheredChunks ?? Math.ceil(texts / ((task as PredictTask).chunkSize ?? texts)))
    const hand = async (held: object): Promise<unknown> => {
      this.#handed++
      try {
        return await this.#piscina.run(held as Task, { name, signal: abort, transferList })
      } finally {
        this.#handed--
        for (const r of this.#models.values()) r.batcher?.workerFreed()
      }
    }
    const onClock = async (tagged: Task, told?: () => void): Promise<unknown> => await run.clock.run(tagged, async t => await this.#workerShares.run(run.key, t, abort, hand), () => { onStart(); told?.() }, chunkClock === undefined ? undefined : () => chunkClock[CHUNK_CLOCK.startedAt]!)
    try {
      return run.taskEnded === undefined ? await onClock(task) : await watchTask(task, name, onClock, run.taskEnded)
    } catch (err) {
      // (A fresh read: the signal may have fired while this awaited.)
      if (!started && aborted(run.signal)) throw abandonment(run.signal!)
      throw err
    } finally {
      run.signal?.removeEventListener('abort', gone)
    }
  }

  /**
   * One gathered task (many requests' chunks) under clocks of its own: PREDICTION_TIMEOUT_MS
   * from the moment a worker takes it (docs/http-api.md, "Limits and timeouts"), QUEUE_TIMEOUT_MS
   * waiting for one; past either, every request in it gets the 503.
   */
  async #runGathered (key: string, texts: string[], chunks: number, scores: boolean): Promise<PredictResult> {
    const abort = new TaskAbort()
    const limits = { queueMs: this.#queueTimeoutMs, runMs: this.#timeoutMs }
    const clock = new TaskClock(abort, limits)
    const run: RequestRun = { key, clock, abort, signal: undefined, taskEnded: undefined }
    try {
      return await this.#runTask(run, { texts, model: key, scores } satisfies PredictTask, 'predict', undefined, chunks) as PredictResult
    } catch (err) {
      throw workerFailure(err, abort.aborted ? clock.overrun : null, limits)
    } finally {
      clock.stop()
    }
  }

  /** The gatherer of `key`'s chunks, or undefined when the model is not batched. */
  #batcher (key: string): AdaptiveBatcher<PredictResult> | undefined {
    const record = this.#models.get(key)
    const limits = this.batchingOf(key)
    if (record === undefined || !gathers(limits)) return undefined
    record.batcher ??= new AdaptiveBatcher<PredictResult>(limits, async (texts, chunks, scores) => await this.#runGathered(key, texts, chunks, scores), () => Math.min(this.#freeWorkers(), this.#workerShares.free(key)), n => { this.#textsDropped += n })
    return record.batcher
  }

  /**
   * The request's texts as shares of worker tasks' results, each share at `at` in the request:
   * chunks of `batchSize` gathered with other requests' (adaptive batching), or, batching off,
   * as few tasks as there are workers free to take them now (spreadSize's rule, in whole chunks),
   * each chunk keeping its own prediction timeout.
   */
  async #shares (run: RequestRun, texts: readonly string[], batchSize: number, scores: boolean): Promise<Array<Share<PredictResult> & { readonly at: number }>> {
    const key = run.key
    const n = texts.length
    const batcher = this.#batcher(key)
    if (batcher !== undefined) {
      const starts: number[] = []
      for (let at = 0; at < n; at += batchSize) starts.push(at)
      return await Promise.all(starts.map(async at => {
        const chunk = texts.slice(at, at + batchSize)
        const submit = async (): Promise<Share<PredictResult>> => await batcher.submit(chunk, scores, run.signal)
        const share = run.taskEnded === undefined ? await submit() : await watchShare(chunk.length, submit, run.taskEnded)
        return Object.assign({ at }, share)
      }))
    }
    const chunks = Math.ceil(n / batchSize)
    const tasks = Math.max(1, Math.min(this.#freeWorkers(), this.#workerShares.free(key), chunks, Math.ceil(n / 10)))
    const perTask = Math.ceil(chunks / tasks) * batchSize
    const starts: number[] = []
    for (let at = 0; at < n; at += perTask) starts.push(at)
    return await Promise.all(starts.map(async at => {
      const slice = texts.slice(at, at + perTask)
      const several = slice.length > batchSize
      const task: PredictTask = several
        ? { texts: slice, model: key, scores, chunkSize: batchSize, chunkClock: new Float64Array(new SharedArrayBuffer(CHUNK_CLOCK.slots * Float64Array.BYTES_PER_ELEMENT)) }
        : { texts: slice, model: key, scores }
      try {
        const result = await this.#runTask(run, task, 'predict') as PredictResult
        return { result, offset: 0, length: slice.length, at }
      } catch (err) {
        // One failed task ends the request: stop its siblings too.
        run.abort.abort()
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
   * Classifies `texts` in chunks of `batchSize`, in parallel, results in input order; with
   * `scores`, each text's predict_proba and decision_function rows too (V2's outputs).
   * @throws ServiceError as `#dispatch` says.
   */
  async classify (texts: readonly string[], batchSize: number, key: string = DEFAULT_MODEL_KEY, scores = false, observer?: PoolObserver, call?: PoolCall): Promise<Predicted> {
    return await this.#dispatch(key, call, observer, async run => {
      const shares = await this.#shares(run, texts, batchSize, scores)
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
      for (const { result: r, offset, length, at } of shares) {
        const m = r.columns.length / RESULT_COLUMNS.length
        for (const column of RESULT_COLUMNS) out[column].set(r.columns.subarray(COLUMN[column] * m + offset, COLUMN[column] * m + offset + length), at)
        out.proba?.set(r.proba!.subarray(offset * probaWidth, (offset + length) * probaWidth), at * probaWidth)
        out.decision?.set(r.decision!.subarray(offset * decisionWidth, (offset + length) * decisionWidth), at * decisionWidth)
      }
      return out
    })
  }

  /**
   * Classifies and formats a chunk of whole input lines as one task (the CLI). `chunk` is
   * moved to the worker: it must own its buffer.
   * @throws ServiceError as `#dispatch` says.
   */
  async predictLines (chunk: Uint8Array, format: LineFormat): Promise<LinesResult> {
    return await this.#dispatch(DEFAULT_MODEL_KEY, undefined, undefined, async run => {
      const task: LinesTask = { chunk, format }
      return await this.#runTask(run, task, 'lines', [chunk.buffer as ArrayBuffer]) as LinesResult
    })
  }

  /**
   * Explains each text's prediction (its `topK` strongest features) as one task.
   * @throws ServiceError ERR_NOT_EXPLAINABLE (422) for a model explanations are not defined
   * for, else as `#dispatch` says.
   */
  async explain (texts: readonly string[], topK: number, key: string = DEFAULT_MODEL_KEY, observer?: PoolObserver, call?: PoolCall): Promise<Array<Explanation | EnsembleExplanation>> {
    const refusal = this.#models.get(key)?.status.explainRefusal
    if (refusal !== undefined) throw new ServiceError('ERR_NOT_EXPLAINABLE', refusal)
    return await this.#dispatch(key, call, observer, async run => {
      const task: ExplainTask = { texts, topK, model: key }
      return await this.#runTask(run, task, 'explain') as Array<Explanation | EnsembleExplanation>
    })
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

function aborted (signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true
}

/** Resolves with `work`, or fails with the abandonment as soon as `signal` fires (`work` goes on to its end). */
async function untilAbandoned<T> (work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return await work
  if (signal.aborted) {
    work.catch(() => {})
    throw abandonment(signal)
  }
  let leave: (() => void) | undefined
  const gone = new Promise<never>((_resolve, reject) => {
    leave = () => { reject(abandonment(signal)) }
    signal.addEventListener('abort', leave, { once: true })
  })
  try {
    return await Promise.race([work, gone])
  } finally {
    signal.removeEventListener('abort', leave!)
    work.catch(() => {})
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
  // A key no worker can get: said at once, never after a timeout.
  const said = (err as { message?: unknown } | null)?.message
  if (typeof said === 'string' && said.startsWith(NOT_SERVED)) return new ServiceError('ERR_MODEL_NOT_READY', said, { cause: err })
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
    await publisher.drop(key)
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
