/**
 * The one error type of the service and its code table.
 *
 * Every failure that input, a model file, configuration or load can cause is a
 * `ServiceError` with a code from `ERROR_CODES`; "cannot happen" invariants use
 * `node:assert` instead. The code type is derived from the table, so a typo is a
 * compile error.
 */

/**
 * gRPC's status codes (the numbers of grpc-js's `status`), so the table can name a code's
 * gRPC status without the error module loading a transport.
 */
export const GRPC_STATUS = Object.freeze({
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16
})

export type GrpcStatus = typeof GRPC_STATUS[keyof typeof GRPC_STATUS]

interface CodeSpec {
  /** The HTTP status, as the spec's routes answer it (V2 REST answers 422 as 400: the protocol has no 422). */
  readonly statusCode: number
  /** The gRPC status the same failure is answered with. */
  readonly grpc: GrpcStatus
  readonly message: string
}

const { INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND, PERMISSION_DENIED, RESOURCE_EXHAUSTED, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, UNAUTHENTICATED } = GRPC_STATUS

/**
 * Every failure's answer on every transport: the HTTP status (the body is the spec's
 * `{"detail"}` or V2's `{"error"}`, by route), the gRPC status, and the default message.
 */
export const ERROR_CODES = Object.freeze({
  ERR_PICKLE_TRUNCATED: { statusCode: 500, grpc: INTERNAL, message: 'pickle data ends early' },
  ERR_PICKLE_UNKNOWN_OPCODE: { statusCode: 500, grpc: INTERNAL, message: 'unknown pickle opcode' },
  ERR_PICKLE_GLOBAL_NOT_ALLOWED: { statusCode: 500, grpc: INTERNAL, message: 'unsupported object' },
  ERR_PICKLE_INVALID: { statusCode: 500, grpc: INTERNAL, message: 'malformed pickle data' },
  ERR_PICKLE_LIMIT: { statusCode: 500, grpc: INTERNAL, message: 'pickle exceeds a safety limit' },
  ERR_PICKLE_UNSUPPORTED: { statusCode: 500, grpc: INTERNAL, message: 'unsupported pickle feature' },
  ERR_MODEL_READ: { statusCode: 500, grpc: INTERNAL, message: 'model file cannot be read' },
  ERR_MODEL_COMPRESSION: { statusCode: 500, grpc: INTERNAL, message: 'compressed model file cannot be read' },
  ERR_MODEL_SHAPE: { statusCode: 500, grpc: INTERNAL, message: 'model arrays have inconsistent shapes' },
  ERR_MODEL_UNSUPPORTED: { statusCode: 500, grpc: INTERNAL, message: 'model is not supported' },
  ERR_PATTERN_UNSUPPORTED: { statusCode: 500, grpc: INTERNAL, message: 'regular expression cannot be translated' },
  ERR_CONFIG_INVALID: { statusCode: 500, grpc: INTERNAL, message: 'invalid configuration' },
  ERR_BODY_TOO_LARGE: { statusCode: 413, grpc: RESOURCE_EXHAUSTED, message: 'request body exceeds 1048576 bytes' },
  ERR_BODY_NOT_UTF8: { statusCode: 400, grpc: INVALID_ARGUMENT, message: 'request body is not valid UTF-8' },
  ERR_BODY_TIMEOUT: { statusCode: 408, grpc: DEADLINE_EXCEEDED, message: 'request body was not received in full in time' },
  ERR_BODY_NOT_JSON: { statusCode: 400, grpc: INVALID_ARGUMENT, message: 'request body is not valid JSON' },
  ERR_CONTENT_TYPE: { statusCode: 400, grpc: INVALID_ARGUMENT, message: 'request body must be application/json' },
  ERR_BAD_QUERY: { statusCode: 400, grpc: INVALID_ARGUMENT, message: 'invalid query parameter' },
  ERR_BAD_REQUEST: { statusCode: 400, grpc: INVALID_ARGUMENT, message: 'malformed HTTP request' },
  ERR_VALIDATION: { statusCode: 422, grpc: INVALID_ARGUMENT, message: 'request failed validation' },
  ERR_NOT_EXPLAINABLE: { statusCode: 422, grpc: INVALID_ARGUMENT, message: 'explanations are not defined for this model' },
  ERR_NOT_FOUND: { statusCode: 404, grpc: NOT_FOUND, message: 'not found' },
  ERR_UNAUTHORIZED: { statusCode: 401, grpc: UNAUTHENTICATED, message: 'an API key is required' },
  ERR_FORBIDDEN: { statusCode: 403, grpc: PERMISSION_DENIED, message: 'the API key lacks the scope this route needs' },
  ERR_RATE_LIMITED: { statusCode: 429, grpc: RESOURCE_EXHAUSTED, message: 'rate limit exceeded' },
  ERR_RATE_LIMIT_STORE: { statusCode: 503, grpc: UNAVAILABLE, message: 'rate limits cannot be checked right now' },
  ERR_METHOD_NOT_ALLOWED: { statusCode: 405, grpc: UNIMPLEMENTED, message: 'method not allowed' },
  ERR_QUEUE_FULL: { statusCode: 503, grpc: UNAVAILABLE, message: 'server is at capacity, retry shortly' },
  ERR_PREDICTION_TIMEOUT: { statusCode: 503, grpc: UNAVAILABLE, message: 'prediction timed out' },
  ERR_MODEL_NOT_READY: { statusCode: 503, grpc: UNAVAILABLE, message: 'model is not ready' },
  ERR_WORKER_UNAVAILABLE: { statusCode: 503, grpc: UNAVAILABLE, message: 'no worker is available' },
  ERR_METRICS_FAILED: { statusCode: 503, grpc: UNAVAILABLE, message: 'metrics collection failed' },
  ERR_REQUEST_TIMEOUT: { statusCode: 503, grpc: UNAVAILABLE, message: 'request timed out' },
  ERR_INTERNAL: { statusCode: 500, grpc: INTERNAL, message: 'Internal server error' },
  ERR_V2_INPUT: { statusCode: 400, grpc: INVALID_ARGUMENT, message: 'the inference request is not one the protocol allows' },
  ERR_UNIMPLEMENTED: { statusCode: 501, grpc: UNIMPLEMENTED, message: 'not implemented' },
  ERR_CONTENT_ENCODING: { statusCode: 415, grpc: UNIMPLEMENTED, message: 'request body has a content coding this service does not decode' },
  ERR_QUEUE_TIMEOUT: { statusCode: 503, grpc: UNAVAILABLE, message: 'no worker was free in time, retry shortly' }
} satisfies Record<string, CodeSpec>)

export type ErrorCode = keyof typeof ERROR_CODES

export interface ServiceErrorOptions {
  /** The file the error concerns, e.g. a model path. */
  readonly file?: string
  /** Byte offset in that file (or in its decompressed stream) where the problem was found. */
  readonly offset?: number
  /** The file is what the detail says of it ("no such file: FILE"), not where it was found ("... in FILE"). */
  readonly subject?: boolean
  readonly cause?: unknown
}

/**
 * An error with a stable `code`, an HTTP `statusCode` and, for file errors, the
 * file and byte offset. The message reads "<what> in <file> (byte <offset>)", or "<what>: <file>"
 * when the file is its subject (no such file).
 */
export class ServiceError extends Error {
  readonly code: ErrorCode
  readonly statusCode: number
  /** The gRPC status of the same failure (ERROR_CODES). */
  readonly grpcStatus: GrpcStatus
  /** The message without file and offset, so a caller can re-attach them. */
  readonly detail: string
  readonly file: string | undefined
  readonly offset: number | undefined
  /** Whether the file is the detail's subject ("no such file: FILE"). */
  readonly subject: boolean

  constructor (code: ErrorCode, detail?: string, options: ServiceErrorOptions = {}) {
    const spec = ERROR_CODES[code]
    const text = detail ?? spec.message
    super(formatMessage(text, options.file, options.offset, options.subject === true), options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'ServiceError'
    this.code = code
    this.statusCode = spec.statusCode
    this.grpcStatus = spec.grpc
    this.detail = text
    this.file = options.file
    this.offset = options.offset
    this.subject = options.subject === true
  }

  /** The same error, naming `file` (keeps the first file named when nested). */
  withFile (file: string): ServiceError {
    if (this.file !== undefined) return this
    return new ServiceError(this.code, this.detail, { file, offset: this.offset, subject: this.subject, cause: this.cause })
  }
}

function formatMessage (text: string, file: string | undefined, offset: number | undefined, subject: boolean): string {
  let message = text
  if (file !== undefined) message += subject ? `: ${file}` : ` in ${file}`
  if (offset !== undefined) message += ` (byte ${offset})`
  return message
}
