/**
 * What crosses the thread boundary between the pool and its workers. Errors do not
 * survive the hop with their class and code, so a worker reports a model
 * it could not create as data.
 */
import type { ErrorCode } from '../errors.js'
import type { LineFormat } from '../prediction-lines.js'
import type { ConfidenceMethod } from '../sklearn/estimator.js'

/** Every worker's start: the channel the models decoded once by the pool arrive on (model-channel.ts). */
export interface WorkerInit {
  readonly modelChannel: string
}

/** The beginning of the message of a task for a key no worker can get (the pool answers it 503 at once). */
export const NOT_SERVED = 'model not served: '

/** The key of the model a pool starts with (the only one, unless a repository adds others). */
export const DEFAULT_MODEL_KEY = 'default'

/** Which model a task is for: its key (DEFAULT_MODEL_KEY when absent). */
interface ForModel {
  readonly model?: string
}

export interface StatusTask extends ForModel {}

/** Every prediction, whatever carried it (the spec's routes, V2 over REST or gRPC): one task. */
export interface PredictTask extends ForModel {
  readonly texts: readonly string[]
  /** Also each text's predict_proba and decision_function rows (V2's outputs ask for them). */
  readonly scores: boolean
  /** Time the vectorizer and the classifier and send their times back (a traced call). */
  readonly timed?: boolean
  /**
   * The texts are chunks of this many (a request's batch_size), each under its own prediction
   * timeout: the worker marks each chunk's start in `chunkClock` (docs/performance.md).
   */
  readonly chunkSize?: number
  /** Shared memory of CHUNK_CLOCK's slots, present when the task holds more than one chunk. */
  readonly chunkClock?: Float64Array
}

/**
 * The slots of a task's chunk clock: when its running chunk started (ms since the epoch, as
 * performance.timeOrigin + performance.now() reads it in either thread), and whether the pool
 * marked the request abandoned (the worker starts no further chunk).
 */
export const CHUNK_CLOCK = Object.freeze({ startedAt: 0, abandoned: 1, slots: 2 })

/** Now, as both threads read the chunk clock. */
export function epochNow (): number {
  return performance.timeOrigin + performance.now()
}

/** What a worker measured of a timed task, in milliseconds summed over its texts. */
export interface WorkerPhases {
  readonly vectorizeMs: number
  readonly scoreMs: number
}

/** The CLI's task: whole lines of input, UTF-8, classified and formatted by the worker. */
export interface LinesTask extends ForModel {
  readonly chunk: Uint8Array
  readonly format: LineFormat
}

/**
 * A predict task's answer. Per text, in input order, five columns of one array (one array
 * crosses threads for less than five: 1.2 against 2.6 us a chunk, measured): class index,
 * confidence (docs/http-api.md, "Answers"), seconds spent on it, the terms the analyzer made of it, and
 * how many of those are features; and, when the task asked for scores, the rows of each.
 */
export interface PredictResult {
  readonly columns: Float64Array
  /** `predict_proba` rows of `probaWidth`, or null when not asked or the model has none. */
  readonly proba: Float64Array | null
  /** `decision_function` rows of `decisionWidth` (one value per text for two classes), or null. */
  readonly decision: Float64Array | null
  readonly probaWidth: number
  readonly decisionWidth: number
  /** A timed task's phases. */
  readonly phases?: WorkerPhases
}

export const RESULT_COLUMNS = ['classIndex', 'confidence', 'seconds', 'terms', 'known'] as const

export type ResultColumn = typeof RESULT_COLUMNS[number]

/** Where each column starts in a result of `n` texts (row i of column c at `COLUMN[c] * n + i`): the one layout both threads use. */
export const COLUMN = Object.freeze(Object.fromEntries(RESULT_COLUMNS.map((name, k) => [name, k]))) as Readonly<Record<ResultColumn, number>>

export interface ExplainTask extends ForModel {
  readonly texts: readonly string[]
  readonly topK: number
}

/** What a worker posts when it starts (the pool counts replacements by it). */
export interface WorkerStarted {
  readonly workerStarted: number
}

export interface ModelStatus {
  readonly classifier: string
  readonly vectorizer: string
  readonly steps: readonly string[]
  readonly classes: readonly string[]
  readonly nFeatures: number
  readonly confidence: ConfidenceMethod
  /** Reading, decoding and sharing the model, then every worker creating it. */
  readonly loadMs: number
  /** Bytes of the model's arrays, held once in memory every worker shares. */
  readonly sharedBytes: number
  /** The scikit-learn version that wrote each file, by file. */
  readonly sklearnVersions: Readonly<Record<string, string>>
  /** Why /explain is not defined for this model; undefined when it is. */
  readonly explainRefusal: string | undefined
  readonly notes: readonly string[]
  /** What the model's scores hold: whether it has predict_proba, and decision_function's width (0: none). */
  readonly outputs: ModelOutputs
}

export interface ModelOutputs {
  readonly proba: boolean
  readonly decisionWidth: number
}

/** What a worker holds of the model: typed-array bytes in shared memory and of its own. */
export interface WorkerMemory {
  readonly sharedBytes: number
  readonly ownBytes: number
}

export type WorkerStatus =
  | { readonly ok: true, readonly memory: WorkerMemory, readonly explainRefusal: string | null, readonly outputs: ModelOutputs }
  | { readonly ok: false, readonly code: ErrorCode, readonly message: string }
