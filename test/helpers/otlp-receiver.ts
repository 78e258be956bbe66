/**
 * A real OTLP/HTTP trace receiver on 127.0.0.1, as a collector's `otlp` receiver listens on
 * 4318: it takes POST /v1/traces, decodes each ExportTraceServiceRequest with the
 * OpenTelemetry protocol's own definitions (../shared/reference/protocols/otlp, read by
 * @grpc/proto-loader when the first receiver starts, never at import)
 * and keeps the spans. Or a broken one: `hang` takes requests and never answers, `503`
 * answers every export 503; `refusing` is a port nothing listens on. `sink` (benchmarks)
 * answers every export at once and keeps nothing but counts.
 */
import { loadSync } from '@grpc/proto-loader'
import http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import { sharedPath } from './shared-data.js'
import { freePort } from './processes.js'

type Value = string | number | boolean | null | Value[]

export interface ReceivedSpan {
  readonly traceId: string
  readonly spanId: string
  /** '' for a root span. */
  readonly parentSpanId: string
  readonly name: string
  /** OTLP's SpanKind: 1 internal, 2 server. */
  readonly kind: number
  readonly startNs: bigint
  readonly endNs: bigint
  readonly attributes: Readonly<Record<string, Value>>
  /** OTLP's status: code 0 unset, 1 ok, 2 error. */
  readonly status: { readonly code: number, readonly message: string }
  readonly resource: Readonly<Record<string, Value>>
  readonly scope: string
  /** The W3C tracestate, serialised ('' for none). */
  readonly traceState: string
  /** OTLP's span flags: the W3C trace flags, 0x100 (it is known whether the parent is remote), 0x200 (it is). */
  readonly flags: number
}

export type ReceiverMode = 'ok' | 'hang' | '503' | 'sink'

export interface Receiver {
  readonly url: string
  readonly spans: ReceivedSpan[]
  /** Export requests received (answered or not). */
  readonly exports: () => number
  close: () => Promise<void>
}

interface AnyValue { string_value?: string, bool_value?: boolean, int_value?: string, double_value?: number, array_value?: { values?: AnyValue[] }, value?: string }
interface KeyValue { key: string, value?: AnyValue }

/** OTLP's reference definitions (../shared/REFERENCE-DATA.md). */
const OTLP_PROTOS = sharedPath('reference/protocols/otlp')

let decoder: ((b: Buffer) => unknown) | undefined
/** ExportTraceServiceRequest's decoder, from the reference files, read on first use. */
function decodeRequest (body: Buffer): unknown {
  decoder ??= requestDecoder()
  return decoder(body)
}

const requestDecoder = (): (b: Buffer) => unknown => (loadSync(path.join(OTLP_PROTOS, 'opentelemetry', 'proto', 'collector', 'trace', 'v1', 'trace_service.proto'), {
  includeDirs: [OTLP_PROTOS],
  keepCase: true,
  longs: String,
  enums: Number,
  defaults: true,
  oneofs: true
})['opentelemetry.proto.collector.trace.v1.TraceService'] as unknown as { Export: { requestDeserialize: (b: Buffer) => unknown } }).Export.requestDeserialize

function valueOf (v: AnyValue | undefined): Value {
  if (v === undefined) return null
  switch (v.value) {
    case 'string_value': return v.string_value!
    case 'bool_value': return v.bool_value!
    case 'int_value': return Number(v.int_value)
    case 'double_value': return v.double_value!
    case 'array_value': return (v.array_value?.values ?? []).map(valueOf)
    default: return null
  }
}

const attributesOf = (kvs: KeyValue[] | undefined): Record<string, Value> => Object.fromEntries((kvs ?? []).map(kv => [kv.key, valueOf(kv.value)]))
const hex = (b: Buffer | undefined): string => b === undefined ? '' : b.toString('hex')

interface Decoded {
  resource_spans: Array<{
    resource?: { attributes?: KeyValue[] }
    scope_spans?: Array<{
      scope?: { name?: string }
      spans?: Array<{ trace_id: Buffer, span_id: Buffer, parent_span_id: Buffer, trace_state?: string, flags?: number, name: string, kind: number, start_time_unix_nano: string, end_time_unix_nano: string, attributes?: KeyValue[], status?: { code?: number, message?: string } }>
    }>
  }>
}

/** The spans of one OTLP/HTTP protobuf export body. */
export function decodeSpans (body: Buffer): ReceivedSpan[] {
  const request = decodeRequest(body) as Decoded
  return request.resource_spans.flatMap(rs => {
    const resource = attributesOf(rs.resource?.attributes)
    return (rs.scope_spans ?? []).flatMap(ss => (ss.spans ?? []).map(s => ({
      traceId: hex(s.trace_id),
      spanId: hex(s.span_id),
      parentSpanId: hex(s.parent_span_id),
      name: s.name,
      kind: s.kind,
      startNs: BigInt(s.start_time_unix_nano),
      endNs: BigInt(s.end_time_unix_nano),
      attributes: attributesOf(s.attributes),
      status: { code: s.status?.code ?? 0, message: s.status?.message ?? '' },
      resource,
      scope: ss.scope?.name ?? '',
      traceState: s.trace_state ?? '',
      flags: s.flags ?? 0
    })))
  })
}

export async function startReceiver (mode: ReceiverMode = 'ok'): Promise<Receiver> {
  const spans: ReceivedSpan[] = []
  let exports = 0
  const sockets = new Set<Socket>()
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      exports++
      if (mode === 'hang') return
      if (mode === 'sink') {
        res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end()
        return
      }
      if (mode === '503') {
        res.writeHead(503, { 'Content-Type': 'text/plain' }).end('overloaded')
        return
      }
      if (req.method !== 'POST' || req.url !== '/v1/traces' || req.headers['content-type'] !== 'application/x-protobuf') {
        res.writeHead(400).end()
        return
      }
      let body = Buffer.concat(chunks)
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body)
      spans.push(...decodeSpans(body))
      // An empty ExportTraceServiceResponse.
      res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end()
    })
  })
  server.on('connection', socket => { sockets.add(socket); socket.on('close', () => sockets.delete(socket)) })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    exports: () => exports,
    close: async () => {
      for (const s of sockets) s.destroy()
      await new Promise(resolve => server.close(resolve))
    }
  }
}

/** An endpoint that refuses connections: a port free a moment ago, with nothing listening on it. */
export async function refusingEndpoint (): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`
}

/** Waits until `done()` holds, up to `ms`. */
export async function waitFor (done: () => boolean, ms = 10000): Promise<void> {
  const until = Date.now() + ms
  while (!done()) {
    if (Date.now() > until) throw new Error('timed out waiting')
    await new Promise(resolve => setTimeout(resolve, 20))
  }
}
