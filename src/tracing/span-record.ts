/**
 * A finished span as the front thread hands it to the export thread: plain data, cheap to
 * post (structured clone), with nothing of the SDK in it. The front thread records spans as
 * these (sampling, ids and W3C context are still the SDK's); the export thread turns them into
 * the SDK's ReadableSpan for its batch processor and OTLP exporter, so the protobuf encoding
 * and the HTTP export never run on the thread that answers requests.
 */
import type { TracingConfig } from './settings.js'

/** What the export thread is started with. */
export interface ExportThreadData {
  readonly config: TracingConfig
  /** The instrumentation scope's name the spans carry. */
  readonly scope: string
}
export interface SpanRecord {
  name: string
  /** @opentelemetry/api's SpanKind. */
  readonly kind: number
  readonly traceId: string
  readonly spanId: string
  /** The parent's span id; absent for a root span. */
  readonly parentSpanId: string | undefined
  /** The parent came from the caller (traceparent), not from this process. */
  readonly parentIsRemote: boolean
  readonly traceFlags: number
  /** The W3C tracestate, serialised. */
  readonly traceState: string | undefined
  /**
   * Times are the front thread's performance.now(); `offset` is what the SDK's span adds to
   * them (Date.now() against performance.now() + timeOrigin, read when its trace began), and
   * `timeOrigin` the front thread's, so the export thread computes the SDK's very timestamps.
   */
  readonly timeOrigin: number
  readonly offset: number
  readonly start: number
  end: number
  readonly attributes: Record<string, string | number | boolean>
  /** @opentelemetry/api's SpanStatusCode, and its message (for ERROR). */
  status: number
  message: string | undefined
}

/** What the front thread posts to the export thread. */
export type ToExportThread =
  | { readonly type: 'spans', readonly spans: SpanRecord[] }
  | { readonly type: 'flush', readonly id: number }
  | { readonly type: 'shutdown' }

/** Spans exported, dropped by the batch processor's full queue, and lost to failed exports. */
export interface ExportCounts {
  readonly exported: number
  readonly dropped: number
  readonly failed: number
}

/** What the export thread posts back. */
export type FromExportThread =
  | { readonly type: 'ready' }
  | { readonly type: 'taken', readonly n: number }
  | { readonly type: 'counts', readonly counts: ExportCounts }
  | { readonly type: 'log', readonly level: 'warn' | 'info', readonly message: string }
  | { readonly type: 'flushed', readonly id: number }
  | { readonly type: 'closed' }
