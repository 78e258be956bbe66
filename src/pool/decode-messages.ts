/** What crosses between the pool and the thread that decodes the model (workers/decode.ts). */
import type { ErrorCode } from '../errors.js'
import type { AnyModelState, EnsembleSpec } from '../model/ensemble.js'
import type { AppSource } from '../model/served-model.js'
import type { LabelSource } from '../settings/model-settings.js'
import type { ModelPaths } from '../sklearn/load-model.js'
import type { ModelInfo } from '../sklearn/predictor.js'

export interface DecodeRequest {
  readonly paths: ModelPaths
  /** The model's settings file, or null. */
  readonly settingsFile: string | null
  /** Label names that replace the settings' (the CLI's --labels). */
  readonly labels: LabelSource | null
  /** An ensemble's members and rule (its settings' `ensemble`), or null for a single model. */
  readonly ensemble: EnsembleSpec | null
  /** MODEL_CACHE_DIR: where compiled models are looked up and written, or null (no cache). */
  readonly cacheDir: string | null
}

export type DecodeReply =
  /**
   * `app`: the settings and functions module the decoding read, which the workers then build
   * from; `compiling`: the thread goes on to write the model's cache entry.
   */
  | { readonly ok: true, readonly state: AnyModelState, readonly bytes: number, readonly info: ModelInfo, readonly notes: readonly string[], readonly app: AppSource | null, readonly compiling: boolean }
  | { readonly ok: false, readonly code: ErrorCode, readonly detail: string, readonly file: string | undefined, readonly offset: number | undefined, readonly subject: boolean }
