/**
 * The Express 5 app: headers every response carries (X-API-Version, X-Request-Id, helmet,
 * CORS open to all origins), the routes of SPEC.md, 404 and 405, and the error handler.
 * `createApp` builds a fresh app for each caller, which supertest takes directly.
 */
import cors from 'cors'
import express, { type Express, type RequestHandler } from 'express'
import helmet from 'helmet'
import type { Config } from '../config.js'
import { ServiceError } from '../errors.js'
import { displayLabels } from '../labels.js'
import { createLogger, type Logger } from '../logger.js'
import type { ClassifierPool } from '../pool/classifier-pool.js'
import { readJsonBody } from './body.js'
import { API_VERSION, type AppContext } from './context.js'
import { createErrorHandler } from './error-handler.js'
import { ResultCache } from './result-cache.js'
import { createPredictHandlers } from './routes/predict.js'
import { createHealthHandler, createInfoHandler, createMetricsHandler } from './routes/status.js'
import { ServiceMetrics } from './service-metrics.js'

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

export function createApp ({ config, pool, logger = createLogger(config.logLevel), isStopping = () => false }: AppOptions): Express {
  const ctx: AppContext = {
    config,
    pool,
    logger,
    cache: new ResultCache(config.cacheSize, config.cacheMaxBytes),
    metrics: new ServiceMetrics(),
    labels: displayLabels(pool.model.classes, config.labelNames)
  }
  let requests = 0
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  app.use((_req, res, next) => {
    res.locals.startedAt = performance.now()
    res.locals.requestId = `req-${++requests}`
    res.setHeader('X-API-Version', API_VERSION)
    res.setHeader('X-Request-Id', res.locals.requestId as string)
    if (isStopping()) res.setHeader('Connection', 'close')
    next()
  })
  app.use(helmet())
  app.use(cors())

  const { predict, batchPredict } = createPredictHandlers(ctx)
  const body = readJsonBody()
  app.post('/predict', body, predict)
  app.post('/batch_predict', body, batchPredict)
  app.get('/health', createHealthHandler(ctx))
  app.get('/metrics', createMetricsHandler(ctx))
  app.get('/', createInfoHandler(ctx))
  for (const [path, allowed] of [['/predict', 'POST'], ['/batch_predict', 'POST'], ['/health', 'GET, HEAD'], ['/metrics', 'GET, HEAD'], ['/', 'GET, HEAD']] as const) {
    app.all(path, methodNotAllowed(allowed))
  }
  app.use((req, _res) => { throw new ServiceError('ERR_NOT_FOUND', `no route for ${req.method} ${req.path}`) })
  app.use(createErrorHandler(logger))
  return app
}
