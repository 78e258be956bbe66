/**
 * Environment to a frozen, typed Config, once at boot (docs/http-api.md, "Settings"
 * and "Limits and timeouts"). One ajv schema (config-schema.ts) carries the defaults and coerces the strings;
 * every problem is reported at once, in one line, as ERR_CONFIG_INVALID.
 */
import { availableParallelism } from 'node:os'
import path from 'node:path'
import { ServiceError } from './errors.js'
import { modelPathsFromEnv } from './paths.js'
import { tracingConfig, type TracingConfig } from './tracing/settings.js'
import { SCHEMA } from './config-schema.js'
import { validate as compiledValidate } from './config-validate.js'
import type { ValidateFunction } from 'ajv'

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
  /** MODEL_NAME: the name the one model (MODEL_PATH's or MODEL_DIR's) is served under; null: its settings' `name`, else `default`. */
  readonly modelName: string | null
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

// The schema's validator as ajv compiles it (config-validate.ts), compiled when it changes
// rather than at every start: ajv's compiler stays out of the front thread's start until the
// request bodies' schemas, which depend on the settings, need it.
const validate = compiledValidate as unknown as ValidateFunction

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
    modelName: typeof v.MODEL_NAME === 'string' ? v.MODEL_NAME : null,
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
