/**
 * The one place errors become responses (DECISIONS.md 6-11): 422 with FastAPI's detail
 * list, 4xx and 503 with `{"detail": "..."}` (503 with Retry-After), and anything else a
 * 500 whose `error_id` is logged with the stack; no stack or message reaches the client.
 */
import { randomUUID } from 'node:crypto'
import type { ErrorRequestHandler } from 'express'
import { ServiceError } from '../errors.js'
import type { Logger } from '../logger.js'
import type { PrometheusMetrics } from '../service/prometheus.js'
import { ValidationError } from './validate.js'

export function createErrorHandler (logger: Logger, prometheus: PrometheusMetrics | undefined): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    if (res.headersSent) {
      req.socket.destroy()
      return
    }
    if (err instanceof ValidationError) {
      res.status(422).json({ detail: err.issues })
      return
    }
    if (err instanceof ServiceError && err.code !== 'ERR_INTERNAL') {
      if (err.statusCode === 503) {
        if (!res.hasHeader('Retry-After')) res.setHeader('Retry-After', '1')
        prometheus?.rejected(err.code)
        if (err.code === 'ERR_PREDICTION_TIMEOUT' || err.code === 'ERR_REQUEST_TIMEOUT') logger.warn('timeout', { request_id: res.locals.requestId, cause: err.code, detail: err.message })
      }
      res.status(err.statusCode).json({ detail: err.message })
      return
    }
    // Errors Express raises itself with a client status (a malformed URL, say).
    const status = (err as { status?: unknown } | null)?.status
    if (!(err instanceof ServiceError) && typeof status === 'number' && status >= 400 && status < 500) {
      res.status(status).json({ detail: (err as Error).message })
      return
    }
    const errorId = randomUUID()
    res.locals.errorId = errorId
    const cause = (err as { cause?: unknown } | null)?.cause
    logger.error('internal server error', {
      error_id: errorId,
      request_id: res.locals.requestId,
      stack: (err as Error | null)?.stack ?? String(err),
      cause: cause instanceof Error ? cause.stack : cause === undefined ? undefined : String(cause)
    })
    res.status(500).json({ detail: 'Internal server error', error_id: errorId })
  }
}
