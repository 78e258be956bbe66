/**
 * Tracing as the rest of the service sees it: a request's span and the spans under it, drawn
 * from times the code measured (performance.now()), and model lifecycle spans. Only types and
 * no SDK: the OpenTelemetry implementation (otel-tracing.ts) is imported by start.ts, and only
 * when tracing is configured; with it off the service holds no Tracing and every call site is
 * one `undefined` check.
 */
import type { IncomingMessage } from 'node:http'
import type { RepositoryEvent } from '../repository/model-repository.js'

/** Span attributes: never a text, never a key or its hash. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean | undefined>>

/** How a span ended: `error` (an error code, ERR_...) is recorded as error.type; `failed` sets its status to ERROR (default: when there is an error). */
export interface SpanOutcome {
  readonly error?: string
  readonly failed?: boolean
  readonly attributes?: SpanAttributes
  /** performance.now() when it ended (default: now). */
  readonly endedAt?: number
}

export interface TraceSpan {
  /** A child that started at `startedAt` and ended at `endedAt`, recorded whole. */
  record: (name: string, startedAt: number, endedAt: number, attributes?: SpanAttributes, outcome?: SpanOutcome) => void
  /** A child that starts now (or at `startedAt`) and ends with its own `end`. */
  start: (name: string, attributes?: SpanAttributes, startedAt?: number) => TraceSpan
  set: (attributes: SpanAttributes) => void
  end: (outcome?: SpanOutcome) => void
}

/** What a transport tells of an answered request: HTTP's status and route pattern, or gRPC's status code. */
export type RequestOutcome =
  | { readonly status: number | 'aborted', readonly route?: string, readonly error?: string }
  | { readonly grpcCode: number, readonly error?: string }

/** A sampled request's server span. */
export interface RequestTrace extends TraceSpan {
  readonly traceId: string
  readonly spanId: string
  /** The W3C traceparent of this span, for the answer. */
  readonly traceparent: string
  /** Ends the request's span with its transport's outcome. */
  finish: (outcome: RequestOutcome) => void
}

/** A gRPC call as its span needs it: the RPC, the caller's metadata, the peer. */
export interface GrpcCallStart {
  readonly service: string
  readonly method: string
  /** The first value of a metadata key (traceparent, tracestate), as a string. */
  readonly metadata: (key: string) => string | undefined
  /** The caller's address (read only for a sampled call). */
  readonly peer: () => string
  readonly startedAt: number
}

/** Spans the exporter sent, dropped (its queue full) and lost (an export failed), since start. */
export interface TraceCounts {
  readonly exported: number
  readonly dropped: number
  readonly failed: number
}

export interface Tracing {
  /** The server span of an HTTP request, continuing its traceparent/tracestate; undefined when the sampler drops it. */
  startHttp: (req: IncomingMessage, startedAt: number) => RequestTrace | undefined
  /** The server span of a gRPC call, continuing the traceparent/tracestate of its metadata; undefined when dropped. */
  startGrpc: (call: GrpcCallStart) => RequestTrace | undefined
  /** A model load, reload or unload that ended: a span of its own trace. */
  modelEvent: (event: RepositoryEvent) => void
  readonly counts: () => TraceCounts
  /** Exports every span ended so far (tests; shutdown). */
  flush: () => Promise<void>
  /** Exports what is left, within `timeoutMs`, and stops. Never rejects. */
  shutdown: (timeoutMs: number) => Promise<void>
}
