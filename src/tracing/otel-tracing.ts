/**
 * Tracing over the OpenTelemetry SDK, in two threads. On the front thread, the SDK's sampler,
 * id generator and W3C propagator decide and name each span (spans are made by hand at the
 * service's own entry points: no instrumentation library, no context manager; a request's span
 * continues the caller's trace context and every span under it names its parent), and a span is
 * recorded as plain data (span-record.ts) with the times the code measured. The export thread
 * (export-thread.ts) turns those records into the SDK's spans for its batch span processor and
 * OTLP/HTTP exporter. Measured at batches of 128 spans, the SDK's own span costs about 4 us to
 * create and end and its protobuf encoding 5.5 us, on the thread that answers requests; a
 * record costs a fraction of that and its structured clone about 1 us. Imported only by
 * start.ts, and only when tracing is configured.
 */
import type { IncomingMessage } from 'node:http'
import { defaultTextMapGetter, isSpanContextValid, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type Context, type TextMapGetter } from '@opentelemetry/api'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, RandomIdGenerator, SamplingDecision, TraceIdRatioBasedSampler, type Sampler } from '@opentelemetry/sdk-trace'
import {
  ATTR_CLIENT_ADDRESS, ATTR_ERROR_TYPE, ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_REQUEST_METHOD_ORIGINAL, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PEER_ADDRESS, ATTR_NETWORK_PEER_PORT, ATTR_NETWORK_PROTOCOL_VERSION, ATTR_RPC_METHOD, ATTR_RPC_STATUS_CODE, ATTR_RPC_SYSTEM_NAME,
  ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT, ATTR_URL_PATH, ATTR_URL_SCHEME, ATTR_USER_AGENT_ORIGINAL
} from '@opentelemetry/semantic-conventions'
import type { Logger } from '../logger.js'
import type { RepositoryEvent } from '../repository/model-repository.js'
import type { TracingConfig } from './settings.js'
import type { SpanRecord } from './span-record.js'
import { SpanShipper } from './span-shipper.js'
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

/** Copies the defined attributes into `to` (the SDK skips undefined ones too). */
function assignDefined (to: Record<string, string | number | boolean>, attributes: SpanAttributes | Attributes | undefined): Record<string, string | number | boolean> {
  if (attributes !== undefined) {
    for (const key in attributes) {
      const value = attributes[key]
      if (value !== undefined && value !== null) to[key] = value as string | number | boolean
    }
  }
  return to
}

/** Ends a record as the SDK's span ends: the outcome's attributes, error.type, an ERROR status when it failed. */
function close (r: SpanRecord, outcome: SpanOutcome | undefined, endedAt: number): void {
  if (outcome !== undefined) {
    assignDefined(r.attributes, outcome.attributes)
    if (outcome.error !== undefined) r.attributes[ATTR_ERROR_TYPE] = outcome.error
    if (outcome.failed ?? outcome.error !== undefined) {
      r.status = SpanStatusCode.ERROR
      r.message = outcome.error
    }
  }
  r.end = endedAt
}

/** What every span of the process needs: where finished spans go, and span ids. */
interface Recorder {
  readonly shipper: SpanShipper
  readonly ids: RandomIdGenerator
}

/**
 * A span being recorded. Its children are recorded as the SDK records the children of a
 * sampled span: the same trace, flags and tracestate (every sampler the settings offer keeps
 * the children of a sampled span), a new span id, this span as parent.
 */
class RecordedSpan implements TraceSpan {
  protected readonly recorder: Recorder
  protected readonly span: SpanRecord
  #ended = false

  constructor (recorder: Recorder, span: SpanRecord) {
    this.recorder = recorder
    this.span = span
  }

  #child (name: string, startedAt: number, attributes: SpanAttributes | undefined): SpanRecord {
    const p = this.span
    return {
      name,
      kind: SpanKind.INTERNAL,
      traceId: p.traceId,
      spanId: this.recorder.ids.generateSpanId(),
      parentSpanId: p.spanId,
      parentIsRemote: false,
      traceFlags: p.traceFlags,
      traceState: p.traceState,
      timeOrigin: p.timeOrigin,
      offset: p.offset,
      start: startedAt,
      end: startedAt,
      attributes: assignDefined({}, attributes),
      status: SpanStatusCode.UNSET,
      message: undefined
    }
  }

  record (name: string, startedAt: number, endedAt: number, attributes?: SpanAttributes, outcome?: SpanOutcome): void {
    const child = this.#child(name, startedAt, attributes)
    close(child, outcome, endedAt)
    this.recorder.shipper.push(child)
  }

  start (name: string, attributes?: SpanAttributes, startedAt: number = performance.now()): TraceSpan {
    return new RecordedSpan(this.recorder, this.#child(name, startedAt, attributes))
  }

  set (attributes: SpanAttributes): void {
    assignDefined(this.span.attributes, attributes)
  }

  end (outcome?: SpanOutcome): void {
    // The SDK ignores a second end(), and so does this.
    if (this.#ended) return
    this.#ended = true
    close(this.span, outcome, outcome?.endedAt ?? performance.now())
    this.recorder.shipper.push(this.span)
  }
}

/** gRPC status codes a server span counts as its own failure (the RPC conventions' list). */
const GRPC_SERVER_ERRORS = new Set([2, 4, 12, 13, 14, 15])
const GRPC_CODE_NAMES = ['OK', 'CANCELLED', 'UNKNOWN', 'INVALID_ARGUMENT', 'DEADLINE_EXCEEDED', 'NOT_FOUND', 'ALREADY_EXISTS', 'PERMISSION_DENIED', 'RESOURCE_EXHAUSTED', 'FAILED_PRECONDITION', 'ABORTED', 'OUT_OF_RANGE', 'UNIMPLEMENTED', 'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS', 'UNAUTHENTICATED']

class RecordedRequest extends RecordedSpan implements RequestTrace {
  readonly traceId: string
  readonly spanId: string
  readonly traceparent: string
  readonly #method: string

  constructor (recorder: Recorder, span: SpanRecord, method: string) {
    super(recorder, span)
    this.traceId = span.traceId
    this.spanId = span.spanId
    this.traceparent = `00-${span.traceId}-${span.spanId}-0${(span.traceFlags & 0xff).toString(16)}`
    this.#method = method
  }

  finish (outcome: RequestOutcome): void {
    if ('grpcCode' in outcome) {
      const name = GRPC_CODE_NAMES[outcome.grpcCode] ?? String(outcome.grpcCode)
      this.span.attributes[ATTR_RPC_STATUS_CODE] = name
      const failed = GRPC_SERVER_ERRORS.has(outcome.grpcCode)
      this.end({ error: outcome.error ?? (outcome.grpcCode === 0 ? undefined : name), failed })
      return
    }
    if (outcome.route !== undefined) {
      this.span.attributes[ATTR_HTTP_ROUTE] = outcome.route
      this.span.name = `${this.#method} ${outcome.route}`
    }
    if (outcome.status === 'aborted') {
      // The client left before the answer was sent whole: not a failure of ours.
      this.end({ error: 'aborted', failed: false })
      return
    }
    this.span.attributes[ATTR_HTTP_RESPONSE_STATUS_CODE] = outcome.status
    const error = outcome.error ?? (outcome.status >= 400 ? String(outcome.status) : undefined)
    // A server span fails on 5xx only; a 4xx is the client's (the HTTP conventions).
    this.end({ error, failed: outcome.status >= 500 })
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
  readonly #recorder: Recorder
  readonly #sampler: Sampler
  readonly #propagator = new W3CTraceContextPropagator()

  private constructor (config: TracingConfig, shipper: SpanShipper) {
    this.#sampler = samplerOf(config)
    this.#recorder = { shipper, ids: new RandomIdGenerator() }
  }

  /** Tracing with its export thread started. */
  static async start (config: TracingConfig, logger: Logger): Promise<OtelTracing> {
    const shipper = await SpanShipper.start({ config, scope: SCOPE }, {
      warn: message => { logger.warn(message) },
      info: message => { logger.info(message) },
      error: message => { logger.error(message) }
    })
    return new OtelTracing(config, shipper)
  }

  /**
   * A root span (under `parent`'s remote span context, if valid), decided and named as the SDK's
   * tracer does: the parent's trace id or a new one, the sampler's decision, its tracestate or
   * the parent's. Undefined when the sampler does not record it.
   */
  #startRoot (name: string, kind: SpanKind, parent: Context, startedAt: number, attributes: Attributes): SpanRecord | undefined {
    const remote = trace.getSpanContext(parent)
    const valid = remote !== undefined && isSpanContextValid(remote)
    const traceId = valid ? remote.traceId : this.#recorder.ids.generateTraceId()
    const sampled = this.#sampler.shouldSample(parent, traceId, name, kind, attributes, [])
    if (sampled.decision === SamplingDecision.NOT_RECORD) return undefined
    const traceState = sampled.traceState ?? (valid ? remote.traceState : undefined)
    return {
      name,
      kind,
      traceId,
      spanId: this.#recorder.ids.generateSpanId(),
      parentSpanId: valid ? remote.spanId : undefined,
      parentIsRemote: valid && remote.isRemote === true,
      traceFlags: sampled.decision === SamplingDecision.RECORD_AND_SAMPLED ? TraceFlags.SAMPLED : TraceFlags.NONE,
      traceState: traceState?.serialize(),
      timeOrigin: performance.timeOrigin,
      // What the SDK's span adds to performance times (its _performanceOffset).
      offset: Date.now() - (performance.now() + performance.timeOrigin),
      start: startedAt,
      end: startedAt,
      attributes: assignDefined(assignDefined({}, attributes), sampled.attributes),
      status: SpanStatusCode.UNSET,
      message: undefined
    }
  }

  /** The server span under the context `carrier` carries; undefined when the sampler does not record it. */
  #startServer<C> (name: string, carrier: C, getter: TextMapGetter<C>, startedAt: number): SpanRecord | undefined {
    // No attributes yet: a span the sampler drops costs as little as it can.
    return this.#startRoot(name, SpanKind.SERVER, this.#propagator.extract(ROOT_CONTEXT, carrier, getter), startedAt, {})
  }

  startHttp (req: IncomingMessage, startedAt: number): RequestTrace | undefined {
    const known = HTTP_METHODS.has(req.method ?? '')
    const method = known ? req.method! : '_OTHER'
    const span = this.#startServer(method === '_OTHER' ? 'HTTP' : method, req.headers, defaultTextMapGetter, startedAt)
    if (span === undefined) return undefined
    const url = req.url ?? '/'
    const query = url.indexOf('?')
    const socket = req.socket
    assignDefined(span.attributes, {
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
    })
    return new RecordedRequest(this.#recorder, span, method === '_OTHER' ? 'HTTP' : method)
  }

  startGrpc (call: GrpcCallStart): RequestTrace | undefined {
    const rpc = `${call.service}/${call.method}`
    const span = this.#startServer(rpc, null, metadataGetter(call.metadata), call.startedAt)
    if (span === undefined) return undefined
    const peer = peerOf(call.peer())
    assignDefined(span.attributes, {
      [ATTR_RPC_SYSTEM_NAME]: 'grpc',
      [ATTR_RPC_METHOD]: rpc,
      [ATTR_NETWORK_PEER_ADDRESS]: peer.address,
      [ATTR_NETWORK_PEER_PORT]: peer.port
    })
    return new RecordedRequest(this.#recorder, span, rpc)
  }

  modelEvent (event: RepositoryEvent): void {
    const endedAt = performance.now()
    const name = event.kind === 'unloaded' ? 'model unload' : event.reload === true ? 'model reload' : 'model load'
    const attributes = assignDefined({}, { 'tfidf.model.name': event.model, 'tfidf.model.version': event.version ?? undefined, 'tfidf.model.event': event.kind })
    const span = this.#startRoot(name, SpanKind.INTERNAL, ROOT_CONTEXT, endedAt - (event.seconds ?? 0) * 1000, attributes)
    if (span === undefined) return
    close(span, event.kind === 'load_failed' ? { error: 'load_failed' } : undefined, endedAt)
    // The span's status message is the reason, not the code.
    if (event.kind === 'load_failed') span.message = event.reason
    this.#recorder.shipper.push(span)
  }

  readonly counts = (): ReturnType<Tracing['counts']> => this.#recorder.shipper.counts

  async flush (): Promise<void> {
    await this.#recorder.shipper.flush()
  }

  async shutdown (timeoutMs: number): Promise<void> {
    await this.#recorder.shipper.shutdown(timeoutMs)
  }
}
