/**
 * The Open Inference Protocol over gRPC, served for real on 127.0.0.1 beside the REST app over
 * the same context, and called by a real @grpc/grpc-js client loading the same .proto files:
 * health and metadata, inference from `bytes_contents` and from `raw_input_contents` answering
 * what POST /predict and the REST V2 infer answer on the same texts, outputs chosen by name, the
 * errors' status codes, the shared limits and timeouts, the repository RPCs, gRPC health
 * (Check, List, Watch), a graceful close, and GRPC_PORT through the service process.
 */
import { status, type Client, type ServiceError } from '@grpc/grpc-js'
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import request from 'supertest'
import { parseConfig, type Config } from '../../src/config.js'
import { createApp, createContext } from '../../src/http/app.js'
import type { AppContext } from '../../src/http/context.js'
import { createLogger, createPino, loggerOf } from '../../src/logger.js'
import { ServiceError as AppError, type ErrorCode } from '../../src/errors.js'
import { HEALTH_PROTO, INFERENCE_PROTO, loadServices } from '../../src/grpc/protos.js'
import { startGrpcServer, type ListeningGrpcServer } from '../../src/grpc/server.js'
import { toGrpcError } from '../../src/grpc/status.js'
import type { Logger } from '../../src/logger.js'
import type { ClassifierPool } from '../../src/pool/classifier-pool.js'
import { readBinaryTexts, V2InputError, writeBinaryStrings } from '../../src/protocol/v2/infer.js'
import { openRepository } from '../../src/repository/open.js'
import { ROOT } from '../helpers/paths.js'
import { makeThreeModelRepository } from '../helpers/repositories.js'
import { clientOf, failure, unary } from '../helpers/grpc-client.js'
import { HOOKED_WORKER } from '../helpers/service.js'

const SERVICES = loadServices()
const TEXTS = ['a wonderful, moving film', 'dull and lifeless', 'café au lait, très bien', 'not good at all']


interface OutputTensor { name: string, datatype: string, shape: number[], contents: { bytes_contents: Buffer[], fp64_contents: number[] } | null }
interface InferResponse { model_name: string, model_version: string, id: string, outputs: OutputTensor[], raw_output_contents: Buffer[] }

/** Each output's values, from raw_output_contents or contents, as REST's JSON gives them. */
function valuesOf (response: InferResponse): Record<string, { datatype: string, shape: number[], data: Array<string | number> }> {
  return Object.fromEntries(response.outputs.map((o, i) => {
    const count = o.shape.reduce((a, b) => a * b, 1)
    let data: Array<string | number>
    if (i < response.raw_output_contents.length) {
      const raw = response.raw_output_contents[i]!
      data = o.datatype === 'BYTES' ? readBinaryTexts(raw, count) : Array.from({ length: raw.length / 8 }, (_, k) => raw.readDoubleLE(k * 8))
    } else {
      data = o.datatype === 'BYTES' ? o.contents!.bytes_contents.map(b => b.toString('utf8')) : o.contents!.fp64_contents
    }
    expect(data.length, o.name).to.equal(count)
    return [o.name, { datatype: o.datatype, shape: o.shape, data }]
  }))
}

const bytesInfer = (texts: readonly string[], extra: object = {}): object => ({
  model_name: 'sentiment',
  inputs: [{ name: 'text', datatype: 'BYTES', shape: [texts.length], contents: { bytes_contents: texts.map(t => Buffer.from(t, 'utf8')) } }],
  ...extra
})

const rawInfer = (texts: readonly string[], extra: object = {}): object => ({
  model_name: 'sentiment',
  inputs: [{ name: 'text', datatype: 'BYTES', shape: [texts.length, 1] }],
  raw_input_contents: [writeBinaryStrings(texts)],
  ...extra
})

describe('the gRPC service', function () {
  this.timeout(120000)
  let root: string
  let config: Readonly<Config>
  let pool: ClassifierPool
  let ctx: AppContext
  let app: ReturnType<typeof createApp>
  let grpc: ListeningGrpcServer
  let inference: Client
  let health: Client
  const logged: Array<Record<string, unknown>> = []

  before(async () => {
    root = makeThreeModelRepository('tfidf-grpc-')
    config = parseConfig({ MODEL_REPOSITORY: root, DEFAULT_MODEL: 'sentiment', WORKERS: '2', CACHE_SIZE: '0', LOG_LEVEL: 'silent' })
    const opened = await openRepository(config)
    pool = opened.pool
    ctx = createContext({ config: { ...config, enableMetrics: true }, pool, repository: opened.repository, logger: loggerOf(createPino('info', { write: (line: string) => { logged.push(JSON.parse(line) as Record<string, unknown>) } })) })
    app = createApp({ config, pool, context: ctx })
    grpc = await startGrpcServer(ctx, 0, '127.0.0.1')
    inference = clientOf(SERVICES.inference, grpc.port)
    health = clientOf(SERVICES.health, grpc.port)
  })
  after(async () => {
    inference?.close()
    health?.close()
    await grpc?.close()
    await pool?.close()
    rmSync(root, { recursive: true, force: true })
  })

  context('server and model metadata', () => {
    it('is live and ready, and names itself and its extensions as REST does', async () => {
      expect(await unary(inference, 'ServerLive', {})).to.deep.equal({ live: true })
      expect(await unary(inference, 'ServerReady', {})).to.deep.equal({ ready: true })
      const rest = (await request(app).get('/v2').expect(200)).body as object
      expect(await unary(inference, 'ServerMetadata', {})).to.deep.equal(rest)
      expect(rest).to.deep.equal({ name: 'tfidf-serve', version: '1.0.0', extensions: ['model_repository', 'binary_tensor_data', 'classification'] })
    })

    it('gives a model\'s tensors as REST does, its classes and classifier as properties', async () => {
      const rest = (await request(app).get('/v2/models/sentiment').expect(200)).body as { inputs: object, outputs: object }
      expect(await unary(inference, 'ModelMetadata', { name: 'sentiment' })).to.deep.equal({
        name: 'sentiment',
        versions: ['1'],
        platform: 'sklearn',
        inputs: rest.inputs,
        outputs: rest.outputs,
        properties: { classes: '["negative","positive"]', classifier: 'LogisticRegression', vectorizer: 'TfidfVectorizer', confidence: 'predict_proba' }
      })
      expect(rest.outputs).to.deep.equal([
        { name: 'predict', datatype: 'BYTES', shape: [-1] },
        { name: 'predict_proba', datatype: 'FP64', shape: [-1, 2] },
        { name: 'decision_function', datatype: 'FP64', shape: [-1, 1] },
        { name: 'confidence', datatype: 'FP64', shape: [-1] }
      ])
    })

    it('says which models are ready, by name and version', async () => {
      expect(await unary(inference, 'ModelReady', { name: 'sentiment' })).to.deep.equal({ ready: true })
      expect(await unary(inference, 'ModelReady', { name: 'sentiment', version: '1' })).to.deep.equal({ ready: true })
      expect(await unary(inference, 'ModelReady', { name: 'sentiment', version: '2' })).to.deep.equal({ ready: false })
      expect(await unary(inference, 'ModelReady', { name: 'hostile' })).to.deep.equal({ ready: false })
      expect(await failure(inference, 'ModelReady', { name: 'nope' })).to.deep.equal({ code: status.NOT_FOUND, details: 'no model named "nope" (models: hostile, sentiment, spam)' })
      expect((await failure(inference, 'ModelMetadata', { name: 'sentiment', version: '9' })).code).to.equal(status.NOT_FOUND)
    })
  })

  context('ModelInfer', () => {
    it('answers texts in bytes_contents with every output in raw_output_contents, as Triton does, equal to REST V2 and POST /predict', async () => {
      const response = await unary<InferResponse>(inference, 'ModelInfer', bytesInfer(TEXTS, { id: 'r-1' }))
      expect([response.model_name, response.model_version, response.id]).to.deep.equal(['sentiment', '1', 'r-1'])
      expect(response.outputs.map(o => [o.name, o.contents])).to.deep.equal([['predict', null], ['predict_proba', null], ['decision_function', null], ['confidence', null]])
      const rest = JSON.parse((await request(app).post('/v2/models/sentiment/infer').send({ inputs: [{ name: 'text', shape: [TEXTS.length], datatype: 'BYTES', data: TEXTS }] }).expect(200)).text) as { outputs: Array<{ name: string, datatype: string, shape: number[], data: Array<string | number> }> }
      expect(valuesOf(response)).to.deep.equal(Object.fromEntries(rest.outputs.map(o => [o.name, { datatype: o.datatype, shape: o.shape, data: o.data }])))
      const predict = (await request(app).post('/models/sentiment/predict').send({ texts: TEXTS }).expect(200)).body as { predictions: Array<{ prediction: string, confidence: number }> }
      const values = valuesOf(response)
      expect(values.predict!.data).to.deep.equal(predict.predictions.map(p => p.prediction))
      expect(values.predict!.data).to.deep.equal(['positive', 'negative', 'positive', 'negative'])
      expect(values.confidence!.data.map(c => Math.round((c as number) * 100) / 100)).to.deep.equal(predict.predictions.map(p => p.confidence))
    })

    it('logs each call in one line (rpc, status, model, texts) and counts it for its model', async () => {
      logged.length = 0
      await unary<InferResponse>(inference, 'ModelInfer', bytesInfer(TEXTS, {}))
      const line = logged.find(l => l.msg === 'grpc call' && l.rpc === 'ModelInfer')
      expect(line).to.deep.include({ level: 'info', rpc: 'ModelInfer', status: 'OK', model: 'sentiment', texts: TEXTS.length })
      const text = (await request(app).get('/metrics?format=prometheus').expect(200)).text
      expect(text).to.match(/tfidf_model_requests_total\{model="sentiment",version="1",status="grpc_OK"\} [1-9]/)
    })

    it('answers the same texts in raw_input_contents (4-byte little-endian lengths, shape [N, 1]) with the same values', async () => {
      const fromBytes = await unary<InferResponse>(inference, 'ModelInfer', bytesInfer(TEXTS))
      const fromRaw = await unary<InferResponse>(inference, 'ModelInfer', rawInfer(TEXTS))
      expect(valuesOf(fromRaw)).to.deep.equal(valuesOf(fromBytes))
      expect(fromRaw.raw_output_contents).to.deep.equal(fromBytes.raw_output_contents)
      expect(fromRaw.id).to.equal('')
    })

    it('returns the outputs named, in their order, with Triton\'s classification, as REST does', async () => {
      const outputs = [{ name: 'predict_proba' }, { name: 'predict', parameters: { classification: { int64_param: 2 } } }]
      const response = await unary<InferResponse>(inference, 'ModelInfer', rawInfer(TEXTS.slice(0, 2), { outputs }))
      const rest = JSON.parse((await request(app).post('/v2/models/sentiment/infer').send({ inputs: [{ name: 'text', shape: [2], datatype: 'BYTES', data: TEXTS.slice(0, 2) }], outputs: [{ name: 'predict_proba' }, { name: 'predict', parameters: { classification: 2 } }] }).expect(200)).text) as { outputs: Array<{ name: string, datatype: string, shape: number[], data: Array<string | number> }> }
      expect(valuesOf(response)).to.deep.equal(Object.fromEntries(rest.outputs.map(o => [o.name, { datatype: o.datatype, shape: o.shape, data: o.data }])))
      expect(response.outputs.map(o => [o.name, o.datatype, o.shape])).to.deep.equal([['predict_proba', 'FP64', [2, 2]], ['predict', 'BYTES', [2, 2]]])
    })

    it('puts the outputs in contents (bytes_contents, fp64_contents) when binary_data_output is false', async () => {
      const raw = await unary<InferResponse>(inference, 'ModelInfer', bytesInfer(TEXTS))
      const inContents = await unary<InferResponse>(inference, 'ModelInfer', bytesInfer(TEXTS, { parameters: { binary_data_output: { bool_param: false } } }))
      expect(inContents.raw_output_contents).to.deep.equal([])
      expect(inContents.outputs.map(o => o.contents === null)).to.deep.equal([false, false, false, false])
      expect(valuesOf(inContents)).to.deep.equal(valuesOf(raw))
    })

    it('serves any model of the repository and counts its texts in the metrics REST reports', async () => {
      const before = ctx.metrics.report(0).predictions_total
      const response = await unary<InferResponse>(inference, 'ModelInfer', { ...bytesInfer(['WINNER!! claim your free prize now']), model_name: 'spam', model_version: '1' })
      expect(valuesOf(response).predict!.data).to.deep.equal(['spam'])
      expect(ctx.metrics.report(0).predictions_total).to.equal(before + 1)
    })
  })

  context('errors', () => {
    const invalid: Array<[string, object]> = [
      ['a datatype other than BYTES', { model_name: 'sentiment', inputs: [{ name: 'text', datatype: 'FP32', shape: [1], contents: { fp32_contents: [1] } }] }],
      ['a shape that is not [N] or [N, 1]', { model_name: 'sentiment', inputs: [{ name: 'text', datatype: 'BYTES', shape: [1, 2], contents: { bytes_contents: [Buffer.from('a'), Buffer.from('b')] } }] }],
      ['fewer texts than the shape says', { model_name: 'sentiment', inputs: [{ name: 'text', datatype: 'BYTES', shape: [3], contents: { bytes_contents: [Buffer.from('a')] } }] }],
      ['no input', { model_name: 'sentiment' }],
      ['two inputs', { model_name: 'sentiment', inputs: [{ name: 'a', datatype: 'BYTES', shape: [1], contents: { bytes_contents: [Buffer.from('a')] } }, { name: 'b', datatype: 'BYTES', shape: [1], contents: { bytes_contents: [Buffer.from('b')] } }] }],
      ['an empty text', bytesInfer([''])],
      ['more texts than MAX_BATCH_SIZE', bytesInfer(Array.from({ length: 51 }, (_, i) => `text ${i}`))],
      ['a text longer than MAX_TEXT_LENGTH', bytesInfer(['x'.repeat(10001)])],
      ['an unknown output', bytesInfer(['fine'], { outputs: [{ name: 'transform' }] })],
      ['a classification that is not a positive integer', bytesInfer(['fine'], { outputs: [{ name: 'predict', parameters: { classification: { int64_param: 0 } } }] })],
      ['a truncated raw tensor', { ...rawInfer(['fine']), raw_input_contents: [writeBinaryStrings(['fine']).subarray(0, 6)] }],
      ['bytes after the raw tensor\'s elements', { ...rawInfer(['fine']), raw_input_contents: [Buffer.concat([writeBinaryStrings(['fine']), Buffer.from([0])])] }],
      ['contents and raw_input_contents both', { ...rawInfer(['fine']), inputs: [{ name: 'text', datatype: 'BYTES', shape: [1], contents: { bytes_contents: [Buffer.from('fine')] } }] }],
      ['two raw tensors for one input', { ...rawInfer(['fine']), raw_input_contents: [writeBinaryStrings(['fine']), writeBinaryStrings(['fine'])] }],
      ['a binary_data_output that is not a bool', bytesInfer(['fine'], { parameters: { binary_data_output: { string_param: 'no' } } })]
    ]
    for (const [what, message] of invalid) {
      it(`answers INVALID_ARGUMENT for ${what}`, async () => {
        expect((await failure(inference, 'ModelInfer', message)).code).to.equal(status.INVALID_ARGUMENT)
      })
    }

    it('answers INVALID_ARGUMENT with REST\'s message for the same input', async () => {
      const cases: Array<[object, object]> = [
        [{ model_name: 'sentiment', inputs: [{ name: 'text', datatype: 'BYTES', shape: [1, 2], contents: { bytes_contents: [Buffer.from('a'), Buffer.from('b')] } }] }, { inputs: [{ name: 'text', datatype: 'BYTES', shape: [1, 2], data: ['a', 'b'] }] }],
        [bytesInfer(['']), { inputs: [{ name: 'text', datatype: 'BYTES', shape: [1], data: [''] }] }],
        [bytesInfer(['fine'], { outputs: [{ name: 'transform' }] }), { inputs: [{ name: 'text', datatype: 'BYTES', shape: [1], data: ['fine'] }], outputs: [{ name: 'transform' }] }]
      ]
      for (const [grpcMessage, restBody] of cases) {
        const rest = (await request(app).post('/v2/models/sentiment/infer').send(restBody).expect(400)).body as { error: string }
        expect(await failure(inference, 'ModelInfer', grpcMessage)).to.deep.equal({ code: status.INVALID_ARGUMENT, details: rest.error })
      }
    })

    it('refuses text that is not UTF-8, in bytes_contents and in raw_input_contents', async () => {
      const bad = Buffer.from([0x63, 0x61, 0x66, 0xe9])
      expect(await failure(inference, 'ModelInfer', { model_name: 'sentiment', inputs: [{ name: 'text', datatype: 'BYTES', shape: [2], contents: { bytes_contents: [Buffer.from('fine'), bad] } }] }))
        .to.deep.equal({ code: status.INVALID_ARGUMENT, details: 'inputs[0].contents.bytes_contents[1] is not valid UTF-8' })
      const raw = Buffer.concat([Buffer.from([4, 0, 0, 0]), bad])
      expect(await failure(inference, 'ModelInfer', { ...rawInfer(['x']), raw_input_contents: [raw] }))
        .to.deep.equal({ code: status.INVALID_ARGUMENT, details: 'binary input element 0 is not valid UTF-8' })
    })

    it('answers NOT_FOUND for an unknown model or version, UNAVAILABLE for a model not loaded', async () => {
      expect(await failure(inference, 'ModelInfer', { ...bytesInfer(['fine']), model_name: 'nope' })).to.deep.equal({ code: status.NOT_FOUND, details: 'no model named "nope" (models: hostile, sentiment, spam)' })
      expect(await failure(inference, 'ModelInfer', { ...bytesInfer(['fine']), model_version: '2' })).to.deep.equal({ code: status.NOT_FOUND, details: 'model sentiment has no version 2 being served (it serves version 1)' })
      expect((await failure(inference, 'ModelInfer', { ...bytesInfer(['fine']), model_name: 'hostile' })).code).to.equal(status.UNAVAILABLE)
    })

    it('answers RESOURCE_EXHAUSTED for a message over 1 MiB, REST\'s body limit', async () => {
      expect((await failure(inference, 'ModelInfer', bytesInfer(['x'.repeat(1024 * 1024)]))).code).to.equal(status.RESOURCE_EXHAUSTED)
    })

    it('answers UNIMPLEMENTED for Triton\'s RPCs it does not serve and for a named repository', async () => {
      const statistics = await new Promise<ServiceError | null>(resolve => {
        inference.makeUnaryRequest('/inference.GRPCInferenceService/ModelStatistics', (b: Buffer) => b, (b: Buffer) => b, Buffer.alloc(0), err => resolve(err))
      })
      expect(statistics?.code).to.equal(status.UNIMPLEMENTED)
      expect((await failure(inference, 'RepositoryIndex', { repository_name: 'other' })).code).to.equal(status.UNIMPLEMENTED)
    })

    it('still answers after every error', async () => {
      const response = await unary<InferResponse>(inference, 'ModelInfer', bytesInfer(TEXTS))
      expect(valuesOf(response).predict!.data).to.deep.equal(['positive', 'negative', 'positive', 'negative'])
    })
  })

  context('the repository RPCs', () => {
    it('index the models as POST /v2/repository/index does', async () => {
      const rest = (await request(app).post('/v2/repository/index').set('content-type', '').send('').expect(200)).body as object[]
      const index = await unary<{ models: object[] }>(inference, 'RepositoryIndex', {})
      expect(index.models).to.deep.equal(rest)
      expect(index.models.map(m => (m as { name: string }).name)).to.deep.equal(['hostile', 'sentiment', 'spam'])
      expect((await unary<{ models: Array<{ name: string }> }>(inference, 'RepositoryIndex', { ready: true })).models.map(m => m.name)).to.deep.equal(['sentiment', 'spam'])
    })

    it('unload and load a model, which health Watch follows', async () => {
      const seen: string[] = []
      const watch = (health as unknown as { Watch: (m: object) => NodeJS.EventEmitter & { cancel: () => void } }).Watch({ service: 'spam' })
      watch.on('data', (m: { status: string }) => seen.push(m.status))
      watch.on('error', () => {})
      const until = async (n: number): Promise<void> => {
        const end = Date.now() + 5000
        while (seen.length < n && Date.now() < end) await new Promise(resolve => setTimeout(resolve, 20))
      }
      await until(1)
      expect(await unary(inference, 'RepositoryModelUnload', { model_name: 'spam' })).to.deep.equal({})
      expect(await unary(inference, 'ModelReady', { name: 'spam' })).to.deep.equal({ ready: false })
      expect((await failure(inference, 'ModelInfer', { ...bytesInfer(['x']), model_name: 'spam' })).code).to.equal(status.UNAVAILABLE)
      await until(2)
      expect(await unary(inference, 'RepositoryModelLoad', { model_name: 'spam' })).to.deep.equal({})
      await until(3)
      watch.cancel()
      expect(seen).to.deep.equal(['SERVING', 'NOT_SERVING', 'SERVING'])
      expect(await unary(inference, 'ModelReady', { name: 'spam' })).to.deep.equal({ ready: true })
      expect((await failure(inference, 'RepositoryModelLoad', { model_name: 'nope' })).code).to.equal(status.NOT_FOUND)
      expect((await failure(inference, 'RepositoryModelUnload', { model_name: 'nope' })).code).to.equal(status.NOT_FOUND)
      expect((await failure(inference, 'RepositoryModelLoad', { model_name: 'hostile' })).code).to.equal(status.UNAVAILABLE)
    })
  })

  context('grpc.health.v1.Health', () => {
    it('Check: the server ("" or the inference service), a model by name, NOT_FOUND for an unknown name', async () => {
      expect(await unary(health, 'Check', { service: '' })).to.deep.equal({ status: 'SERVING' })
      expect(await unary(health, 'Check', { service: 'inference.GRPCInferenceService' })).to.deep.equal({ status: 'SERVING' })
      expect(await unary(health, 'Check', { service: 'sentiment' })).to.deep.equal({ status: 'SERVING' })
      expect(await unary(health, 'Check', { service: 'hostile' })).to.deep.equal({ status: 'NOT_SERVING' })
      expect((await failure(health, 'Check', { service: 'nope' })).code).to.equal(status.NOT_FOUND)
    })

    it('List: every service and model with its status', async () => {
      expect(await unary(health, 'List', {})).to.deep.equal({ statuses: {
        '': { status: 'SERVING' },
        'inference.GRPCInferenceService': { status: 'SERVING' },
        hostile: { status: 'NOT_SERVING' },
        sentiment: { status: 'SERVING' },
        spam: { status: 'SERVING' }
      } })
    })

    it('Watch: SERVICE_UNKNOWN for an unknown name, without ending the call', async () => {
      const watch = (health as unknown as { Watch: (m: object) => NodeJS.EventEmitter & { cancel: () => void } }).Watch({ service: 'nope' })
      const [first] = await once(watch, 'data') as [{ status: string }]
      expect(first).to.deep.equal({ status: 'SERVICE_UNKNOWN' })
      watch.on('error', () => {})
      watch.cancel()
    })
  })

  context('closing', () => {
    it('turns health NOT_SERVING, ends Watch streams and stops taking calls; the REST side and the pool are untouched', async () => {
      const second = await startGrpcServer(ctx, 0, '127.0.0.1')
      const client = clientOf(SERVICES.health, second.port)
      const watch = (client as unknown as { Watch: (m: object) => NodeJS.EventEmitter }).Watch({ service: '' })
      const seen: string[] = []
      watch.on('data', (m: { status: string }) => seen.push(m.status))
      await once(watch, 'data')
      const ended = once(watch, 'end')
      await second.close()
      await ended
      expect(seen).to.deep.equal(['SERVING', 'NOT_SERVING'])
      expect((await failure(client, 'Check', { service: '' })).code).to.equal(status.UNAVAILABLE)
      client.close()
      await second.close()
      expect(await unary(health, 'Check', { service: '' })).to.deep.equal({ status: 'SERVING' })
    })
  })
})

describe('the gRPC service under load', function () {
  this.timeout(60000)
  let pool: ClassifierPool
  let app: ReturnType<typeof createApp>
  let grpc: ListeningGrpcServer
  let inference: Client

  before(async () => {
    const config = parseConfig({ WORKERS: '1', MAX_CONCURRENT_REQUESTS: '1', MAX_QUEUE: '1', REQUEST_TIMEOUT_MS: '300', CACHE_SIZE: '0', LOG_LEVEL: 'silent' })
    ;({ pool } = await openRepository(config, { workerFile: HOOKED_WORKER }))
    const ctx = createContext({ config, pool, logger: createLogger('silent') })
    app = createApp({ config, pool, context: ctx })
    grpc = await startGrpcServer(ctx, 0, '127.0.0.1')
    inference = clientOf(SERVICES.inference, grpc.port)
  })
  after(async () => {
    inference?.close()
    await grpc?.close()
    await pool?.close()
  })

  it('drops a call whose deadline passes while it waits: its place in line freed at once, no worker task run for it', async () => {
    const before = pool.counts.tasksStarted
    const slow = request(app).post('/predict').send({ text: '__sleep_200__' }).then(r => r.status)
    while (pool.inFlight < 1) await new Promise(resolve => setTimeout(resolve, 5))
    const fn = (inference as unknown as Record<string, (m: object, o: object, cb: (err: { code: number } | null) => void) => void>).ModelInfer!
    const late = new Promise<number>(resolve => { fn.call(inference, { ...bytesInfer(['fine']), model_name: 'default' }, { deadline: Date.now() + 60 }, err => { resolve(err?.code ?? status.OK) }) })
    expect(await late).to.equal(status.DEADLINE_EXCEEDED)
    // 200, or REQUEST_TIMEOUT_MS's 503 on a loaded machine: not what this test is about.
    expect([200, 503]).to.include(await slow)
    expect(pool.waiting).to.equal(0)
    while (pool.stages.handed > 0) await new Promise(resolve => setTimeout(resolve, 5))
    expect(pool.counts.tasksStarted - before).to.equal(1)
  })

  it('shares REST\'s admission limits and request timeout: UNAVAILABLE when timed out waiting, and when the queue is full', async () => {
    // A slow REST request holds the only slot; the first gRPC call waits in the one queue place.
    const slow = request(app).post('/predict').send({ text: '__sleep_1500__' }).then(r => r.status)
    while (pool.inFlight < 1) await new Promise(resolve => setTimeout(resolve, 5))
    const waiting = failure(inference, 'ModelInfer', { ...bytesInfer(['fine']), model_name: 'default' })
    while (pool.waiting < 1) await new Promise(resolve => setTimeout(resolve, 5))
    expect(await failure(inference, 'ModelInfer', { ...bytesInfer(['fine']), model_name: 'default' })).to.deep.equal({ code: status.UNAVAILABLE, details: 'server is at capacity, retry shortly' })
    expect(await waiting).to.deep.equal({ code: status.UNAVAILABLE, details: 'request took longer than 300 ms' })
    expect(await slow).to.equal(503)
    // The timed-out requests' slots were freed at once; the slow task still runs on its worker until it ends.
    while (pool.inFlight > 0 || pool.waiting > 0 || pool.stages.handed > 0) await new Promise(resolve => setTimeout(resolve, 10))
    const response = await unary<InferResponse>(inference, 'ModelInfer', { ...bytesInfer(['a wonderful film']), model_name: 'default' })
    expect(valuesOf(response).predict!.data).to.deep.equal(['positive'])
  })
})

describe('GRPC_PORT in the service process', function () {
  this.timeout(60000)

  it('serves gRPC beside HTTP, logs its port in the ready line, and on SIGTERM ends Watch streams and exits 0', async () => {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'main.js')], { env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', GRPC_PORT: '0', WORKERS: '1' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (d: Buffer) => { out += d.toString() })
    const exit = once(child, 'exit')
    try {
      const until = Date.now() + 20000
      let ready: { port: number, grpc_port: number } | undefined
      while (ready === undefined && Date.now() < until) {
        const line = out.split('\n').find(l => l.includes('"msg":"ready"'))
        if (line !== undefined) ready = JSON.parse(line) as { port: number, grpc_port: number }
        else await new Promise(resolve => setTimeout(resolve, 25))
      }
      expect(ready?.grpc_port).to.be.a('number').and.not.equal(ready?.port)
      const health = clientOf(SERVICES.health, ready!.grpc_port)
      expect(await unary(health, 'Check', { service: '' })).to.deep.equal({ status: 'SERVING' })
      expect(await unary(health, 'Check', { service: 'default' })).to.deep.equal({ status: 'SERVING' })
      const inference = clientOf(SERVICES.inference, ready!.grpc_port)
      const response = await unary<InferResponse>(inference, 'ModelInfer', { ...bytesInfer(['a wonderful film']), model_name: 'default' })
      expect(valuesOf(response).predict!.data).to.deep.equal(['positive'])
      // The grpcurl example of docs/many-models.md, its base64 bytes decoded as grpcurl decodes them.
      const readme = /grpc_service\.proto \\\n\s+-d '([^']+)'/.exec(readFileSync(path.join(ROOT, 'docs', 'many-models.md'), 'utf8'))![1]!
      const example = JSON.parse(readme) as { inputs: Array<{ contents: { bytes_contents: string[] } }> }
      for (const input of example.inputs) input.contents.bytes_contents = input.contents.bytes_contents.map(b => Buffer.from(b, 'base64')) as unknown as string[]
      const answer = await unary<InferResponse>(inference, 'ModelInfer', example)
      expect(answer.outputs.map(o => o.contents?.bytes_contents.map(b => b.toString('base64')))).to.deep.equal([['cG9zaXRpdmU=']])
      const watch = (health as unknown as { Watch: (m: object) => NodeJS.EventEmitter }).Watch({ service: '' })
      const seen: string[] = []
      watch.on('data', (m: { status: string }) => seen.push(m.status))
      await once(watch, 'data')
      const ended = once(watch, 'end')
      child.kill('SIGTERM')
      await ended
      expect(seen).to.deep.equal(['SERVING', 'NOT_SERVING'])
      health.close()
      inference.close()
      expect((await exit)[0]).to.equal(0)
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
    }
  })
})

describe('toGrpcError', () => {
  it('gives each error its status as REST gives its HTTP status; an unexpected one is logged under the id its details name', () => {
    const logged: Array<Record<string, unknown>> = []
    const logger = { error: (_msg: string, fields: Record<string, unknown> = {}) => { logged.push(fields) } } as unknown as Logger
    const codes: Array<[ErrorCode, number]> = [
      ['ERR_NOT_FOUND', status.NOT_FOUND],
      ['ERR_QUEUE_FULL', status.UNAVAILABLE],
      ['ERR_PREDICTION_TIMEOUT', status.UNAVAILABLE],
      ['ERR_REQUEST_TIMEOUT', status.UNAVAILABLE],
      ['ERR_MODEL_NOT_READY', status.UNAVAILABLE],
      ['ERR_WORKER_UNAVAILABLE', status.UNAVAILABLE],
      ['ERR_VALIDATION', status.INVALID_ARGUMENT]
    ]
    for (const [code, expected] of codes) expect(toGrpcError(new AppError(code, 'why'), logger, 'ModelInfer'), code).to.deep.equal({ code: expected, details: 'why' })
    expect(toGrpcError(new V2InputError('bad'), logger, 'ModelInfer')).to.deep.equal({ code: status.INVALID_ARGUMENT, details: 'bad' })
    expect(logged).to.deep.equal([])
    for (const err of [new AppError('ERR_INTERNAL', 'worker died'), new TypeError('bug')]) {
      const answer = toGrpcError(err, logger, 'ModelInfer')
      expect(answer.code).to.equal(status.INTERNAL)
      const id = /^Internal server error \(error_id ([0-9a-f-]{36})\)$/.exec(answer.details!)?.[1]
      expect(logged.pop()).to.deep.equal({ error_id: id, grpc_method: 'ModelInfer', stack: err.stack })
    }
  })
})

describe('the .proto files', () => {
  it('are read from src/grpc, which the package and the container image ship', () => {
    expect([INFERENCE_PROTO, HEALTH_PROTO]).to.deep.equal([path.join(ROOT, 'src', 'grpc', 'grpc_service.proto'), path.join(ROOT, 'src', 'grpc', 'health.proto')])
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { files: string[], dependencies: Record<string, string> }
    expect(pkg.files).to.include('src/grpc/*.proto')
    expect(pkg.dependencies).to.include.keys('@grpc/grpc-js', '@grpc/proto-loader')
    expect(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').split('\n')).to.include('COPY src/grpc/*.proto ./src/grpc/')
  })

  it('keep the protocol\'s field numbers: raw_input_contents 7, raw_output_contents 6, bytes_contents 8', () => {
    const proto = readFileSync(INFERENCE_PROTO, 'utf8')
    for (const field of ['repeated bytes raw_input_contents = 7;', 'repeated bytes raw_output_contents = 6;', 'repeated bytes bytes_contents = 8;', 'repeated double fp64_contents = 7;', 'InferTensorContents contents = 5;', 'map<string, InferParameter> parameters = 4;']) {
      expect(proto).to.contain(field)
    }
  })
})
