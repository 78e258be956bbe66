/**
 * The HTTP server around the app, with the request timeout of docs/http-api.md, "Limits and timeouts": a request
 * not received in full within REQUEST_TIMEOUT_MS (a slow-loris client) is cut off, checked
 * every second rather than Node's default 30. A request Node's HTTP parser refuses (a
 * malformed request line, header or chunked framing, headers not in by the deadline) gets
 * the service's JSON error, with X-API-Version and an X-Request-Id, logged and counted,
 * rather than Node's bare 400, and its connection is closed.
 */
import http from 'node:http'
import type { Socket } from 'node:net'
import type { Express } from 'express'
import type { Config } from '../config.js'
import type { EarlyAnswers } from './app.js'
import { API_VERSION } from '../service/context.js'

/** The status, reason and detail Node's parser error `code` gets. */
function parserError (code: string | undefined, message: string): [number, string, string] {
  if (code === 'HPE_HEADER_OVERFLOW') return [431, 'Request Header Fields Too Large', 'request headers are too large']
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'Request Timeout', 'request was not received in full in time']
  return [400, 'Bad Request', `malformed HTTP request: ${message}`]
}

export function createServer (app: Express, config: Pick<Config, 'requestTimeoutMs'>): http.Server {
  const server = http.createServer({
    // The app answers a body not in by REQUEST_TIMEOUT_MS itself (body.ts: 408 with its
    // headers, logged and counted); Node's own cut comes a second later, for requests no
    // route reads.
    requestTimeout: config.requestTimeoutMs + 1000,
    headersTimeout: Math.min(config.requestTimeoutMs, 60_000),
    connectionsCheckingInterval: Math.min(1000, config.requestTimeoutMs)
  }, app)
  const early = app.locals.earlyAnswers as EarlyAnswers | undefined
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    // As Node does: answer only on a connection nothing has been written to yet.
    if (err.code !== 'ECONNRESET' && socket.writable && socket.bytesWritten === 0) {
      const startedAt = performance.now()
      const [status, reason, detail] = parserError(err.code, err.message)
      const body = JSON.stringify({ detail })
      const requestId = early?.nextRequestId()
      socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-API-Version: ${API_VERSION}\r\n${requestId === undefined ? '' : `X-Request-Id: ${requestId}\r\n`}Connection: close\r\n\r\n${body}`)
      if (requestId !== undefined) early!.record(requestId, status, startedAt, socket.remoteAddress)
    }
    // After what was written has gone.
    socket.destroySoon()
  })
  return server
}
