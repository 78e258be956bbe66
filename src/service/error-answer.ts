/**
 * The one place any error becomes an answer, for every transport: its code from the table
 * (src/errors.ts), the HTTP status of the spec's routes and of V2's, the gRPC status, the
 * message the client may read, and the fields an answer carries beside it (Retry-After,
 * WWW-Authenticate, RateLimit...: HTTP headers, gRPC trailing metadata). A transport only
 * writes it in its own form. Anything unexpected is ERR_INTERNAL under a fresh error id, which
 * the transport logs with the stack; no stack or message of it reaches the client.
 */
import { randomUUID } from 'node:crypto'
import { ERROR_CODES, ServiceError, type ErrorCode, type GrpcStatus } from '../errors.js'

export interface ErrorAnswer {
  readonly code: ErrorCode
  /** The spec's routes' status. */
  readonly httpStatus: number
  /** V2 REST's status: the protocol has no 422, so a body that fails validation is a 400. */
  readonly v2Status: number
  readonly grpcStatus: GrpcStatus
  /** What the client reads: `{"detail"}`, `{"error"}`, or the gRPC status's details. */
  readonly message: string
  /** Fields by lowercase name, sent as headers or trailing metadata. */
  readonly fields: Readonly<Record<string, string>>
  /** FastAPI's list for a 422 of the spec's routes (`{"detail": [...]}`), when the error has one. */
  readonly issues: readonly unknown[] | undefined
  /** An unexpected failure's id: the client is given it, the transport logs it with the stack. */
  readonly errorId: string | undefined
}

/** Errors that carry the fields of their answer (an access refusal's headers). */
interface WithFields { readonly fields?: Readonly<Record<string, string>> }
/** Errors that carry FastAPI's 422 list. */
interface WithIssues { readonly issues?: readonly unknown[] }

const V2_STATUS: Partial<Record<number, number>> = { 422: 400 }

/** `err` as the answer every transport gives it. */
export function answerFor (err: unknown): ErrorAnswer {
  if (err instanceof ServiceError && err.code !== 'ERR_INTERNAL') {
    return {
      code: err.code,
      httpStatus: err.statusCode,
      v2Status: V2_STATUS[err.statusCode] ?? err.statusCode,
      grpcStatus: err.grpcStatus,
      message: err.message,
      fields: (err as WithFields).fields ?? {},
      issues: (err as WithIssues).issues,
      errorId: undefined
    }
  }
  // Errors Express raises itself with a client status (a malformed URL, say).
  const status = (err as { status?: unknown } | null)?.status
  if (!(err instanceof ServiceError) && typeof status === 'number' && status >= 400 && status < 500) {
    return { code: 'ERR_BAD_REQUEST', httpStatus: status, v2Status: status, grpcStatus: ERROR_CODES.ERR_BAD_REQUEST.grpc, message: (err as Error).message, fields: {}, issues: undefined, errorId: undefined }
  }
  return { code: 'ERR_INTERNAL', httpStatus: 500, v2Status: 500, grpcStatus: ERROR_CODES.ERR_INTERNAL.grpc, message: ERROR_CODES.ERR_INTERNAL.message, fields: {}, issues: undefined, errorId: randomUUID() }
}

/** What a log line says of an unexpected failure: its stack and its cause's. */
export function internalDetails (err: unknown): { stack: string, cause: string | undefined } {
  const cause = (err as { cause?: unknown } | null)?.cause
  return {
    stack: (err as Error | null)?.stack ?? String(err),
    cause: cause instanceof Error ? cause.stack : cause === undefined ? undefined : String(cause)
  }
}
