/**
 * What crosses the thread boundary between the pool and its workers. Errors do not
 * survive the hop with their class and code (STYLE.md 3), so a worker reports a model
 * that failed to load as data.
 */
import type { ErrorCode } from '../errors.js'
import type { ConfidenceMethod } from '../sklearn/estimator.js'

export interface WorkerInit {
  readonly modelPath: string
  readonly vectorizerPaths: readonly string[]
}

export interface ClassifyTask {
  readonly texts: readonly string[]
}

/** Per text, in input order: class index, confidence, seconds spent on it. */
export interface ClassifyResult {
  readonly classIndex: Int32Array
  readonly confidence: Float64Array
  readonly seconds: Float64Array
}

export interface ModelStatus {
  readonly classifier: string
  readonly vectorizer: string
  readonly classes: readonly string[]
  readonly nFeatures: number
  readonly confidence: ConfidenceMethod
  readonly loadMs: number
  readonly notes: readonly string[]
}

export type WorkerStatus =
  | { readonly ok: true, readonly model: ModelStatus }
  | { readonly ok: false, readonly code: ErrorCode, readonly message: string }
