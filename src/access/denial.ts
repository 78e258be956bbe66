/**
 * A refused decision as the ServiceError both transports turn into their answer (HTTP 401,
 * 403, 429, 503; gRPC UNAUTHENTICATED, PERMISSION_DENIED, RESOURCE_EXHAUSTED, UNAVAILABLE).
 */
import { ServiceError, type ErrorCode } from '../errors.js'
import type { Decision } from './access-control.js'

const CODES: Record<401 | 403 | 429 | 503, ErrorCode> = { 401: 'ERR_UNAUTHORIZED', 403: 'ERR_FORBIDDEN', 429: 'ERR_RATE_LIMITED', 503: 'ERR_RATE_LIMIT_STORE' }

export function denialError (decision: Decision & { ok: false }): ServiceError {
  return new ServiceError(CODES[decision.status], decision.detail)
}
