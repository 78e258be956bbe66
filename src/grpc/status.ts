/**
 * Errors as gRPC statuses: the status column of the one error table (src/errors.ts), through
 * the one function that turns any error into an answer (src/service/error-answer.ts). An
 * access refusal's fields (retry-after, ratelimit, ...) go as trailing metadata; anything
 * unexpected is INTERNAL, logged with an id the client is given, as REST's 500.
 */
import { Metadata, type ServiceError as GrpcError } from '@grpc/grpc-js'
import type { Logger } from '../logger.js'
import { answerFor } from '../service/error-answer.js'

/** `err` as the status sent to the client; an unexpected one is logged with the stack under a fresh id. */
export function toGrpcError (err: unknown, logger: Logger, method: string): Partial<GrpcError> {
  const answer = answerFor(err)
  if (answer.errorId !== undefined) {
    logger.error('internal server error', { error_id: answer.errorId, grpc_method: method, stack: (err as Error | null)?.stack ?? String(err) })
    return { code: answer.grpcStatus, details: `${answer.message} (error_id ${answer.errorId})` }
  }
  const names = Object.keys(answer.fields)
  if (names.length === 0) return { code: answer.grpcStatus, details: answer.message }
  const metadata = new Metadata()
  for (const name of names) metadata.set(name, answer.fields[name]!)
  return { code: answer.grpcStatus, details: answer.message, metadata }
}
