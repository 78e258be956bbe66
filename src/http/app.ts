/**
 * The Express 5 app: headers every response carries (X-API-Version, X-Request-Id, helmet,
 * CORS open to all origins), a log line and Prometheus counts per request, the routes of
 * docs/http-api.md (exact and case-sensitive) with /explain, /openapi.json and /docs, 404 and 405,
 * and the error handler. `createApp` builds a fresh app for each caller, which supertest
 * takes directly.
 */
import cors from 'cors'
import express, { type Express, type Request, type RequestHandler, type Response } from 'express'
import helmet from 'helmet'
import type { Config } from '../config.js'
import type { WebhookSender } from '../access/webhooks.js'
import { ServiceError } from '../errors.js'
import type { ModelRepository } from '../repository/model-repository.js'
import type { Logger } from '../logger.js'
import type { ClassifierPool } from '../pool/classifier-pool.js'
import { requireKey } from './access.js'
import { readJsonBody, readRawBody } from './body.js'
import type { AppContext } from './context.js'
import { API_VERSION, type ServiceContext } from '../service/context.js'
import { createService } from '../service/create-service.js'
import type { PrometheusMetrics } from '../service/prometheus.js'
import { createErrorHandler } from './error-handler.js'
import { logRequest, requestEntry, sentStatus, type SentStatus } from './request-log.js'
import { createDocsHandlers } from './routes/docs.js'
import { createExplainHandler } from './routes/explain.js'
import { createPredictHandlers, namedModel } from './routes/predict.js'
import { createModelsHandler } from './routes/models.js'
import { createV2Handlers } from './routes/v2.js'
import { allowedMethods, expressPath, isV2, ROUTES, scopeOf, V2_PREFIX, type HandlerName } from './route-table.js'
import { createHealthHandler, createInfoHandler, createMetricsHandler } from './routes/status.js'
import { createBodyValidator } from './validate.js'

export interface AppOptions {
  readonly config: Readonly<Config>
  readonly pool: ClassifierPool
  readonly logger?: Logger
  /** True once the server is shutting down: responses then close their connection. */
  readonly isStopping?: () => boolean
  /** The models served; by default the pool's one model, named 'default'. */
  readonly repository?: ModelRepository
  /** A context from createContext, to share with the gRPC server; by default a new one. */
  readonly context?: ServiceContext
  /** Where events go (a key's quota used up); none: not sent. */
  readonly webhooks?: WebhookSender
}

function methodNotAllowed (allowed: string): RequestHandler {
  return (_req, res) => {
    res.setHeader('Allow', allowed)
    throw new ServiceError('ERR_METHOD_NOT_ALLOWED', `method not allowed; use ${allowed}`)
  }
}

/**
 * helmet's headers, read once from helmet itself: with its defaults every one is a constant,
 * so each response sets them from this list rather than through a dozen middleware layers
 * (what helmet does per request, measured at 3% of the front thread under single texts).
 */
export function helmetHeaders (): ReadonlyArray<readonly [string, string]> {
  const headers: Array<[string, string]> = []
  const res = { setHeader: (name: string, value: unknown) => { headers.push([name, String(value)]) }, removeHeader: () => {} }
  let finished = false
  helmet()({} as Request, res as unknown as Response, () => { finished = true })
  if (!finished) throw new Error('helmet did not set its headers at once')
  return headers
}

/** Counts an answered request by route, method and status, and times it by route. */
function countRequest (prometheus: PrometheusMetrics, route: string, method: string, status: SentStatus, seconds: number, key?: string): void {
  prometheus.requests.inc(prometheus.byKey ? { route, method, status, key: key ?? '' } : { route, method, status })
  prometheus.requestSeconds.observe({ route }, seconds)
}

/**
 * What the HTTP server needs of the app for an answer it writes itself, to a request Node's
 * parser refused or that stalled before its headers were in: an id, a log line, a count.
 */
export interface EarlyAnswers {
  nextRequestId: () => string
  record: (requestId: string, status: number, startedAt: number, client: string | undefined) => void
}

/** The HTTP context: the service's (shared with gRPC) and the body validators. */
export function createContext (options: AppOptions): AppContext {
  return withValidator(createService(options))
}

/** The HTTP context of `service`; one from createContext already has its validators (compiled once). */
function withValidator (service: ServiceContext | AppContext): AppContext {
  return 'validator' in service ? service : { ...service, validator: createBodyValidator(service.config) }
}

/** Every handler of the route table, by name. */
function createHandlers (ctx: AppContext): Record<HandlerName, RequestHandler> {
  const spec = createPredictHandlers(ctx)
  // Any model of the repository, by name, with the same bodies and answers as the spec's routes.
  const named = createPredictHandlers(ctx, namedModel(ctx))
  return {
    predict: spec.predict,
    batchPredict: spec.batchPredict,
    explain: createExplainHandler(ctx),
    health: createHealthHandler(ctx),
    metrics: createMetricsHandler(ctx),
    info: createInfoHandler(ctx),
    models: createModelsHandler(ctx),
    modelPredict: named.predict,
    modelBatchPredict: named.batchPredict,
    modelExplain: createExplainHandler(ctx, namedModel(ctx)),
    ...createDocsHandlers(ctx),
    ...createV2Handlers(ctx)
  }
}

export function createApp (options: AppOptions): Express {
  const { config, isStopping = () => false } = options
  const ctx = withValidator(options.context ?? createService(options))
  const logger = ctx.logger
  let requests = 0
  const nextRequestId = (): string => `req-${++requests}`
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  // Routes are exact: /PREDICT and /predict/ are not /predict (a gateway's rule for /predict holds).
  app.set('case sensitive routing', true)
  app.set('strict routing', true)
  const pino = logger.pino
  const tracing = ctx.tracing
  const secure = helmetHeaders()
  // CORS open to all origins: its one header on every answer, the cors package for preflights.
  const preflight = cors()
  app.use((req, res, next) => {
    res.locals.startedAt = performance.now()
    res.locals.requestId = nextRequestId()
    res.setHeader('X-API-Version', API_VERSION)
    res.setHeader('X-Request-Id', res.locals.requestId as string)
    for (const [name, value] of secure) res.setHeader(name, value)
    if (isStopping()) res.setHeader('Connection', 'close')
    // A sampled request's span continues the caller's trace; the answer tells the caller ours.
    const trace = tracing?.startHttp(req, res.locals.startedAt as number)
    if (trace !== undefined) {
      res.locals.trace = trace
      res.setHeader('traceparent', trace.traceparent)
    }
    // 'close' comes for every response, sent whole or cut off: one log line, one count.
    res.once('close', () => {
      const status = sentStatus(res)
      if (pino !== undefined) logRequest(pino, status, () => requestEntry(req, res, status))
      // The route's pattern, not the URL: a client cannot mint new series.
      const route = (req.route as { path?: string } | undefined)?.path
      if (ctx.prometheus !== undefined) {
        countRequest(ctx.prometheus, route === undefined ? 'unmatched' : req.baseUrl + route, req.method, status, (performance.now() - (res.locals.startedAt as number)) / 1000, res.locals.keyId as string | undefined)
        const model = res.locals.model as string | undefined
        if (model !== undefined) ctx.prometheus.modelRequests.inc({ model, version: (res.locals.modelVersion as string | undefined) ?? '', status })
      }
      trace?.finish({ status, route: route === undefined ? undefined : req.baseUrl + route, error: res.locals.errorCode as string | undefined })
    })
    if (req.method === 'OPTIONS') return preflight(req, res, next)
    res.setHeader('Access-Control-Allow-Origin', '*')
    next()
  })

  // No valid body of these routes nests past 2 or holds more than MAX_BATCH_SIZE texts and a
  // few fields; the margin lets validation name the field of a body that is only a little off.
  const bodies = {
    json: readJsonBody({ shape: { maxDepth: 8, maxValues: config.maxBatchSize + 64 }, requestTimeoutMs: config.requestTimeoutMs }),
    raw: readRawBody({ requestTimeoutMs: config.requestTimeoutMs })
  }
  const handlers = createHandlers(ctx)
  const v2 = express.Router({ caseSensitive: true, strict: true })
  // Every route of the table: its access check (before any body is read), its body reader, its handler.
  for (const route of ROUTES) {
    const scope = scopeOf(route, config)
    const chain: RequestHandler[] = []
    if (scope !== null) chain.push(requireKey(ctx, scope, route.chargesTexts === true))
    if (route.body !== undefined) chain.push(bodies[route.body])
    chain.push(handlers[route.handler])
    if (isV2(route)) v2[route.method](expressPath(route.path.slice(V2_PREFIX.length)) || '/', ...chain)
    else app[route.method](expressPath(route.path), ...chain)
  }
  // V2's unknown routes and errors in its own `{"error"}` form.
  v2.use((req, _res) => { throw new ServiceError('ERR_NOT_FOUND', `no route for ${req.method} ${V2_PREFIX}${req.path}`) })
  v2.use(createErrorHandler(logger, ctx.prometheus, 'v2'))
  app.use(V2_PREFIX, v2)
  for (const [path, allowed] of allowedMethods()) app.all(expressPath(path), methodNotAllowed(allowed))
  app.use((req, _res) => { throw new ServiceError('ERR_NOT_FOUND', `no route for ${req.method} ${req.path}`) })
  app.use(createErrorHandler(logger, ctx.prometheus))
  const earlyAnswers: EarlyAnswers = {
    nextRequestId,
    record: (requestId, status, startedAt, client) => {
      const seconds = (performance.now() - startedAt) / 1000
      if (pino !== undefined) logRequest(pino, status, () => ({ request_id: requestId, status, duration_ms: Math.round(seconds * 1e6) / 1000, client }))
      if (ctx.prometheus !== undefined) countRequest(ctx.prometheus, 'unmatched', 'unknown', status, seconds)
    }
  }
  app.locals.earlyAnswers = earlyAnswers
  return app
}
