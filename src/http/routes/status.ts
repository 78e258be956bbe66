/** GET /health, GET /metrics and GET / (the service information). */
import { freemem, totalmem } from 'node:os'
import type { Request, RequestHandler } from 'express'
import { ServiceError } from '../../errors.js'
import { API_VERSION } from '../../service/context.js'
import type { ExpositionFormat } from '../../service/prometheus.js'
import type { AppContext } from '../context.js'

const MB = 1024 * 1024

/** The union of the spec's two health forms (docs/http-api.md, "Routes": GET /health); 503 unless a worker can take work. */
export function createHealthHandler (ctx: AppContext): RequestHandler {
  return (_req, res) => {
    const healthy = ctx.pool.ready
    const rss = process.memoryUsage.rss()
    res.status(healthy ? 200 : 503).json({
      status: healthy ? 'healthy' : 'unhealthy',
      timestamp: new Date().toISOString(),
      version: API_VERSION,
      model_loaded: healthy,
      memory_usage: { used: rss, available: freemem(), percentage: (rss / totalmem()) * 100 },
      models_loaded: healthy,
      vectorizer_loaded: healthy,
      memory_usage_mb: rss / MB,
      uptime_seconds: ctx.metrics.uptimeSeconds()
    })
  }
}

/**
 * What a /metrics request asks for: `?format=prometheus|openmetrics|json`, else its Accept
 * header as Prometheus sends it (OpenMetrics first, then text 0.0.4); JSON, the SPEC's report,
 * for everything else, `*\/*` included.
 */
function metricsFormat (req: Request): ExpositionFormat | 'json' {
  const asked = req.query.format
  if (asked === 'prometheus') return 'text'
  if (asked === 'openmetrics') return 'openmetrics'
  if (asked === 'json') return 'json'
  if (asked !== undefined) throw new ServiceError('ERR_BAD_QUERY', `format must be json, prometheus or openmetrics, not ${JSON.stringify(asked)}`)
  // With their versions: an Accept entry with parameters matches only a type with the same ones.
  const best = req.accepts(['application/json', 'application/openmetrics-text; version=1.0.0', 'application/openmetrics-text; version=0.0.1', 'text/plain; version=0.0.4'])
  if (typeof best === 'string' && best.startsWith('application/openmetrics-text')) return 'openmetrics'
  return best === 'text/plain; version=0.0.4' ? 'text' : 'json'
}

export function createMetricsHandler (ctx: AppContext): RequestHandler {
  return async (req, res) => {
    const prometheus = ctx.prometheus
    if (prometheus === undefined) throw new ServiceError('ERR_NOT_FOUND', 'metrics are not enabled (ENABLE_METRICS=false)')
    const format = metricsFormat(req)
    if (format !== 'json') {
      let exposition
      try {
        exposition = await prometheus.render(format)
      } catch (err) {
        throw new ServiceError('ERR_METRICS_FAILED', undefined, { cause: err })
      }
      res.setHeader('Content-Type', exposition.contentType)
      res.end(exposition.body)
      return
    }
    let report
    try {
      report = ctx.metrics.report(ctx.cache.hitRate)
    } catch (err) {
      throw new ServiceError('ERR_METRICS_FAILED', undefined, { cause: err })
    }
    res.json(report)
  }
}

export function createInfoHandler (ctx: AppContext): RequestHandler {
  const endpoints = Object.freeze({
    predict: { url: '/predict', method: 'POST', description: 'Classify one text ({"text"}) or a batch ({"texts", "batch_size"})' },
    health: { url: '/health', method: 'GET', description: 'Health check' },
    metrics: { url: '/metrics', method: 'GET', description: ctx.config.enableMetrics ? 'Performance metrics' : 'Performance metrics (disabled: ENABLE_METRICS=false)' },
    batch_predict: { url: '/batch_predict', method: 'POST', description: 'Classify a batch of texts ({"texts", "batch_size"})' }
  })
  // The default model as served now (a reload may have replaced it).
  return (_req, res) => {
    const model = ctx.repository.serving(ctx.repository.defaultName)
    res.json({
      name: 'tfidf-serve',
      version: API_VERSION,
      description: 'Text classification with a scikit-learn TF-IDF model, served without Python',
      endpoints,
      model_info: {
        type: model.status.classifier,
        classes: model.labels,
        vectorizer: model.status.vectorizer,
        confidence: model.status.confidence
      }
    })
  }
}
