/**
 * The one context every transport serves from: pool, repository, keys and limits, cache and
 * counters. main.ts and the tests build it here, then hand it to the HTTP app and the gRPC server.
 */
import { AccessControl } from '../access/access-control.js'
import type { WebhookSender } from '../access/webhooks.js'
import type { Config } from '../config.js'
import { createLogger, type Logger } from '../logger.js'
import type { ClassifierPool } from '../pool/classifier-pool.js'
import type { ModelRepository } from '../repository/model-repository.js'
import { defaultModelOf, repositoryOver } from '../repository/open.js'
import type { ServiceContext } from './context.js'
import type { ModelStatus } from '../pool/messages.js'
import { PrometheusMetrics, type ModelInfo } from './prometheus.js'
import { ResultCache } from './result-cache.js'
import { ServiceMetrics } from './service-metrics.js'
import type { Tracing } from '../tracing/tracing.js'

export interface ServiceOptions {
  readonly config: Readonly<Config>
  readonly pool: ClassifierPool
  readonly logger?: Logger
  /** The models served; by default the pool's one model, the default model the configuration names (MODEL_PATH's, 'default'). */
  readonly repository?: ModelRepository
  /** Where events go (a key's quota used up); none: not sent. */
  readonly webhooks?: WebhookSender
  /** Tracing (src/tracing/start.ts); none: off. */
  readonly tracing?: Tracing
}

function modelInfo (m: ModelStatus): ModelInfo {
  return { classifier: m.classifier, vectorizer: m.vectorizer, features: m.nFeatures, sklearnVersion: [...new Set(Object.values(m.sklearnVersions))].join(','), loadSeconds: m.loadMs / 1000 }
}

function prometheusOf (pool: ClassifierPool, cache: ResultCache, repository: ModelRepository, access: AccessControl | undefined, webhooks: WebhookSender | undefined, tracing: Tracing | undefined): PrometheusMetrics {
  // The default model served now; while it is unloaded, the last one served.
  let last = repository.default?.status ?? pool.model
  return new PrometheusMetrics({
    inFlight: () => pool.inFlight,
    waiting: () => pool.waiting,
    workersAlive: () => pool.workerCount,
    workerRestarts: () => pool.workerRestarts,
    textsDropped: () => pool.counts.textsDropped,
    cacheCounts: () => cache.counts,
    cacheSize: () => cache.size,
    model: () => modelInfo(last = repository.default?.status ?? last),
    models: () => repository.entries().map(e => ({ name: e.name, version: e.served?.version ?? '', state: e.state, sharedBytes: e.served?.status.sharedBytes ?? 0 })),
    modelEvents: () => repository.eventCounts(),
    access: access?.counts,
    webhooks: webhooks?.counts,
    tracing: tracing?.counts
  })
}

/** What the transports share (one pool, repository, cache and counters for REST and gRPC). */
export function createService ({ config, pool, logger = createLogger(config.logLevel), repository = repositoryOver(pool, config, defaultModelOf(config)), webhooks, tracing }: ServiceOptions): ServiceContext {
  const cache = new ResultCache(config.cacheSize, config.cacheMaxBytes)
  const access = config.apiKeysFile === null
    ? undefined
    : new AccessControl({ ...config, apiKeysFile: config.apiKeysFile }, logger, {
      onQuotaExhausted: (key, day, limit, resetsAt) => webhooks?.send('key.quota_exhausted', { key, day, texts_per_day: limit, resets_at: resetsAt.toISOString() })
    })
  access?.keys.watch()
  const prometheus = config.enableMetrics ? prometheusOf(pool, cache, repository, access, webhooks, tracing) : undefined
  if (prometheus !== undefined) pool.observeTasks((_model, texts) => prometheus.workerTaskTexts.observe(texts))
  return {
    config,
    pool,
    logger,
    cache,
    metrics: new ServiceMetrics(),
    prometheus,
    repository,
    access,
    tracing
  }
}
