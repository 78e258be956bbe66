/**
 * Errors as gRPC statuses, the REST V2 table's gRPC column: bad input INVALID_ARGUMENT, an
 * unknown model NOT_FOUND, no or an unknown key UNAUTHENTICATED, a key without the scope
 * PERMISSION_DENIED, a limit passed RESOURCE_EXHAUSTED, a model not ready, a full queue or a timeout UNAVAILABLE, anything
 * else INTERNAL (logged with an id the client is given, as REST's 500).
 */
import { Metadata, status, type ServiceError as GrpcError } from '@grpc/grpc-js'
import { randomUUID } from 'node:crypto'
import { AccessDenied } from '../access/denial.js'
import { ServiceError } from '../errors.js'
import type { Logger } from '../logger.js'
import { V2InputError } from '../protocol/v2/infer.js'

/** A failure that is a gRPC status of its own, with no HTTP twin (UNIMPLEMENTED, RESOURCE_EXHAUSTED). */
export class GrpcStatusError extends Error {
  override readonly name = 'GrpcStatusError'
  constructor (readonly code: status, message: string) {
    super(message)
  }
}

/** The status a ServiceError's HTTP status stands for. */
function codeOf (err: ServiceError): status {
  if (err.code === 'ERR_NOT_FOUND') return status.NOT_FOUND
  if (err.code === 'ERR_UNAUTHORIZED') return status.UNAUTHENTICATED
  if (err.code === 'ERR_FORBIDDEN') return status.PERMISSION_DENIED
  if (err.code === 'ERR_RATE_LIMITED') return status.RESOURCE_EXHAUSTED
  if (err.statusCode === 503) return status.UNAVAILABLE
  if (err.statusCode === 400 || err.statusCode === 422) return status.INVALID_ARGUMENT
  return status.INTERNAL
}

/** `err` as the status sent to the client; an unexpected one is logged with the stack under a fresh id. */
export function toGrpcError (err: unknown, logger: Logger, method: string): Partial<GrpcError> {
  if (err instanceof V2InputError) return { code: status.INVALID_ARGUMENT, details: err.message }
  if (err instanceof GrpcStatusError) return { code: err.code, details: err.message }
  if (err instanceof AccessDenied) {
    // The HTTP answer's fields (retry-after, ratelimit, ...) as trailing metadata.
    const metadata = new Metadata()
    for (const [name, value] of Object.entries(err.fields)) metadata.set(name, value)
    return { code: codeOf(err), details: err.message, metadata }
  }
  if (err instanceof ServiceError && codeOf(err) !== status.INTERNAL) return { code: codeOf(err), details: err.message }
  const errorId = randomUUID()
  logger.error('internal server error', { error_id: errorId, grpc_method: method, stack: (err as Error | null)?.stack ?? String(err) })
  return { code: status.INTERNAL, details: `Internal server error (error_id ${errorId})` }
}
