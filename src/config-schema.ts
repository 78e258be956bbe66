/**
 * The environment's JSON Schema (config.ts): each variable's type, bounds and default. Its
 * validator is compiled by ajv ahead of time into config-validate.ts
 * (`node scripts/generate-config-validator.mjs` after a change here; a test checks the two agree).
 */
import { TRACING_PROPERTIES } from './tracing/settings.js'

const int = (minimum: number, maximum: number, fallback?: number): Record<string, unknown> =>
  ({ type: 'integer', minimum, maximum, ...(fallback === undefined ? {} : { default: fallback }) })

export const SCHEMA = {
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
