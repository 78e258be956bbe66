/**
 * The one Express error handler, for the spec's routes and V2's alike: the answer comes from
 * the one error table (src/service/error-answer.ts), and only its form differs: the spec's
 * `{"detail": "..."}` (a 422's FastAPI list, a 500's `error_id`; docs/http-api.md, "Errors") or V2's
 * `{"error": "..."}` under exactly `application/json`. A 503 carries Retry-After; an
 * unexpected failure is logged with its stack under the id the client is given.
 */
import type { ErrorRequestHandler, Response } from 'express'
import type { Logger } from '../logger.js'
import { answerFor, internalDetails, type ErrorAnswer } from '../service/error-answer.js'
import type { PrometheusMetrics } from '../service/prometheus.js'
import { sendV2 } from './send.js'

/** Which body an error's answer has: the spec's routes' or the Open Inference Protocol's. */
export type ErrorForm = 'detail' | 'v2'

/** The answer's fields as headers, unless the route set one already (a merged RateLimit, say). */
function setFields (res: Response, answer: ErrorAnswer, status: number): void {
  for (const [name, value] of Object.entries(answer.fields)) if (!res.hasHeader(name)) res.setHeader(name, value)
  if (status === 503 && !res.hasHeader('Retry-After')) res.setHeader('Retry-After', '1')
}

export function createErrorHandler (logger: Logger, prometheus: PrometheusMetrics | undefined, form: ErrorForm = 'detail'): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    if (res.headersSent) {
      req.socket.destroy()
      return
    }
    const answer = answerFor(err)
    const status = form === 'v2' ? answer.v2Status : answer.httpStatus
    // The request's span records it (src/tracing/).
    res.locals.errorCode = answer.code
    if (answer.errorId !== undefined) {
      res.locals.errorId = answer.errorId
      logger.error('internal server error', { error_id: answer.errorId, request_id: res.locals.requestId, ...internalDetails(err) })
    } else if (status === 503) {
      prometheus?.rejected(answer.code)
      if (answer.code === 'ERR_PREDICTION_TIMEOUT' || answer.code === 'ERR_REQUEST_TIMEOUT' || answer.code === 'ERR_QUEUE_TIMEOUT') logger.warn('timeout', { request_id: res.locals.requestId, cause: answer.code, detail: answer.message })
    }
    setFields(res, answer, status)
    if (form === 'v2') {
      sendV2(res, status, { error: answer.errorId === undefined ? answer.message : `${answer.message} (error_id ${answer.errorId})` })
      return
    }
    if (answer.errorId !== undefined) res.status(500).json({ detail: answer.message, error_id: answer.errorId })
    else res.status(status).json({ detail: status === 422 && answer.issues !== undefined ? answer.issues : answer.message })
  }
}
