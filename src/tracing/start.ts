/**
 * Tracing's start: the OpenTelemetry SDK is imported here, dynamically, and only when the
 * configuration turns tracing on; otherwise no SDK module is loaded and the service holds no
 * Tracing at all.
 */
import type { Logger } from '../logger.js'
import type { TracingConfig } from './settings.js'
import type { Tracing } from './tracing.js'

export async function startTracing (config: TracingConfig | null, logger: Logger): Promise<Tracing | undefined> {
  if (config === null) return undefined
  const { OtelTracing } = await import('./otel-tracing.js')
  return await OtelTracing.start(config, logger)
}
