/**
 * Tracing against a real OTLP/HTTP receiver on 127.0.0.1 (test/helpers/otlp-receiver.ts
 * decodes the exporter's protobuf with the protocol's own definitions): a traced REST, V2 and
 * gRPC request each give a server span continuing the caller's trace, with the admission, the
 * worker tasks (and what the worker measured), the cache, the key check and its Redis round
 * trips under it; errors mark their spans; sampling off gives none; a collector that hangs,
 * refuses connections or answers 503 never slows an answer, and what is lost is counted.
 */
import { Metadata, type Client } from '@grpc/grpc-js'
import { expect } from 'chai'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { parseConfig, type Config } from '../../src/config.js'
import { createApp } from '../../src/http/app.js'
import { createServer } from '../../src/http/server.js'
import { loadServices } from '../../src/grpc/protos.js'
import { startGrpcServer, type ListeningGrpcServer } from '../../src/grpc/server.js'
import { createPino, loggerOf } from '../../src/logger.js'
import { ClassifierPool } from '../../src/pool/classifier-pool.js'
import { createService } from '../../src/service/create-service.js'
import type { ServiceContext } from '../../src/service/context.js'
import { startTracing } from '../../src/tracing/start.js'
import type { Tracing } from '../../src/tracing/tracing.js'
import { clientOf } from '../helpers/grpc-client.js'
import { writeKeyFile } from '../helpers/keys.js'
import { refusingEndpoint, startReceiver, waitFor, type ReceivedSpan, type Receiver } from '../helpers/otlp-receiver.js'
import { startRedis, type RedisServer } from '../helpers/processes.js'
import { HOOKED_WORKER } from '../helpers/service.js'

const SERVICES = loadServices()
const TEXT = 'a wonderful, moving film with a great cast'

interface Traced {
  readonly config: Readonly<Config>
  readonly context: ServiceContext
  readonly tracing: Tracing | undefined
  readonly port: number
  readonly grpc: ListeningGrpcServer | undefined
  readonly logged: Array<Record<string, unknown>>
  close: () => Promise<void>
}

/** The service in this process over its real HTTP server (and gRPC, if asked), configured by `env`. */
async function serve (env: Record<string, string>, options: { grpc?: boolean } = {}): Promise<Traced> {
  const config = parseConfig({ WORKERS: '2', LOG_LEVEL: 'info', OTEL_BSP_SCHEDULE_DELAY: '20', ...env })
  const logged: Array<Record<string, unknown>> = []
  const logger = loggerOf(createPino('info', { write: (line: string) => { logged.push(JSON.parse(line) as Record<string, unknown>) } }))
  const tracing = await startTracing(config.tracing, logger)
  const pool = await ClassifierPool.start({ ...config, workerFile: HOOKED_WORKER })
  const context = createService({ config, pool, logger, tracing })
  const server = createServer(createApp({ config, pool, context }), config)
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const grpc = options.grpc === true ? await startGrpcServer(context, 0, '127.0.0.1') : undefined
  return {
    config,
    context,
    tracing,
    port: (server.address() as AddressInfo).port,
    grpc,
    logged,
    close: async () => {
      await grpc?.close()
      server.closeAllConnections()
      await new Promise(resolve => server.close(resolve))
      await context.access?.close()
      await pool.close()
      await tracing?.shutdown(500)
    }
  }
}

interface Answer { status: number, headers: http.IncomingHttpHeaders, body: string, ms: number }

/** One HTTP request, timed from send to the end of the answer. */
async function send (port: number, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body)
  const started = performance.now()
  return await new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: { ...(payload === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers } }, res => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => { text += c })
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text, ms: performance.now() - started }))
    })
    req.on('error', reject)
    req.end(payload)
  })
}

const hex = (bytes: number): string => Array.from({ length: bytes }, () => Math.floor(Math.random() * 256).toString(16).padStart(2, '0')).join('')

/** A caller's span: a fresh trace id and span id, sampled or not. */
function caller (sampled = true): { traceId: string, spanId: string, traceparent: string } {
  const traceId = hex(16)
  const spanId = hex(8)
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-${sampled ? '01' : '00'}` }
}

/** The spans of `traceId` once the server span and `count` spans in all have arrived. */
async function traceOf (receiver: Receiver, tracing: Tracing | undefined, traceId: string, count: number): Promise<ReceivedSpan[]> {
  const of = (): ReceivedSpan[] => receiver.spans.filter(s => s.traceId === traceId)
  await tracing!.flush()
  await waitFor(() => of().length >= count).catch(() => { throw new Error(`spans of ${traceId}: ${JSON.stringify(of().map(s => s.name))}`) })
  return of()
}

const named = (spans: readonly ReceivedSpan[], name: string): ReceivedSpan[] => spans.filter(s => s.name === name)
const one = (spans: readonly ReceivedSpan[], name: string): ReceivedSpan => {
  const found = named(spans, name)
  expect(found, `${name} among ${JSON.stringify(spans.map(s => s.name))}`).to.have.length(1)
  return found[0]!
}

/** No attribute of any span holds a text sent or a key's secret. */
function expectNoSecrets (spans: readonly ReceivedSpan[], secrets: readonly string[]): void {
  const values = JSON.stringify(spans.map(s => [s.attributes, s.status.message, s.name]))
  for (const secret of secrets) expect(values).to.not.include(secret)
}

describe('tracing (OpenTelemetry, OTLP/HTTP)', function () {
  this.timeout(60000)
  let receiver: Receiver
  let service: Traced
  let inference: Client

  before(async () => {
    receiver = await startReceiver()
    service = await serve({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, CACHE_SIZE: '100', PREDICTION_TIMEOUT_MS: '300', QUEUE_TIMEOUT_MS: '2000' }, { grpc: true })
    inference = clientOf(SERVICES.inference, service.grpc!.port)
  })

  after(async () => {
    inference.close()
    await service.close()
    await receiver.close()
  })

  it('continues a REST request\'s trace: its server span, the cache, the admission and the worker task under it, and tells the caller its span', async () => {
    const c = caller()
    // The SDK's clock reads Date.now() (whole milliseconds) for a span's offset: a millisecond either side.
    const sentNs = BigInt(Date.now() - 1) * 1_000_000n
    const answer = await send(service.port, 'POST', '/predict', { text: TEXT }, { traceparent: c.traceparent, tracestate: 'vendor=1' })
    const answeredNs = BigInt(Date.now() + 2) * 1_000_000n
    expect(answer.status).to.equal(200)
    const spans = await traceOf(receiver, service.tracing, c.traceId, 4)
    const server = one(spans, 'POST /predict')
    // Sampled, its parent known to be remote (0x100) and remote (0x200), the caller's tracestate kept.
    expect(server).to.deep.include({ parentSpanId: c.spanId, kind: 2, scope: 'tfidf-serve', traceState: 'vendor=1', flags: 0x301 })
    // Wall-clock times, within the exchange as the client saw it.
    expect(server.startNs >= sentNs && server.endNs <= answeredNs, `${server.startNs}..${server.endNs} within ${sentNs}..${answeredNs}`).to.equal(true)
    expect(server.status.code).to.equal(0)
    expect(server.attributes).to.deep.include({ 'http.request.method': 'POST', 'http.route': '/predict', 'url.path': '/predict', 'url.scheme': 'http', 'http.response.status_code': 200, 'server.port': service.port, 'client.address': '127.0.0.1' })
    expect(server.resource['service.name']).to.equal('tfidf-serve')
    // The answer names the request's span, in the caller's trace.
    expect(answer.headers.traceparent).to.equal(`00-${c.traceId}-${server.spanId}-01`)
    const cache = one(spans, 'cache lookup')
    const admission = one(spans, 'admission')
    const task = one(spans, 'worker predict')
    for (const child of [cache, admission, task]) {
      expect(child.parentSpanId, child.name).to.equal(server.spanId)
      expect(child.kind, child.name).to.equal(1)
      expect(child.startNs >= server.startNs && child.endNs <= server.endNs, `${child.name} within the request`).to.equal(true)
      // The trace's flags and tracestate, its parent local.
      expect({ flags: child.flags, traceState: child.traceState }, child.name).to.deep.equal({ flags: 0x101, traceState: 'vendor=1' })
    }
    expect(cache.attributes).to.deep.include({ 'tfidf.texts': 1, 'tfidf.cache.misses': 1 })
    expect(task.attributes).to.deep.include({ 'tfidf.model.name': 'default', 'tfidf.model.version': '1', 'tfidf.texts': 1 })
    const { 'tfidf.worker.vectorize_ms': vectorize, 'tfidf.worker.score_ms': score, 'tfidf.worker.wait_ms': wait, 'tfidf.worker.run_ms': run } = task.attributes as Record<string, number>
    expect(vectorize).to.be.greaterThan(0)
    expect(score).to.be.greaterThan(0)
    // The worker's own phases fit within the task's time from hand-over to result (a busy front
    // thread may notice the start late, so not always within the run it saw).
    expect(vectorize + score).to.be.at.most(wait + run + 0.01)
    expectNoSecrets(spans, [TEXT, 'wonderful'])
    // The log line joins the trace.
    await waitFor(() => service.logged.some(l => l.msg === 'request' && l.trace_id === c.traceId))
    expect(service.logged.find(l => l.msg === 'request' && l.trace_id === c.traceId)).to.deep.include({ span_id: server.spanId, traceparent: c.traceparent, status: 200 })
  })

  it('draws one worker span per worker task of a batch (whole chunks, one task per free worker), and a cache hit needs no worker', async () => {
    const texts = Array.from({ length: 25 }, (_, i) => `review number ${i} was fine`)
    const c = caller()
    expect((await send(service.port, 'POST', '/batch_predict', { texts, batch_size: 10 }, { traceparent: c.traceparent })).status).to.equal(200)
    const spans = await traceOf(receiver, service.tracing, c.traceId, 5)
    // Three chunks of 10 over two free workers: chunks 1-2 in one task, chunk 3 in the other.
    expect(named(spans, 'worker predict').map(s => s.attributes['tfidf.texts']).sort()).to.deep.equal([20, 5])
    const again = caller()
    expect((await send(service.port, 'POST', '/batch_predict', { texts, batch_size: 10 }, { traceparent: again.traceparent })).status).to.equal(200)
    const cached = await traceOf(receiver, service.tracing, again.traceId, 2)
    expect(cached.map(s => s.name).sort()).to.deep.equal(['POST /batch_predict', 'cache lookup'])
    expect(one(cached, 'cache lookup').attributes).to.deep.include({ 'tfidf.texts': 25, 'tfidf.cache.misses': 0 })
  })

  it('continues a V2 REST inference\'s trace, with the worker\'s score task', async () => {
    const c = caller()
    const answer = await send(service.port, 'POST', '/v2/models/default/infer', { inputs: [{ name: 'text', shape: [2], datatype: 'BYTES', data: [TEXT, 'dull'] }] }, { traceparent: c.traceparent })
    expect(answer.status).to.equal(200)
    const spans = await traceOf(receiver, service.tracing, c.traceId, 3)
    const server = one(spans, 'POST /v2/models/:name/infer')
    expect(server).to.deep.include({ parentSpanId: c.spanId, kind: 2 })
    expect(server.attributes).to.deep.include({ 'http.route': '/v2/models/:name/infer', 'url.path': '/v2/models/default/infer', 'http.response.status_code': 200 })
    expect(answer.headers.traceparent).to.equal(`00-${c.traceId}-${server.spanId}-01`)
    const task = one(spans, 'worker predict')
    expect(task.parentSpanId).to.equal(server.spanId)
    expect(task.attributes).to.deep.include({ 'tfidf.model.name': 'default', 'tfidf.texts': 2 })
    expect(task.attributes['tfidf.worker.vectorize_ms']).to.be.a('number')
    expect(one(spans, 'admission').parentSpanId).to.equal(server.spanId)
    expectNoSecrets(spans, [TEXT, 'dull'])
  })

  it('continues a gRPC call\'s trace from its metadata, and answers with its own traceparent', async () => {
    const c = caller()
    const metadata = new Metadata()
    metadata.set('traceparent', c.traceparent)
    const answered = await new Promise<Metadata>((resolve, reject) => {
      const call = (inference as unknown as Record<string, (m: object, md: Metadata, cb: (err: Error | null) => void) => { on: (e: string, f: (md: Metadata) => void) => void }>).ModelInfer!.call(inference, {
        model_name: 'default',
        inputs: [{ name: 'text', datatype: 'BYTES', shape: [1], contents: { bytes_contents: [Buffer.from(TEXT)] } }]
      }, metadata, err => { if (err !== null) reject(err) })
      call.on('metadata', resolve)
    })
    const spans = await traceOf(receiver, service.tracing, c.traceId, 3)
    const server = one(spans, 'inference.GRPCInferenceService/ModelInfer')
    expect(server).to.deep.include({ parentSpanId: c.spanId, kind: 2 })
    expect(server.attributes).to.deep.include({ 'rpc.system.name': 'grpc', 'rpc.method': 'inference.GRPCInferenceService/ModelInfer', 'rpc.status_code': 'OK', 'network.peer.address': '127.0.0.1' })
    expect(answered.get('traceparent')).to.deep.equal([`00-${c.traceId}-${server.spanId}-01`])
    expect(one(spans, 'worker predict').parentSpanId).to.equal(server.spanId)
    expect(one(spans, 'admission').parentSpanId).to.equal(server.spanId)
    expectNoSecrets(spans, [TEXT])
    await waitFor(() => service.logged.some(l => l.msg === 'grpc call' && l.trace_id === c.traceId))
  })

  it('records a refusal by its error code, a client\'s error without failing the span, our own failure with status ERROR', async () => {
    const missing = caller()
    expect((await send(service.port, 'POST', '/models/nope/predict', { text: TEXT }, { traceparent: missing.traceparent })).status).to.equal(404)
    const notFound = one(await traceOf(receiver, service.tracing, missing.traceId, 1), 'POST /models/:name/predict')
    expect(notFound.attributes).to.deep.include({ 'error.type': 'ERR_NOT_FOUND', 'http.response.status_code': 404 })
    expect(notFound.status.code).to.equal(0)

    // The hooked worker sleeps past PREDICTION_TIMEOUT_MS (300): 503, the task failed.
    const slow = caller()
    expect((await send(service.port, 'POST', '/predict', { text: '__sleep_1000__' }, { traceparent: slow.traceparent })).status).to.equal(503)
    const spans = await traceOf(receiver, service.tracing, slow.traceId, 3)
    const server = one(spans, 'POST /predict')
    expect(server.attributes).to.deep.include({ 'error.type': 'ERR_PREDICTION_TIMEOUT', 'http.response.status_code': 503 })
    expect(server.status.code).to.equal(2)
    const task = one(spans, 'worker predict')
    expect(task.status.code).to.equal(2)
    expect(task.attributes['error.type']).to.equal('task_failed')

    const grpcMissing = caller()
    const metadata = new Metadata()
    metadata.set('traceparent', grpcMissing.traceparent)
    await new Promise<void>(resolve => { (inference as unknown as Record<string, (m: object, md: Metadata, cb: () => void) => void>).ModelInfer!.call(inference, { model_name: 'nope', inputs: [] }, metadata, () => resolve()) })
    const rpc = one(await traceOf(receiver, service.tracing, grpcMissing.traceId, 1), 'inference.GRPCInferenceService/ModelInfer')
    expect(rpc.attributes).to.deep.include({ 'rpc.status_code': 'NOT_FOUND', 'error.type': 'ERR_NOT_FOUND' })
    expect(rpc.status.code).to.equal(0)
  })

  it('starts a trace of its own for a request with no traceparent (the default sampler keeps every root)', async () => {
    const answer = await send(service.port, 'GET', '/health')
    const traceparent = String(answer.headers.traceparent)
    expect(traceparent).to.match(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
    const [, traceId, spanId] = traceparent.split('-')
    const server = one(await traceOf(receiver, service.tracing, traceId!, 1), 'GET /health')
    expect(server).to.deep.include({ spanId, parentSpanId: '' })
  })

  it('counts what it exported in Prometheus', async () => {
    await service.tracing!.flush()
    const metrics = (await send(service.port, 'GET', '/metrics?format=prometheus')).body
    const exported = Number(/^tfidf_trace_spans_exported_total (\d+)/m.exec(metrics)?.[1])
    expect(exported).to.be.greaterThan(10)
    expect(metrics).to.match(/^tfidf_trace_spans_dropped_total 0$/m)
    expect(metrics).to.match(/^tfidf_trace_spans_failed_total 0$/m)
  })
})

describe('tracing: adaptive batching', function () {
  this.timeout(60000)

  it('draws a request\'s texts sent in a gathered task as its own worker span, marked gathered', async () => {
    const receiver = await startReceiver()
    const service = await serve({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, ADAPTIVE_BATCH_MAX_TEXTS: '64', ADAPTIVE_BATCH_MAX_WAIT_MS: '2' })
    try {
      const c = caller()
      const answer = await send(service.port, 'POST', '/batch_predict', { texts: ['one fine film', 'a dull one', 'and a third'], batch_size: 2 }, { traceparent: c.traceparent })
      expect(answer.status).to.equal(200)
      const spans = await traceOf(receiver, service.tracing, c.traceId, 5)
      const server = one(spans, 'POST /batch_predict')
      const tasks = named(spans, 'worker predict')
      expect(tasks.map(t => t.attributes['tfidf.texts']).sort()).to.deep.equal([1, 2])
      for (const t of tasks) {
        expect(t.parentSpanId).to.equal(server.spanId)
        expect(t.attributes).to.deep.include({ 'tfidf.worker.gathered': true, 'tfidf.model.name': 'default' })
        expect(t.status.code).to.equal(0)
      }
    } finally {
      await service.close()
      await receiver.close()
    }
  })
})

describe('tracing: key checks and their Redis round trips', function () {
  this.timeout(60000)
  let receiver: Receiver
  let redis: RedisServer
  let service: Traced
  const keys = writeKeyFile([{ id: 'reader', scopes: ['predict'], limits: { requests_per_second: 1000, texts_per_second: 1000, texts_per_day: 100000 } }])

  before(async () => {
    receiver = await startReceiver()
    redis = await startRedis()
    service = await serve({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, API_KEYS_FILE: keys.file, REDIS_URL: redis.url, REDIS_TIMEOUT_MS: '1000' })
    await service.context.access!.ready(5000)
  })

  after(async () => {
    await service.close()
    await redis.kill()
    await receiver.close()
  })

  it('draws the key check and the text charge, each with its calls to Redis, never the key or its hash', async () => {
    const c = caller()
    const secret = keys.secrets.reader!
    expect((await send(service.port, 'POST', '/predict', { text: TEXT }, { traceparent: c.traceparent, authorization: `Bearer ${secret}` })).status).to.equal(200)
    const spans = await traceOf(receiver, service.tracing, c.traceId, 8)
    const server = one(spans, 'POST /predict')
    const check = one(spans, 'access check')
    const charge = one(spans, 'access charge')
    expect([check.parentSpanId, charge.parentSpanId]).to.deep.equal([server.spanId, server.spanId])
    expect(check.attributes).to.deep.include({ 'tfidf.access.scope': 'predict', 'tfidf.access.outcome': 'allowed' })
    expect(charge.attributes).to.deep.include({ 'tfidf.texts': 1, 'tfidf.access.outcome': 'allowed' })
    const calls = spans.filter(s => s.name.startsWith('redis rate_limit '))
    expect(calls.map(s => [s.name, s.parentSpanId]).sort()).to.deep.equal([
      ['redis rate_limit daily', charge.spanId],
      ['redis rate_limit requests', check.spanId],
      ['redis rate_limit texts', charge.spanId]
    ].sort())
    for (const call of calls) expect(call.attributes).to.deep.include({ 'db.system.name': 'redis' })
    const { hashSecret } = await import('../../src/access/secret.js')
    expectNoSecrets(spans, [secret, hashSecret(secret).toString('hex'), hashSecret(secret).toString('base64'), TEXT])
  })

  it('marks a refused key by its code, the client\'s fault and not the span\'s failure', async () => {
    const c = caller()
    expect((await send(service.port, 'POST', '/predict', { text: TEXT }, { traceparent: c.traceparent, authorization: 'Bearer not-a-key' })).status).to.equal(401)
    const spans = await traceOf(receiver, service.tracing, c.traceId, 2)
    const check = one(spans, 'access check')
    expect(check.attributes).to.deep.include({ 'error.type': 'ERR_UNAUTHORIZED', 'tfidf.access.outcome': '401' })
    expect(check.status.code).to.equal(0)
    expectNoSecrets(spans, ['not-a-key'])
  })
})

describe('tracing: sampling', function () {
  this.timeout(60000)

  const samplers: Array<Record<string, string>> = [{ OTEL_TRACES_SAMPLER: 'always_off' }, { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' }]
  for (const env of samplers) {
    it(`exports nothing and sends no traceparent with ${JSON.stringify(env)}`, async () => {
      const receiver = await startReceiver()
      const service = await serve({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, ...env })
      try {
        for (let i = 0; i < 5; i++) {
          const answer = await send(service.port, 'POST', '/predict', { text: TEXT }, { traceparent: caller(false).traceparent })
          expect(answer.status).to.equal(200)
          expect(answer.headers.traceparent).to.equal(undefined)
          expect((await send(service.port, 'POST', '/predict', { text: TEXT })).headers.traceparent).to.equal(undefined)
        }
        await service.tracing!.flush()
        expect(receiver.exports()).to.equal(0)
        expect(receiver.spans).to.deep.equal([])
        if (env.OTEL_TRACES_SAMPLER === 'parentbased_traceidratio') {
          // A caller that sampled its trace is followed, whatever the ratio.
          const c = caller()
          expect((await send(service.port, 'POST', '/predict', { text: 'a text not cached yet' }, { traceparent: c.traceparent })).headers.traceparent).to.match(new RegExp(`^00-${c.traceId}-`))
          await traceOf(receiver, service.tracing, c.traceId, 3)
        }
      } finally {
        await service.close()
        await receiver.close()
      }
    })
  }
})

describe('tracing: a collector that hangs, refuses connections, or answers 503', function () {
  this.timeout(120000)
  const REQUESTS = 120

  /** Each answer's time over REQUESTS sequential traced requests, single texts and batches alternating. */
  async function timings (service: Traced): Promise<number[]> {
    const texts = Array.from({ length: 20 }, (_, i) => `a batch text ${i}`)
    const ms: number[] = []
    for (let i = 0; i < REQUESTS; i++) {
      const answer = i % 2 === 0
        ? await send(service.port, 'POST', '/predict', { text: `${TEXT} ${i}` }, { traceparent: caller().traceparent })
        : await send(service.port, 'POST', '/batch_predict', { texts: texts.map(t => `${t} ${i}`), batch_size: 10 }, { traceparent: caller().traceparent })
      expect(answer.status).to.equal(200)
      ms.push(answer.ms)
    }
    return ms
  }

  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  let usual: number[]

  before(async () => {
    const plain = await serve({})
    try {
      await timings(plain)
      usual = await timings(plain)
    } finally {
      await plain.close()
    }
  })

  for (const kind of ['hang', 'refuse', '503'] as const) {
    it(`answers every request in its usual time when the collector ${kind === 'hang' ? 'hangs' : kind === 'refuse' ? 'refuses connections' : 'answers 503'}, and counts the spans lost`, async () => {
      const receiver = kind === 'refuse' ? undefined : await startReceiver(kind)
      const endpoint = receiver?.url ?? await refusingEndpoint()
      const service = await serve({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_MAX_QUEUE_SIZE: '64', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '16', OTEL_BSP_SCHEDULE_DELAY: '5' })
      try {
        await timings(service)
        const ms = await timings(service)
        // Bounded by the service's own work: a request held by the exporter would take its timeout (10 s).
        expect(Math.max(...ms), 'slowest answer (ms)').to.be.below(1000)
        expect(median(ms), `median answer (ms) against ${median(usual).toFixed(2)} without tracing`).to.be.below(2 * median(usual) + 3)
        const metrics = (await send(service.port, 'GET', '/metrics?format=prometheus')).body
        const count = (name: string): number => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(metrics)?.[1])
        // 240 traced requests of 3 to 5 spans each, through a queue of 64 that cannot empty.
        expect(count('tfidf_trace_spans_dropped_total') + count('tfidf_trace_spans_failed_total'), metrics.split('\n').filter(l => l.startsWith('tfidf_trace')).join('; ')).to.be.greaterThan(0)
        expect(count('tfidf_trace_spans_exported_total')).to.equal(0)
        if (receiver !== undefined) expect(receiver.exports()).to.be.greaterThan(0)
      } finally {
        const closing = performance.now()
        await service.close()
        // Shutting down does not wait on the collector either (shutdown's bound: 500 ms here).
        expect(performance.now() - closing).to.be.below(5000)
        await receiver?.close()
      }
    })
  }
})
