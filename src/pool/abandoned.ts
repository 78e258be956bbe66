/**
 * A request its caller gave up on (the client went away, REQUEST_TIMEOUT_MS passed, a gRPC
 * cancel or deadline): the pool stops its work where it has not started (docs/operations.md).
 */
import { ServiceError } from '../errors.js'

/** The error a request abandoned through `signal` ends with: the signal's own reason when it is the answer (REQUEST_TIMEOUT_MS's 503), else a 503 saying the caller left. */
export function abandonment (signal: AbortSignal): ServiceError {
  const reason: unknown = signal.reason
  return reason instanceof ServiceError ? reason : new ServiceError('ERR_REQUEST_TIMEOUT', 'the caller went away before its answer')
}
