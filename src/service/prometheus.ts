/**
 * The Prometheus series of GET /metrics (prom-client), in the text format (0.0.4) or
 * OpenMetrics, as the scraper asks. Counts that live elsewhere (the cache's look-ups, the
 * pool's worker restarts, queue depth) are read when scraped; the rest are counted as
 * requests go by. Names follow Prometheus's conventions: a `tfidf_` prefix, base units,
 * `_total` on counters.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type CounterConfiguration, type RegistryContentType } from 'prom-client'
import type { ErrorCode } from '../errors.js'

/** What the scrape reads from the rest of the service. */
/** What the model series say of the default model. */
export interface ModelInfo {
  readonly classifier: string
  readonly vectorizer: string
  readonly features: number
  readonly sklearnVersion: string
  readonly loadSeconds: number
}

export interface MetricsSources {
  readonly inFlight: () => number
  readonly waiting: () => number
  readonly workersAlive: () => number
  readonly workerRestarts: () => number
  /** Texts of abandoned requests (client gone, request timeout, gRPC cancel) the pool dropped before a worker took them. */
  readonly textsDropped?: () => number
  readonly cacheCounts: () => { readonly lookups: number, readonly hits: number }
  readonly cacheSize: () => { readonly entries: number, readonly bytes: number }
  /** The default model as served now (a reload or a new file may have replaced it). */
  readonly model: () => ModelInfo
  /** Every model of the repository: its served version, state and shared bytes (0 when not loaded). */
  readonly models?: () => ReadonlyArray<{ readonly name: string, readonly version: string, readonly state: string, readonly sharedBytes: number }>
  /** Lifecycle events so far, by model and kind (loaded, unloaded, load_failed). */
  readonly modelEvents?: () => ReadonlyArray<{ readonly model: string, readonly event: string, readonly count: number }>
  /** With keys on: refusals by reason, limits hit by key and limit, rate-limit store failures. */
  readonly access?: { readonly denied: ReadonlyMap<string, number>, readonly limited: ReadonlyMap<string, number>, readonly storeErrors: number }
  /** With webhooks on: events delivered, retried, dropped from a full queue, refused by the receiver. */
  readonly webhooks?: { readonly delivered: number, readonly retried: number, readonly dropped: number, readonly refused: number }
  /** With tracing on: spans exported, dropped from the exporter's full queue, lost to failed exports. */
  readonly tracing?: () => { readonly exported: number, readonly dropped: number, readonly failed: number }
}

export type ExpositionFormat = 'text' | 'openmetrics'

/** Why a request was turned away with 503, as the `cause` label says it. */
const REJECTION_CAUSES: Partial<Record<ErrorCode, string>> = {
  ERR_QUEUE_FULL: 'queue_full',
  ERR_PREDICTION_TIMEOUT: 'prediction_timeout',
  ERR_QUEUE_TIMEOUT: 'queue_timeout',
  ERR_REQUEST_TIMEOUT: 'request_timeout',
  ERR_WORKER_UNAVAILABLE: 'worker_unavailable',
  ERR_METRICS_FAILED: 'metrics_failed'
}

export class PrometheusMetrics {
  /** One registry, told the format at each scrape (scrapes run one at a time). */
  readonly #registry = new Registry<RegistryContentType>()
  /** Counters and their names: an OpenMetrics scrape strips `_total` from them, a text scrape puts it back. */
  readonly #counters: Array<[{ name: string }, string]>
  #scraping: Promise<unknown> = Promise.resolve()

  /** With keys on, requests are counted by key id too (`key`; '' for a request with none). */
  readonly byKey: boolean
  readonly requests: Counter<'route' | 'method' | 'status' | 'key'>
  readonly requestSeconds: Histogram<'route'>
  readonly predictions: Counter<'label'>
  readonly textsPerRequest: Histogram
  readonly textLength: Histogram
  readonly vocabularyCoverage: Histogram
  readonly workerTaskTexts: Histogram
  readonly textsWithoutKnownFeature: Counter
  readonly rejections: Counter<'cause'>
  readonly modelRequests: Counter<'model' | 'version' | 'status'>

  constructor (sources: MetricsSources) {
    const registers = [this.#registry]
    collectDefaultMetrics({ register: this.#registry })
    const counter = <L extends string>(config: Omit<CounterConfiguration<L>, 'registers'>): Counter<L> => new Counter({ ...config, registers })
    this.byKey = sources.access !== undefined
    this.requests = counter({ name: 'tfidf_http_requests_total', help: `HTTP requests answered, by route, method and status${this.byKey ? ' and API key id' : ''}`, labelNames: this.byKey ? ['route', 'method', 'status', 'key'] : ['route', 'method', 'status'] })
    this.requestSeconds = new Histogram({ name: 'tfidf_http_request_duration_seconds', help: 'Time from a request\'s arrival to its response, by route', labelNames: ['route'], buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers })
    this.predictions = counter({ name: 'tfidf_predictions_total', help: 'Texts predicted, by the label given', labelNames: ['label'] })
    this.textsPerRequest = new Histogram({ name: 'tfidf_texts_per_request', help: 'Texts in each prediction request', buckets: [1, 2, 5, 10, 20, 50, 100, 200], registers })
    this.textLength = new Histogram({ name: 'tfidf_text_length_characters', help: 'Length of each text predicted, in UTF-16 code units', buckets: [10, 30, 100, 300, 1000, 3000, 10000, 30000], registers })
    this.workerTaskTexts = new Histogram({ name: 'tfidf_worker_task_texts', help: 'Texts in each prediction task handed to a worker: one request\'s chunk of batch_size, or the chunks of several requests that adaptive batching gathered', buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500], registers })
    this.vocabularyCoverage = new Histogram({ name: 'tfidf_vocabulary_coverage_ratio', help: 'Share of a text\'s terms (n-grams, with repeats) that are features of the model; texts the model was not trained for sit low', buckets: [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1], registers })
    this.textsWithoutKnownFeature = counter({ name: 'tfidf_texts_without_known_feature_total', help: 'Texts with no term the model knows: their prediction is the intercept\'s alone' })
    this.rejections = counter({ name: 'tfidf_rejected_requests_total', help: 'Requests answered 503, by cause (timeouts included)', labelNames: ['cause'] })

    // Counts kept elsewhere, each brought up to date when scraped.
    const following = (name: string, help: string, read: () => number): void => {
      let seen = 0
      counter({ name, help, collect () { const now = read(); this.inc(now - seen); seen = now } })
    }
    following('tfidf_cache_hits_total', 'Result cache look-ups that found the text', () => sources.cacheCounts().hits)
    following('tfidf_cache_misses_total', 'Result cache look-ups that did not', () => { const { lookups, hits } = sources.cacheCounts(); return lookups - hits })
    following('tfidf_worker_restarts_total', 'Worker threads replaced after a crash or a timeout', sources.workerRestarts)
    if (sources.textsDropped !== undefined) following('tfidf_dropped_texts_total', 'Texts of abandoned requests (the client went away, REQUEST_TIMEOUT_MS, a gRPC cancel or deadline) dropped before any worker took them', sources.textsDropped)
    const gauge = (name: string, help: string, read: () => number): void => {
      const g = new Gauge({ name, help, registers, collect () { this.set(read()) } })
      void g
    }
    gauge('tfidf_queue_depth', 'Prediction requests waiting for a slot', sources.waiting)
    gauge('tfidf_requests_in_flight', 'Prediction requests being answered', sources.inFlight)
    gauge('tfidf_workers_alive', 'Worker threads alive', sources.workersAlive)
    gauge('tfidf_cache_entries', 'Results held by the cache', () => sources.cacheSize().entries)
    gauge('tfidf_cache_bytes', 'Bytes the cache holds, as CACHE_MAX_BYTES counts them', () => sources.cacheSize().bytes)
    gauge('tfidf_model_load_seconds', 'Reading, decoding and sharing the model, and every worker creating it', () => sources.model().loadSeconds)
    // Read at each scrape: the series describes the model served then, not the first one.
    new Gauge({
      name: 'tfidf_model_info',
      help: 'The model served (always 1): estimator, vectorizer, feature count, scikit-learn version',
      labelNames: ['classifier', 'vectorizer', 'features', 'sklearn_version'],
      registers,
      collect () {
        const { classifier, vectorizer, features, sklearnVersion } = sources.model()
        this.reset()
        this.set({ classifier, vectorizer, features: String(features), sklearn_version: sklearnVersion }, 1)
      }
    })
    // Per model (a repository's): requests, state, shared bytes, loads, unloads and failed loads.
    this.modelRequests = counter({ name: 'tfidf_model_requests_total', help: 'Requests a model answered, by model, version and status', labelNames: ['model', 'version', 'status'] })
    if (sources.models !== undefined) {
      const models = sources.models
      new Gauge({ name: 'tfidf_model_shared_bytes', help: 'Bytes of a model\'s arrays in the memory every worker shares', labelNames: ['model', 'version'], registers, collect () { this.reset(); for (const m of models()) if (m.sharedBytes > 0) this.set({ model: m.name, version: m.version }, m.sharedBytes) } })
      new Gauge({ name: 'tfidf_model_ready', help: 'Whether a model serves (1) or not (0): LOADING, UNLOADING, UNAVAILABLE', labelNames: ['model', 'state'], registers, collect () { this.reset(); for (const m of models()) this.set({ model: m.name, state: m.state }, m.state === 'READY' ? 1 : 0) } })
    }
    if (sources.modelEvents !== undefined) {
      const events = sources.modelEvents
      const seen = new Map<string, number>()
      counter({ name: 'tfidf_model_lifecycle_total', help: 'Models loaded, unloaded, and loads that failed (the old version, if any, still serving)', labelNames: ['model', 'event'], collect () { for (const e of events()) { const key = `${e.model}\u0000${e.event}`; this.inc({ model: e.model, event: e.event }, e.count - (seen.get(key) ?? 0)); seen.set(key, e.count) } } })
    }
    if (sources.access !== undefined) {
      const access = sources.access
      // Each count followed per label set, as the lifecycle counter above.
      const followMap = (name: string, help: string, labels: string[], read: () => ReadonlyMap<string, number>): void => {
        const seen = new Map<string, number>()
        counter({ name, help, labelNames: labels, collect () { for (const [k, n] of read()) { const values = k.split('\u0000'); this.inc(Object.fromEntries(labels.map((l, i) => [l, values[i]!])), n - (seen.get(k) ?? 0)); seen.set(k, n) } } })
      }
      followMap('tfidf_auth_refusals_total', 'Requests refused for their key: missing, unknown, or without the route\'s scope', ['reason'], () => access.denied)
      followMap('tfidf_rate_limited_total', 'Requests refused with 429, by key id and the limit passed (requests, texts, quota)', ['key', 'limit'], () => access.limited)
      following('tfidf_rate_limit_store_errors_total', 'Calls to the rate-limit store (Redis) that failed or timed out', () => access.storeErrors)
    }
    if (sources.webhooks !== undefined) {
      const hooks = sources.webhooks
      for (const outcome of ['delivered', 'retried', 'dropped', 'refused'] as const) {
        following(`tfidf_webhook_${outcome}_total`, { delivered: 'Webhook events delivered', retried: 'Webhook deliveries that failed and will be tried again', dropped: 'Webhook events lost: dropped from the full queue', refused: 'Webhook events lost: the receiver answered a final 4xx' }[outcome], () => hooks[outcome])
      }
    }
    if (sources.tracing !== undefined) {
      const spans = sources.tracing
      following('tfidf_trace_spans_exported_total', 'Trace spans the collector took', () => spans().exported)
      following('tfidf_trace_spans_dropped_total', 'Trace spans dropped because the exporter\'s queue (OTEL_BSP_MAX_QUEUE_SIZE) was full: the collector is slow, down, or refusing', () => spans().dropped)
      following('tfidf_trace_spans_failed_total', 'Trace spans lost because their export failed (refused, timed out, or an error status)', () => spans().failed)
    }
    // prom-client's default counters too.
    this.#counters = this.#registry.getMetricsAsArray().filter(m => m instanceof Counter).map(m => [m as unknown as { name: string }, m.name])
  }

  /** Counts a 503 under its cause. */
  rejected (code: ErrorCode): void {
    const cause = REJECTION_CAUSES[code]
    if (cause !== undefined) this.rejections.inc({ cause })
  }

  /** The exposition in `format`, and the Content-Type to send it with. */
  async render (format: ExpositionFormat): Promise<{ contentType: string, body: string }> {
    const contentType = format === 'openmetrics' ? Registry.OPENMETRICS_CONTENT_TYPE : Registry.PROMETHEUS_CONTENT_TYPE
    const scrape = this.#scraping.then(async () => {
      this.#registry.setContentType(contentType)
      if (format === 'text') for (const [c, name] of this.#counters) c.name = name
      return await this.#registry.metrics()
    })
    this.#scraping = scrape.catch(() => {})
    return { contentType, body: await scrape }
  }
}
