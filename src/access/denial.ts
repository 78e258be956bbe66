/**
 * A refused decision as the ServiceError both transports turn into their answer (HTTP 401,
 * 403, 429, 503; gRPC UNAUTHENTICATED, PERMISSION_DENIED, RESOURCE_EXHAUSTED, UNAVAILABLE),
 * carrying the fields the answer needs beside its message: HTTP sends them as headers, gRPC
 * as trailing metadata under the same (lowercase) names.
 */
import { ServiceError, type ErrorCode } from '../errors.js'
import type { Decision } from './access-control.js'
import { stateField } from './rate-limits.js'

const CODES: Record<401 | 403 | 429 | 503, ErrorCode> = { 401: 'ERR_UNAUTHORIZED', 403: 'ERR_FORBIDDEN', 429: 'ERR_RATE_LIMITED', 503: 'ERR_RATE_LIMIT_STORE' }

export const REALM = 'Bearer realm="tfidf-serve"'

export class AccessDenied extends ServiceError {
  /** The answer's fields by lowercase name: www-authenticate, retry-after, ratelimit-policy, ratelimit. */
  readonly fields: Readonly<Record<string, string>>

  constructor (decision: Decision & { ok: false }) {
    super(CODES[decision.status], decision.detail)
    const fields: Record<string, string> = {}
    if (decision.status === 401) fields['www-authenticate'] = REALM
    if (decision.retryAfterSeconds !== undefined) fields['retry-after'] = String(decision.retryAfterSeconds)
    if (decision.policy !== undefined && decision.policy !== '') fields['ratelimit-policy'] = decision.policy
    if (decision.states !== undefined && decision.states.length > 0) fields.ratelimit = stateField(decision.states)
    this.fields = fields
  }
}
