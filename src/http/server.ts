/**
 * The HTTP server around the app, with the request timeout of DECISIONS.md 13: a request
 * not received in full within REQUEST_TIMEOUT_MS (a slow-loris client) is cut off, checked
 * every second rather than Node's default 30.
 */
import http from 'node:http'
import type { Express } from 'express'
import type { Config } from '../config.js'

export function createServer (app: Express, config: Pick<Config, 'requestTimeoutMs'>): http.Server {
  return http.createServer({
    requestTimeout: config.requestTimeoutMs,
    headersTimeout: Math.min(config.requestTimeoutMs, 60_000),
    connectionsCheckingInterval: Math.min(1000, config.requestTimeoutMs)
  }, app)
}
