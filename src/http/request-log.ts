/**
 * One log line per request (pino-http): method, path, status, duration, the req-<n> id, the
 * texts it carried, the client's address, and an incoming X-Request-Id or W3C traceparent
 * beside our id. Never a text. 5xx at error, 503 at warn, the rest at info.
 */
import type { RequestHandler, Request, Response } from 'express'
import type { Logger as Pino } from 'pino'
import { pinoHttp } from 'pino-http'

/** A client's header, cut short: it goes into a log line. */
function header (req: Request, name: string): string | undefined {
  const value = req.headers[name]
  return typeof value === 'string' ? value.slice(0, 200) : undefined
}

function requestFields (req: Request, res: Response): Record<string, unknown> {
  return {
    method: req.method,
    path: req.path,
    status: res.statusCode,
    duration_ms: Math.round((performance.now() - (res.locals.startedAt as number)) * 1000) / 1000,
    texts: res.locals.texts as number | undefined,
    client: req.socket.remoteAddress,
    incoming_request_id: header(req, 'x-request-id'),
    traceparent: header(req, 'traceparent'),
    error_id: res.locals.errorId as string | undefined
  }
}

export function requestLog (logger: Pino): RequestHandler {
  return pinoHttp({
    logger,
    genReqId: (_req, res) => (res as Response).locals.requestId as string,
    customAttributeKeys: { reqId: 'request_id' },
    quietReqLogger: true,
    quietResLogger: true,
    customLogLevel: (_req, res, err) => res.statusCode === 503 ? 'warn' : res.statusCode >= 500 || err !== undefined ? 'error' : 'info',
    customSuccessMessage: () => 'request',
    customErrorMessage: () => 'request',
    customSuccessObject: (req, res) => requestFields(req as Request, res as Response),
    customErrorObject: (req, res) => requestFields(req as Request, res as Response)
  }) as unknown as RequestHandler
}
