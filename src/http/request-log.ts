/**
 * One log line per request, written with pino when the response is done: method, path,
 * status, duration, the req-<n> id, the texts it carried, the client's address, an
 * incoming X-Request-Id or W3C traceparent beside our id, and a traced request's trace_id
 * and span_id. Never a text. 5xx at error, 503 at
 * warn, the rest at info. The status is the one sent, or "aborted" when the client went away
 * before the answer was sent whole (docs/http-api.md, "Limits and timeouts").
 *
 * Not pino-http: it makes two child loggers per request and serializes the request into one
 * of them whether or not the line is written, which measured 20% of the front thread's time
 * at 5,600 requests/s (and more garbage); this is one listener and, when the level allows,
 * one pino call.
 */
import type { Request, Response } from 'express'
import type { Logger as Pino } from 'pino'
import type { RequestTrace } from '../tracing/tracing.js'

/** A sent status, or 'aborted' when nothing was sent whole. */
export type SentStatus = number | 'aborted'

export interface RequestEntry {
  readonly request_id: string
  readonly method?: string
  readonly path?: string
  readonly status: SentStatus
  /** The model that answered (its name), for the routes that serve one. */
  readonly model?: string
  /** The id of the API key the request carried (never the secret), with keys on. */
  readonly key?: string
  readonly duration_ms: number
  readonly texts?: number
  readonly client?: string
  readonly incoming_request_id?: string
  readonly traceparent?: string
  /** The trace and span of this request, when it is traced (src/tracing/): logs and traces join on them. */
  readonly trace_id?: string
  readonly span_id?: string
  readonly error_id?: string
}

/** The status a finished response was sent with, or 'aborted' when its client left first. */
export function sentStatus (res: Response): SentStatus {
  return res.writableFinished ? res.statusCode : 'aborted'
}

/** A client's header, cut short: it goes into a log line. */
function header (req: Request, name: string): string | undefined {
  const value = req.headers[name]
  return typeof value === 'string' ? value.slice(0, 200) : undefined
}

/** The log entry of a request whose response is done. */
export function requestEntry (req: Request, res: Response, status: SentStatus): RequestEntry {
  const trace = res.locals.trace as RequestTrace | undefined
  return {
    request_id: res.locals.requestId as string,
    method: req.method,
    path: req.baseUrl + req.path,
    status,
    model: res.locals.model as string | undefined,
    key: res.locals.keyId as string | undefined,
    duration_ms: Math.round((performance.now() - (res.locals.startedAt as number)) * 1000) / 1000,
    texts: res.locals.texts as number | undefined,
    client: req.socket.remoteAddress,
    incoming_request_id: header(req, 'x-request-id'),
    traceparent: header(req, 'traceparent'),
    trace_id: trace?.traceId,
    span_id: trace?.spanId,
    error_id: res.locals.errorId as string | undefined
  }
}

/** Logs a finished request at the level its status calls for; the entry is built only when the level is on. */
export function logRequest (logger: Pino, status: SentStatus, entry: () => RequestEntry): void {
  const level = status === 503 ? 'warn' : typeof status === 'number' && status >= 500 ? 'error' : 'info'
  if (!logger.isLevelEnabled(level)) return
  logger[level](entry(), 'request')
}
