/**
 * The Express 5 app: headers every response carries (X-API-Version, X-Request-Id, helmet,
 * CORS open to all origins), a log line and Prometheus counts per request, the routes of
 * SPEC.md (exact and case-sensitive) with /explain, /openapi.json and /docs, 404 and 405,
 * and the error handler. `createApp` builds a fresh app for each caller, which supertest
 * takes directly.
 */
import cors from 'cors'
import express, { type Express, type Request, type RequestHandler, type Response } from 'express'
import helmet from 'helmet'
import type { Config } from '../config.js'
import { ServiceError } from '../errors.js'
import { displayLabels } from '../labels.js'
import { createLogger, type Logger } from '../logger.js'
import type { ClassifierPool } from '../pool/classifier-pool.js'
import { readJsonBody } from './body.js'
import { API_VERSION, type AppContext } from './context.js'
import { createErrorHandler } from './error-handler.js'
import { PrometheusMetrics } from './prometheus.js'
import { logRequest } from './request-log.js'
import { ResultCache } from './result-cache.js'
import { mountDocs } from './routes/docs.js'
import { createExplainHandler } from './routes/explain.js'
import { createPredictHandlers } from './routes/predict.js'
import { createHealthHandler, createInfoHandler, createMetricsHandler } from './routes/status.js'
import { ServiceMetrics } from './service-metrics.js'
import { createBodyValidator } from './validate.js'

export interface AppOptions {
  readonly config: Readonly<Config>
  readonly pool: ClassifierPool
  readonly logger?: Logger
  /** True once the server is shutting down: responses then close their connection. */
  readonly isStopping?: () => boolean
}

function methodNotAllowed (allowed: string): RequestHandler {
  return (_req, res) => {
    res.setHeader('Allow', allowed)
    throw new ServiceError('ERR_METHOD_NOT_ALLOWED', `method not allowed; use ${allowed}`)
  }
}

function prometheusOf (pool: ClassifierPool, cache: ResultCache): PrometheusMetrics {
  const m = pool.model
  return new PrometheusMetrics({
    inFlight: () => pool.inFlight,
    waiting: () => pool.waiting,
    workersAlive: () => pool.workerCount,
    workerRestarts: () => pool.workerRestarts,
    cacheCounts: () => cache.counts,
    cacheSize: () => cache.size,
    model: { classifier: m.classifier, vectorizer: m.vectorizer, features: m.nFeatures, sklearnVersion: [...new Set(Object.values(m.sklearnVersions))].join(','), loadSeconds: m.loadMs / 1000 }
  })
}

/** Counts an answered request by route, method and status, and times it by route. */
function countRequest (prometheus: PrometheusMetrics, req: Request, res: Response): void {
  // The route's pattern, not the URL: a client cannot mint new series.
  const route = (req.route as { path?: string } | undefined)?.path ?? 'unmatched'
  prometheus.requests.inc({ route, method: req.method, status: res.statusCode })
  prometheus.requestSeconds.observe({ route }, (performance.now() - (res.locals.startedAt as number)) / 1000)
}

export function createApp ({ config, pool, logger = createLogger(config.logLevel), isStopping = () => false }: AppOptions): Express {
  const cache = new ResultCache(config.cacheSize, config.cacheMaxBytes)
  const ctx: AppContext = {
    config,
    pool,
    logger,
    cache,
    metrics: new ServiceMetrics(),
    prometheus: config.enableMetrics ? prometheusOf(pool, cache) : undefined,
    validator: createBodyValidator(config),
    labels: displayLabels(pool.model.classes, config.labelNames)
  }
  let requests = 0
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  // Routes are exact: /PREDICT and /predict/ are not /predict (a gateway's rule for /predict holds).
  app.set('case sensitive routing', true)
  app.set('strict routing', true)
  const pino = logger.pino
  app.use((req, res, next) => {
    res.locals.startedAt = performance.now()
    res.locals.requestId = `req-${++requests}`
    res.setHeader('X-API-Version', API_VERSION)
    res.setHeader('X-Request-Id', res.locals.requestId as string)
    if (isStopping()) res.setHeader('Connection', 'close')
    // 'close' comes for every response, sent whole or cut off: one log line, one count.
    res.once('close', () => {
      if (pino !== undefined) logRequest(pino, req, res)
      if (ctx.prometheus !== undefined) countRequest(ctx.prometheus, req, res)
    })
    next()
  })
  app.use(helmet())
  app.use(cors())

  const { predict, batchPredict } = createPredictHandlers(ctx)
  const body = readJsonBody()
  app.post('/predict', body, predict)
  app.post('/batch_predict', body, batchPredict)
  app.post('/explain', body, createExplainHandler(ctx))
  app.get('/health', createHealthHandler(ctx))
  app.get('/metrics', createMetricsHandler(ctx))
  app.get('/', createInfoHandler(ctx))
  mountDocs(app, ctx)
  for (const [path, allowed] of [['/predict', 'POST'], ['/batch_predict', 'POST'], ['/explain', 'POST'], ['/health', 'GET, HEAD'], ['/metrics', 'GET, HEAD'], ['/', 'GET, HEAD'], ['/openapi.json', 'GET, HEAD'], ['/docs', 'GET, HEAD']] as const) {
    app.all(path, methodNotAllowed(allowed))
  }
  app.use((req, _res) => { throw new ServiceError('ERR_NOT_FOUND', `no route for ${req.method} ${req.path}`) })
  app.use(createErrorHandler(logger, ctx.prometheus))
  return app
}
