/** What crosses between the pool and the thread that decodes the model (workers/decode.ts). */
import type { ErrorCode } from '../errors.js'
import type { ModelPaths, ModelState } from '../sklearn/load-model.js'
import type { ModelInfo } from '../sklearn/predictor.js'

export interface DecodeRequest {
  readonly paths: ModelPaths
}

export type DecodeReply =
  | { readonly ok: true, readonly state: ModelState, readonly bytes: number, readonly info: ModelInfo, readonly notes: readonly string[] }
  | { readonly ok: false, readonly code: ErrorCode, readonly detail: string, readonly file: string | undefined, readonly offset: number | undefined }
