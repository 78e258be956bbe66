/**
 * Tracing over the OpenTelemetry SDK: a tracer provider with the configured sampler and
 * resource, a batch span processor with a bounded queue, and the OTLP/HTTP (protobuf) trace
 * exporter. Spans are made by hand at the service's own entry points (no instrumentation
 * library, no context manager): a request's span continues the caller's W3C trace context,
 * and every span under it is given its parent explicitly, with the times the code measured.
 * Imported only by start.ts, and only when tracing is configured.
 */
import { hostname } from 'node:os'
import type { IncomingMessage } from 'node:http'
import { defaultTextMapGetter, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type TextMapGetter, type Tracer } from '@opentelemetry/api'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources'
import { AlwaysOffSampler, AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider, type Sampler } from '@opentelemetry/sdk-trace'
import {
  ATTR_CLIENT_ADDRESS, ATTR_ERROR_TYPE, ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_REQUEST_METHOD_ORIGINAL, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PEER_ADDRESS, ATTR_NETWORK_PEER_PORT, ATTR_NETWORK_PROTOCOL_VERSION, ATTR_RPC_METHOD, ATTR_RPC_STATUS_CODE, ATTR_RPC_SYSTEM_NAME,
  ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT, ATTR_URL_PATH, ATTR_URL_SCHEME, ATTR_USER_AGENT_ORIGINAL
} from '@opentelemetry/semantic-conventions'
import type { Logger } from '../logger.js'
import type { RepositoryEvent } from '../repository/model-repository.js'
import type { TracingConfig } from './settings.js'
import { SpanCounts } from './span-counts.js'
import type { GrpcCallStart, RequestOutcome, RequestTrace, SpanAttributes, SpanOutcome, TraceSpan, Tracing } from './tracing.js'

/** The tracer's name (the instrumentation scope spans carry). */
const SCOPE = 'tfidf-serve'

function samplerOf (config: TracingConfig): Sampler {
  const ratio = (): Sampler => new TraceIdRatioBasedSampler(config.samplerRatio)
  switch (config.sampler) {
    case 'always_on': return new AlwaysOnSampler()
    case 'always_off': return new AlwaysOffSampler()
    case 'traceidratio': return ratio()
    case 'parentbased_always_on': return new ParentBasedSampler({ root: new AlwaysOnSampler() })
    case 'parentbased_always_off': return new ParentBasedSampler({ root: new AlwaysOffSampler() })
    case 'parentbased_traceidratio': return new ParentBasedSampler({ root: ratio() })
  }
}

/** Attributes without the undefined ones (the SDK skips them too, but warns on nothing else). */
function defined (attributes: SpanAttributes | undefined): Attributes | undefined {
  if (attributes === undefined) return undefined
  const out: Attributes = {}
  for (const key in attributes) if (attributes[key] !== undefined) out[key] = attributes[key]
  return out
}

function endSpan (span: Span, outcome: SpanOutcome | undefined, endedAt: number): void {
  if (outcome !== undefined) {
    const attributes = defined(outcome.attributes)
    if (attributes !== undefined) span.setAttributes(attributes)
    if (outcome.error !== undefined) span.setAttribute(ATTR_ERROR_TYPE, outcome.error)
    if (outcome.failed ?? outcome.error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error })
  }
  span.end(endedAt)
}

class OtelSpan implements TraceSpan {
  protected readonly tracer: Tracer
  protected readonly span: Span
  readonly #context: Context

  constructor (tracer: Tracer, span: Span) {
    this.tracer = tracer
    this.span = span
    this.#context = trace.setSpan(ROOT_CONTEXT, span)
  }

  record (name: string, startedAt: number, endedAt: number, attributes?: SpanAttributes, outcome?: SpanOutcome): void {
    endSpan(this.tracer.startSpan(name, { startTime: startedAt, attributes: defined(attributes) }, this.#context), outcome, endedAt)
  }

  start (name: string, attributes?: SpanAttributes, startedAt: number = performance.now()): TraceSpan {
    return new OtelSpan(this.tracer, this.tracer.startSpan(name, { startTime: startedAt, attributes: defined(attributes) }, this.#context))
  }

  set (attributes: SpanAttributes): void {
    this.span.setAttributes(defined(attributes)!)
  }

  end (outcome?: SpanOutcome): void {
    endSpan(this.span, outcome, outcome?.endedAt ?? performance.now())
  }
}

/** gRPC status codes a server span counts as its own failure (the RPC conventions' list). */
const GRPC_SERVER_ERRORS = new Set([2, 4, 12, 13, 14, 15])
const GRPC_CODE_NAMES = ['OK', 'CANCELLED', 'UNKNOWN', 'INVALID_ARGUMENT', 'DEADLINE_EXCEEDED', 'NOT_FOUND', 'ALREADY_EXISTS', 'PERMISSION_DENIED', 'RESOURCE_EXHAUSTED', 'FAILED_PRECONDITION', 'ABORTED', 'OUT_OF_RANGE', 'UNIMPLEMENTED', 'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS', 'UNAUTHENTICATED']

class OtelRequest extends OtelSpan implements RequestTrace {
  readonly traceId: string
  readonly spanId: string
  readonly traceparent: string
  readonly #method: string

  constructor (tracer: Tracer, span: Span, method: string) {
    super(tracer, span)
    const { traceId, spanId, traceFlags } = span.spanContext()
    this.traceId = traceId
    this.spanId = spanId
    this.traceparent = `00-${traceId}-${spanId}-0${(traceFlags & 0xff).toString(16)}`
    this.#method = method
  }

  finish (outcome: RequestOutcome): void {
    if ('grpcCode' in outcome) {
      const name = GRPC_CODE_NAMES[outcome.grpcCode] ?? String(outcome.grpcCode)
      this.span.setAttribute(ATTR_RPC_STATUS_CODE, name)
      const failed = GRPC_SERVER_ERRORS.has(outcome.grpcCode)
      endSpan(this.span, { error: outcome.error ?? (outcome.grpcCode === 0 ? undefined : name), failed }, performance.now())
      return
    }
    if (outcome.route !== undefined) {
      this.span.setAttribute(ATTR_HTTP_ROUTE, outcome.route)
      this.span.updateName(`${this.#method} ${outcome.route}`)
    }
    if (outcome.status === 'aborted') {
      // The client left before the answer was sent whole: not a failure of ours.
      endSpan(this.span, { error: 'aborted', failed: false }, performance.now())
      return
    }
    this.span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, outcome.status)
    const error = outcome.error ?? (outcome.status >= 400 ? String(outcome.status) : undefined)
    // A server span fails on 5xx only; a 4xx is the client's (the HTTP conventions).
    endSpan(this.span, { error, failed: outcome.status >= 500 }, performance.now())
  }
}

const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH'])

/** The host part of a Host header (an IPv6 literal keeps its brackets off). */
function hostOf (host: string | undefined): string | undefined {
  if (host === undefined) return undefined
  const m = /^\[([^\]]+)\]|^([^:]+)/.exec(host)
  return m?.[1] ?? m?.[2]
}

/** A gRPC peer ('1.2.3.4:5678', '[::1]:5678', 'ipv4:...') as address and port. */
function peerOf (peer: string): { address: string | undefined, port: number | undefined } {
  const m = /^(?:ipv[46]:)?\[?([^\]]*?)\]?:(\d+)$/.exec(peer)
  return m === null ? { address: peer === '' ? undefined : peer, port: undefined } : { address: m[1], port: Number(m[2]) }
}

const metadataGetter = (get: (key: string) => string | undefined): TextMapGetter<null> => ({
  keys: () => ['traceparent', 'tracestate'],
  get: (_carrier, key) => get(key)
})

export class OtelTracing implements Tracing {
  readonly #provider: TracerProvider
  readonly #tracer: Tracer
  readonly #propagator = new W3CTraceContextPropagator()
  readonly #counts: SpanCounts

  constructor (config: TracingConfig, logger: Logger) {
    this.#counts = new SpanCounts((failing, why) => {
      if (failing) logger.warn(`trace export to ${config.endpoint} failing (${why}); spans are dropped and counted until it works again`)
      else logger.info(`trace export to ${config.endpoint} works again`)
    })
    const exporter = new OTLPTraceExporter({ url: config.endpoint })
    const processor = new BatchSpanProcessor({
      exporter,
      maxQueueSize: config.maxQueueSize,
      maxExportBatchSize: config.maxExportBatchSize,
      scheduledDelayMillis: config.scheduleDelayMs,
      exportTimeoutMillis: config.exportTimeoutMs,
      selfObsMeterProvider: this.#counts
    })
    this.#provider = new TracerProvider({
      sampler: samplerOf(config),
      resource: defaultResource().merge(resourceFromAttributes({ 'host.name': hostname(), 'process.pid': process.pid, ...config.resource })),
      spanProcessors: [processor]
    })
    this.#tracer = this.#provider.getTracer(SCOPE)
  }

  /** The server span under the context `carrier` carries; undefined when the sampler does not record it. */
  #startServer<C> (name: string, carrier: C, getter: TextMapGetter<C>, startedAt: number): Span | undefined {
    const parent = this.#propagator.extract(ROOT_CONTEXT, carrier, getter)
    // No attributes yet: a span the sampler drops costs as little as it can.
    const span = this.#tracer.startSpan(name, { kind: SpanKind.SERVER, startTime: startedAt }, parent)
    return span.isRecording() ? span : undefined
  }

  startHttp (req: IncomingMessage, startedAt: number): RequestTrace | undefined {
    const known = HTTP_METHODS.has(req.method ?? '')
    const method = known ? req.method! : '_OTHER'
    const span = this.#startServer(method === '_OTHER' ? 'HTTP' : method, req.headers, defaultTextMapGetter, startedAt)
    if (span === undefined) return undefined
    const url = req.url ?? '/'
    const query = url.indexOf('?')
    const socket = req.socket
    span.setAttributes(defined({
      [ATTR_HTTP_REQUEST_METHOD]: method,
      [ATTR_HTTP_REQUEST_METHOD_ORIGINAL]: known ? undefined : req.method,
      [ATTR_URL_PATH]: query < 0 ? url : url.slice(0, query),
      [ATTR_URL_SCHEME]: 'http',
      [ATTR_NETWORK_PROTOCOL_VERSION]: req.httpVersion,
      [ATTR_SERVER_ADDRESS]: hostOf(req.headers.host),
      [ATTR_SERVER_PORT]: socket.localPort,
      [ATTR_CLIENT_ADDRESS]: socket.remoteAddress,
      [ATTR_NETWORK_PEER_ADDRESS]: socket.remoteAddress,
      [ATTR_NETWORK_PEER_PORT]: socket.remotePort,
      [ATTR_USER_AGENT_ORIGINAL]: req.headers['user-agent']
    })!)
    return new OtelRequest(this.#tracer, span, method === '_OTHER' ? 'HTTP' : method)
  }

  startGrpc (call: GrpcCallStart): RequestTrace | undefined {
    const rpc = `${call.service}/${call.method}`
    const span = this.#startServer(rpc, null, metadataGetter(call.metadata), call.startedAt)
    if (span === undefined) return undefined
    const peer = peerOf(call.peer())
    span.setAttributes(defined({
      [ATTR_RPC_SYSTEM_NAME]: 'grpc',
      [ATTR_RPC_METHOD]: rpc,
      [ATTR_NETWORK_PEER_ADDRESS]: peer.address,
      [ATTR_NETWORK_PEER_PORT]: peer.port
    })!)
    return new OtelRequest(this.#tracer, span, rpc)
  }

  modelEvent (event: RepositoryEvent): void {
    const endedAt = performance.now()
    const name = event.kind === 'unloaded' ? 'model unload' : event.reload === true ? 'model reload' : 'model load'
    const span = this.#tracer.startSpan(name, {
      startTime: endedAt - (event.seconds ?? 0) * 1000,
      attributes: defined({ 'tfidf.model.name': event.model, 'tfidf.model.version': event.version ?? undefined, 'tfidf.model.event': event.kind })
    }, ROOT_CONTEXT)
    if (event.kind === 'load_failed') {
      span.setAttribute(ATTR_ERROR_TYPE, 'load_failed')
      span.setStatus({ code: SpanStatusCode.ERROR, message: event.reason })
    }
    span.end(endedAt)
  }

  readonly counts = (): ReturnType<Tracing['counts']> => this.#counts.counts

  async flush (): Promise<void> {
    await this.#provider.forceFlush()
  }

  async shutdown (timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<void>(resolve => { timer = setTimeout(resolve, timeoutMs) })
    await Promise.race([this.#provider.shutdown().catch(() => {}), late])
    clearTimeout(timer)
  }
}
