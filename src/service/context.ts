import type { AccessControl } from '../access/access-control.js'
import type { Config } from '../config.js'
import type { Logger } from '../logger.js'
import type { ClassifierPool } from '../pool/classifier-pool.js'
import type { ModelRepository } from '../repository/model-repository.js'
import type { PrometheusMetrics } from './prometheus.js'
import type { ResultCache } from './result-cache.js'
import type { ServiceMetrics } from './service-metrics.js'
import type { Tracing } from '../tracing/tracing.js'

/** What every transport shares (REST, V2 REST, gRPC), built once by createService. */
export interface ServiceContext {
  readonly config: Readonly<Config>
  readonly pool: ClassifierPool
  readonly logger: Logger
  readonly cache: ResultCache
  readonly metrics: ServiceMetrics
  /** The Prometheus series; none with ENABLE_METRICS=false (nothing is counted then). */
  readonly prometheus: PrometheusMetrics | undefined
  /** The models served: the default one (the spec's routes) and any other of a repository. */
  readonly repository: ModelRepository
  /** Keys, scopes and limits (API_KEYS_FILE); none: every route is open, as SPEC 1.0 has it. */
  readonly access: AccessControl | undefined
  /** Spans of requests, tasks and model loads (OTEL_EXPORTER_OTLP_*); none: tracing off. */
  readonly tracing?: Tracing
}

export const API_VERSION = '1.0.0'
