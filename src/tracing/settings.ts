/**
 * Tracing's settings: OpenTelemetry's own environment variables (the SDK specification's
 * names and defaults), read with the rest of the configuration so that a bad value stops
 * start-up with the same one line. Tracing is on only when an OTLP endpoint is named
 * (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or OTEL_EXPORTER_OTLP_ENDPOINT), and off again with
 * OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none. This module loads no SDK.
 */
import { ServiceError } from '../errors.js'

export type TraceSampler = 'always_on' | 'always_off' | 'traceidratio' | 'parentbased_always_on' | 'parentbased_always_off' | 'parentbased_traceidratio'

export interface TracingConfig {
  /** Where spans are POSTed (OTLP/HTTP, protobuf): the traces endpoint as given, or the base endpoint + v1/traces. */
  readonly endpoint: string
  /** OTEL_RESOURCE_ATTRIBUTES, with service.name from OTEL_SERVICE_NAME (default tfidf-serve). */
  readonly resource: Readonly<Record<string, string>>
  readonly sampler: TraceSampler
  /** OTEL_TRACES_SAMPLER_ARG: the share of traces kept by the ratio samplers (default 1). */
  readonly samplerRatio: number
  /** OTEL_BSP_MAX_QUEUE_SIZE: spans waiting for export; past it, new spans are dropped (and counted). */
  readonly maxQueueSize: number
  readonly maxExportBatchSize: number
  readonly scheduleDelayMs: number
  /** OTEL_BSP_EXPORT_TIMEOUT: the longest one export may take before the processor gives up on it. */
  readonly exportTimeoutMs: number
}

const int = (minimum: number, maximum: number, fallback: number): Record<string, unknown> => ({ type: 'integer', minimum, maximum, default: fallback })

/** The variables, as properties of the configuration's JSON schema (src/config.ts). */
export const TRACING_PROPERTIES = {
  OTEL_SDK_DISABLED: { type: 'boolean', default: false },
  OTEL_TRACES_EXPORTER: { enum: ['otlp', 'none'], default: 'otlp' },
  OTEL_EXPORTER_OTLP_ENDPOINT: { type: 'string', pattern: '^https?://' },
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: { type: 'string', pattern: '^https?://' },
  OTEL_SERVICE_NAME: { type: 'string', minLength: 1 },
  OTEL_RESOURCE_ATTRIBUTES: { type: 'string' },
  OTEL_TRACES_SAMPLER: { enum: ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'], default: 'parentbased_always_on' },
  OTEL_TRACES_SAMPLER_ARG: { type: 'number', minimum: 0, maximum: 1, default: 1 },
  OTEL_BSP_MAX_QUEUE_SIZE: int(1, 1_000_000, 2048),
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: int(1, 1_000_000, 512),
  OTEL_BSP_SCHEDULE_DELAY: int(0, 3_600_000, 5000),
  OTEL_BSP_EXPORT_TIMEOUT: int(1, 3_600_000, 30000)
} as const

function invalid (message: string): ServiceError {
  return new ServiceError('ERR_CONFIG_INVALID', `invalid configuration: ${message}`)
}

/**
 * OTEL_RESOURCE_ATTRIBUTES: `key=value` pairs separated by commas, values percent-encoded
 * (the SDK specification's form).
 * @throws ServiceError ERR_CONFIG_INVALID for a pair without a key or '=', or a bad escape.
 */
export function parseResourceAttributes (text: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const pair of text.split(',')) {
    if (pair.trim() === '') continue
    const at = pair.indexOf('=')
    const key = at < 0 ? '' : pair.slice(0, at).trim()
    if (key === '') throw invalid(`OTEL_RESOURCE_ATTRIBUTES must be key=value pairs separated by commas (got ${JSON.stringify(pair)})`)
    try {
      out[key] = decodeURIComponent(pair.slice(at + 1).trim())
    } catch {
      throw invalid(`OTEL_RESOURCE_ATTRIBUTES has a value that is not percent-encoded UTF-8 (got ${JSON.stringify(pair)})`)
    }
  }
  return out
}

/** The spec's traces URL: the signal's own endpoint as given, else the base one with v1/traces added. */
function tracesEndpoint (traces: string | undefined, base: string | undefined): string | null {
  if (traces !== undefined) return traces
  if (base === undefined) return null
  return `${base}${base.endsWith('/') ? '' : '/'}v1/traces`
}

/**
 * Tracing's settings from the validated variables (defaults applied), or null when it is off.
 * @throws ServiceError ERR_CONFIG_INVALID for resource attributes that cannot be read, or a batch larger than the queue.
 */
export function tracingConfig (v: Readonly<Record<string, unknown>>): TracingConfig | null {
  const endpoint = tracesEndpoint(v.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as string | undefined, v.OTEL_EXPORTER_OTLP_ENDPOINT as string | undefined)
  if (endpoint === null || v.OTEL_SDK_DISABLED === true || v.OTEL_TRACES_EXPORTER === 'none') return null
  const attributes = parseResourceAttributes((v.OTEL_RESOURCE_ATTRIBUTES as string | undefined) ?? '')
  // OTEL_SERVICE_NAME wins over a service.name among the attributes (the specification's order).
  const serviceName = (v.OTEL_SERVICE_NAME as string | undefined) ?? attributes['service.name'] ?? 'tfidf-serve'
  const maxQueueSize = v.OTEL_BSP_MAX_QUEUE_SIZE as number
  const maxExportBatchSize = v.OTEL_BSP_MAX_EXPORT_BATCH_SIZE as number
  if (maxExportBatchSize > maxQueueSize) throw invalid(`OTEL_BSP_MAX_EXPORT_BATCH_SIZE (${maxExportBatchSize}) must not exceed OTEL_BSP_MAX_QUEUE_SIZE (${maxQueueSize})`)
  return Object.freeze({
    endpoint,
    resource: Object.freeze({ ...attributes, 'service.name': serviceName }),
    sampler: v.OTEL_TRACES_SAMPLER as TraceSampler,
    samplerRatio: v.OTEL_TRACES_SAMPLER_ARG as number,
    maxQueueSize,
    maxExportBatchSize,
    scheduleDelayMs: v.OTEL_BSP_SCHEDULE_DELAY as number,
    exportTimeoutMs: v.OTEL_BSP_EXPORT_TIMEOUT as number
  })
}
