/**
 * Environment to a frozen, typed Config, once at boot (SPEC.md configuration plus
 * DECISIONS.md 12-26). One ajv schema carries the defaults and coerces the strings;
 * every problem is reported at once, in one line, as ERR_CONFIG_INVALID.
 */
import { Ajv } from 'ajv'
import { availableParallelism } from 'node:os'
import path from 'node:path'
import { ServiceError } from './errors.js'
import { modelPathsFromEnv } from './paths.js'
import { TRACING_PROPERTIES, tracingConfig, type TracingConfig } from './tracing/settings.js'

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent'

export interface Config {
  readonly port: number
  readonly host: string
  /** GRPC_PORT: the Open Inference Protocol's gRPC service and gRPC health listen here; null (unset): no gRPC. */
  readonly grpcPort: number | null
  /** GRPC_HOST: the address gRPC listens on (default: HOST). */
  readonly grpcHost: string
  /** Absolute path of the model (classifier, Pipeline or bundle). */
  readonly modelPath: string
  /** Absolute paths of the vectorizer file(s); unused when the model holds its vectorizer. */
  readonly vectorizerPaths: readonly string[]
  /** The model's settings file (MODEL_SETTINGS, or model-settings.json beside MODEL_PATH), or null. */
  readonly settingsFile: string | null
  /** MODEL_REPOSITORY (absolute): a folder of model folders; null for the one model of MODEL_PATH. */
  readonly modelRepository: string | null
  /** DEFAULT_MODEL: the repository's model the spec's routes serve (default: the only one). */
  readonly defaultModel: string | null
  /** MODEL_DIR (absolute): a folder holding one model, as KServe mounts it; null: MODEL_PATH's. */
  readonly modelDir: string | null
  /** MODEL_NAME: the name the one model (MODEL_PATH's or MODEL_DIR's) is served under. */
  readonly modelName: string
  /**
   * MODEL_CACHE_DIR (absolute): where compiled models are kept by the SHA-256 of their files, so
   * a later start of the same files skips decoding them; null (unset): no cache.
   */
  readonly modelCacheDir: string | null
  /** MODEL_POLL_SECONDS: how often the repository is looked at for changed folders (0: never). */
  readonly modelPollSeconds: number
  /**
   * STRICT_READINESS: readiness also needs every model to serve (Triton's --strict-readiness);
   * by default a model whose load failed does not hold the server's readiness back.
   */
  readonly strictReadiness: boolean
  readonly maxBatchSize: number
  readonly maxTextLength: number
  readonly enableMetrics: boolean
  readonly workers: number
  readonly predictionTimeoutMs: number
  /** QUEUE_TIMEOUT_MS: the longest a request waits for a slot, and a chunk for a free worker (default PREDICTION_TIMEOUT_MS). */
  readonly queueTimeoutMs: number
  /** ADAPTIVE_BATCH_MAX_TEXTS and ADAPTIVE_BATCH_MAX_WAIT_MS: concurrent requests' chunks gathered into one worker task (src/pool/adaptive-batcher.ts). */
  readonly adaptiveBatch: { readonly maxTexts: number, readonly maxWaitMs: number }
  readonly requestTimeoutMs: number
  readonly maxConcurrentRequests: number
  readonly maxQueue: number
  readonly cacheSize: number
  /** The result cache's memory bound, in bytes (its entries have a fixed size: keys are hashes). */
  readonly cacheMaxBytes: number
  /** LABEL_NAMES, in the order of the model's classes, or null. */
  readonly labelNames: readonly string[] | null
  readonly logLevel: LogLevel
  /** API_KEYS_FILE (absolute): the keys, their scopes and limits; null: no keys asked (SPEC 1.0). */
  readonly apiKeysFile: string | null
  /** METRICS_REQUIRE_KEY: /metrics asks for a key with the `metrics` scope (keys on only). */
  readonly metricsRequireKey: boolean
  /** REDIS_URL: where rate limits and quotas are counted, shared by every replica; null: in this process. */
  readonly redisUrl: string | null
  /** REDIS_TIMEOUT_MS: the longest any call to Redis may take before it counts as failed. */
  readonly redisTimeoutMs: number
  /** RATE_LIMIT_ON_STORE_ERROR: when the store fails, let requests through (open) or refuse them (closed). */
  readonly rateLimitOnStoreError: 'open' | 'closed'
  /** WEBHOOK_URL: where lifecycle and quota events are POSTed; null: none sent. */
  readonly webhookUrl: string | null
  /** WEBHOOK_SECRET: the HMAC-SHA256 key of X-Signature-256; null: events go unsigned. */
  readonly webhookSecret: string | null
  /** WEBHOOK_QUEUE_SIZE: events held for a receiver that is down; past it the oldest are dropped (and counted). */
  readonly webhookQueueSize: number
  /** OpenTelemetry tracing (the OTEL_* variables, src/tracing/settings.ts); null: off, and no SDK is loaded. */
  readonly tracing: TracingConfig | null
}

const int = (minimum: number, maximum: number, fallback?: number): Record<string, unknown> =>
  ({ type: 'integer', minimum, maximum, ...(fallback === undefined ? {} : { default: fallback }) })

const SCHEMA = {
  type: 'object',
  properties: {
    PORT: int(0, 65535, 8000),
    HOST: { type: 'string', minLength: 1, default: '0.0.0.0' },
    GRPC_PORT: int(0, 65535),
    GRPC_HOST: { type: 'string', minLength: 1 },
    MODEL_PATH: { type: 'string', minLength: 1 },
    VECTORIZER_PATH: { type: 'string', minLength: 1 },
    MODEL_SETTINGS: { type: 'string', minLength: 1 },
    MODEL_REPOSITORY: { type: 'string', minLength: 1 },
    MODEL_DIR: { type: 'string', minLength: 1 },
    MODEL_NAME: { type: 'string', pattern: '^[^/]+$' },
    DEFAULT_MODEL: { type: 'string', minLength: 1 },
    MODEL_POLL_SECONDS: { type: 'number', minimum: 0, default: 0 },
    MODEL_CACHE_DIR: { type: 'string', minLength: 1 },
    MAX_BATCH_SIZE: int(1, 10000, 50),
    MAX_TEXT_LENGTH: int(1, 1_000_000, 10000),
    ENABLE_METRICS: { type: 'boolean', default: true },
    WORKERS: int(1, 1024),
    PREDICTION_TIMEOUT_MS: int(1, 3_600_000, 10000),
    QUEUE_TIMEOUT_MS: int(1, 3_600_000),
    ADAPTIVE_BATCH_MAX_TEXTS: int(1, 100_000, 1),
    ADAPTIVE_BATCH_MAX_WAIT_MS: { type: 'number', minimum: 0, maximum: 60_000, default: 5 },
    REQUEST_TIMEOUT_MS: int(1, 3_600_000, 30000),
    MAX_CONCURRENT_REQUESTS: int(1, 1_000_000, 50),
    MAX_QUEUE: int(0, 10_000_000, 200),
    CACHE_SIZE: int(0, 100_000_000, 10000),
    CACHE_MAX_BYTES: int(0, 2 ** 40, 32 * 1024 * 1024),
    LABEL_NAMES: { type: 'string', minLength: 1 },
    LOG_LEVEL: { enum: ['debug', 'info', 'warn', 'error', 'silent'], default: 'info' },
    API_KEYS_FILE: { type: 'string', minLength: 1 },
    METRICS_REQUIRE_KEY: { type: 'boolean', default: false },
    STRICT_READINESS: { type: 'boolean', default: false },
    REDIS_URL: { type: 'string', pattern: '^rediss?://' },
    REDIS_TIMEOUT_MS: int(1, 60_000, 100),
    RATE_LIMIT_ON_STORE_ERROR: { enum: ['open', 'closed'], default: 'open' },
    WEBHOOK_URL: { type: 'string', pattern: '^https?://' },
    WEBHOOK_SECRET: { type: 'string', minLength: 1 },
    WEBHOOK_QUEUE_SIZE: int(1, 1_000_000, 1000),
    ...TRACING_PROPERTIES
  }
} as const

// validateSchema off: a fixed schema need not be checked against the meta-schema at every start.
const ajv = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true, strict: false, validateSchema: false })
const validate = ajv.compile(SCHEMA)

/**
 * Parses the environment. Relative MODEL_PATH / VECTORIZER_PATH resolve against `cwd`;
 * VECTORIZER_PATH may list several files separated by the platform's path delimiter.
 * @throws ServiceError ERR_CONFIG_INVALID naming each bad variable and why.
 */
export function parseConfig (env: NodeJS.ProcessEnv, cwd: string = process.cwd()): Readonly<Config> {
  const raw: Record<string, unknown> = {}
  for (const key of Object.keys(SCHEMA.properties)) {
    // An empty variable counts as unset, as shells and compose files often leave them.
    if (env[key] !== undefined && env[key] !== '') raw[key] = env[key]
  }
  const original = { ...raw }
  if (!validate(raw)) {
    const problems = (validate.errors ?? []).map(e => {
      const name = e.instancePath.slice(1)
      return `${name} ${e.message ?? 'is invalid'} (got ${JSON.stringify(original[name])})`
    })
    throw new ServiceError('ERR_CONFIG_INVALID', `invalid configuration: ${problems.join('; ')}`)
  }
  const v = raw as Record<string, unknown>
  const labelNames = typeof v.LABEL_NAMES === 'string' ? v.LABEL_NAMES.split(',').map(s => s.trim()) : null
  if (labelNames?.some(n => n === '') === true) {
    throw new ServiceError('ERR_CONFIG_INVALID', `invalid configuration: LABEL_NAMES has an empty name (got ${JSON.stringify(v.LABEL_NAMES)})`)
  }
  if (v.GRPC_PORT !== undefined && v.GRPC_PORT !== 0 && v.GRPC_PORT === v.PORT) {
    throw new ServiceError('ERR_CONFIG_INVALID', `invalid configuration: GRPC_PORT must differ from PORT (both ${String(v.PORT)})`)
  }
  const config: Config = {
    port: v.PORT as number,
    host: v.HOST as string,
    grpcPort: (v.GRPC_PORT as number | undefined) ?? null,
    grpcHost: (v.GRPC_HOST as string | undefined) ?? (v.HOST as string),
    ...modelPathsFromEnv(env, cwd),
    modelRepository: typeof v.MODEL_REPOSITORY === 'string' ? path.resolve(cwd, v.MODEL_REPOSITORY) : null,
    defaultModel: typeof v.DEFAULT_MODEL === 'string' ? v.DEFAULT_MODEL : null,
    modelDir: typeof v.MODEL_DIR === 'string' ? path.resolve(cwd, v.MODEL_DIR) : null,
    modelName: typeof v.MODEL_NAME === 'string' ? v.MODEL_NAME : 'default',
    modelPollSeconds: v.MODEL_POLL_SECONDS as number,
    modelCacheDir: typeof v.MODEL_CACHE_DIR === 'string' ? path.resolve(cwd, v.MODEL_CACHE_DIR) : null,
    maxBatchSize: v.MAX_BATCH_SIZE as number,
    maxTextLength: v.MAX_TEXT_LENGTH as number,
    enableMetrics: v.ENABLE_METRICS as boolean,
    workers: (v.WORKERS as number | undefined) ?? availableParallelism(),
    predictionTimeoutMs: v.PREDICTION_TIMEOUT_MS as number,
    queueTimeoutMs: (v.QUEUE_TIMEOUT_MS as number | undefined) ?? v.PREDICTION_TIMEOUT_MS as number,
    adaptiveBatch: Object.freeze({ maxTexts: v.ADAPTIVE_BATCH_MAX_TEXTS as number, maxWaitMs: v.ADAPTIVE_BATCH_MAX_WAIT_MS as number }),
    requestTimeoutMs: v.REQUEST_TIMEOUT_MS as number,
    maxConcurrentRequests: v.MAX_CONCURRENT_REQUESTS as number,
    maxQueue: v.MAX_QUEUE as number,
    cacheSize: v.CACHE_SIZE as number,
    cacheMaxBytes: v.CACHE_MAX_BYTES as number,
    labelNames: labelNames === null ? null : Object.freeze(labelNames),
    logLevel: v.LOG_LEVEL as LogLevel,
    apiKeysFile: typeof v.API_KEYS_FILE === 'string' ? path.resolve(cwd, v.API_KEYS_FILE) : null,
    metricsRequireKey: v.METRICS_REQUIRE_KEY as boolean,
    strictReadiness: v.STRICT_READINESS as boolean,
    redisUrl: (v.REDIS_URL as string | undefined) ?? null,
    redisTimeoutMs: v.REDIS_TIMEOUT_MS as number,
    rateLimitOnStoreError: v.RATE_LIMIT_ON_STORE_ERROR as 'open' | 'closed',
    webhookUrl: (v.WEBHOOK_URL as string | undefined) ?? null,
    webhookSecret: (v.WEBHOOK_SECRET as string | undefined) ?? null,
    webhookQueueSize: v.WEBHOOK_QUEUE_SIZE as number,
    tracing: tracingConfig(v)
  }
  return Object.freeze({ ...config, vectorizerPaths: Object.freeze([...config.vectorizerPaths]) })
}
