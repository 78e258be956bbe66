/** GET /health, GET /metrics and GET / (the service information). */
import { freemem, totalmem } from 'node:os'
import type { RequestHandler } from 'express'
import { ServiceError } from '../../errors.js'
import { API_VERSION, type AppContext } from '../context.js'

const MB = 1024 * 1024

/** The union of the spec's two health forms (DECISIONS.md 23); 503 unless a worker can take work. */
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

export function createMetricsHandler (ctx: AppContext): RequestHandler {
  return (_req, res) => {
    if (!ctx.config.enableMetrics) throw new ServiceError('ERR_NOT_FOUND', 'metrics are not enabled (ENABLE_METRICS=false)')
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
  const body = Object.freeze({
    name: 'tfidf-serve',
    version: API_VERSION,
    description: 'Text classification with a scikit-learn TF-IDF model, served without Python',
    endpoints: {
      predict: { url: '/predict', method: 'POST', description: 'Classify one text ({"text"}) or a batch ({"texts", "batch_size"})' },
      health: { url: '/health', method: 'GET', description: 'Health check' },
      metrics: { url: '/metrics', method: 'GET', description: ctx.config.enableMetrics ? 'Performance metrics' : 'Performance metrics (disabled: ENABLE_METRICS=false)' },
      batch_predict: { url: '/batch_predict', method: 'POST', description: 'Classify a batch of texts ({"texts", "batch_size"})' }
    },
    model_info: {
      type: ctx.pool.model.classifier,
      classes: ctx.labels,
      vectorizer: ctx.pool.model.vectorizer,
      confidence: ctx.pool.model.confidence
    }
  })
  return (_req, res) => { res.json(body) }
}
