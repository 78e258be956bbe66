/**
 * REST V2 and gRPC answer from the same typed operations (src/protocol/v2/operations.ts): the
 * same request sent over both gives the same typed result, and every failure the same code of
 * the one error table (its V2 HTTP status over REST, its gRPC status over gRPC) with the same
 * message. Real service, real gRPC client, real worker threads.
 */
import { Metadata, status, type Client } from '@grpc/grpc-js'
import { expect } from 'chai'
import { rmSync } from 'node:fs'
import request from 'supertest'
import { parseConfig } from '../../src/config.js'
import { ERROR_CODES, type ErrorCode } from '../../src/errors.js'
import { loadServices } from '../../src/grpc/protos.js'
import { startGrpcServer, type ListeningGrpcServer } from '../../src/grpc/server.js'
import { createApp } from '../../src/http/app.js'
import { createLogger } from '../../src/logger.js'
import type { ClassifierPool } from '../../src/pool/classifier-pool.js'
import { readBinaryTexts, writeBinaryStrings } from '../../src/protocol/v2/infer.js'
import { openRepository } from '../../src/repository/open.js'
import { createService } from '../../src/service/create-service.js'
import { clientOf } from '../helpers/grpc-client.js'
import { writeKeyFile, type KeyFile } from '../helpers/keys.js'
import { makeThreeModelRepository } from '../helpers/repositories.js'
import { HOOKED_WORKER } from '../helpers/service.js'

const SERVICES = loadServices()
const TEXTS = ['a wonderful, moving film', 'dull and lifeless', 'not good at all']


/** One request in both wire forms: REST's method, path and JSON body; gRPC's RPC and message. */
interface Pair {
  readonly rest: { method: 'get' | 'post', path: string, body?: object, key?: string }
  readonly grpc: { rpc: string, message: object, key?: string }
}

/** A typed outcome: the result's fields, or the error's table code and message. */
type Outcome = { ok: true, value: unknown } | { ok: false, status: number, message: string }

interface Tensor { name: string, datatype: string, shape: number[], data: Array<string | number> }

const restInfer = (texts: readonly string[], outputs?: object[], extra: object = {}): object => ({ inputs: [{ name: 'text', datatype: 'BYTES', shape: [texts.length], data: texts }], ...(outputs === undefined ? {} : { outputs }), ...extra })
const grpcInfer = (model: string, texts: readonly string[], outputs?: Array<{ name: string, parameters?: object }>, extra: object = {}): object => ({
  model_name: model,
  inputs: [{ name: 'text', datatype: 'BYTES', shape: [texts.length], contents: { bytes_contents: texts.map(t => Buffer.from(t, 'utf8')) } }],
  outputs: (outputs ?? []).map(o => ({ name: o.name, parameters: o.parameters ?? {} })),
  ...extra
})
const inferPair = (model: string, texts: readonly string[], outputs?: Array<{ name: string, classification?: number }>): Pair => ({
  rest: { method: 'post', path: `/v2/models/${model}/infer`, body: restInfer(texts, outputs?.map(o => ({ name: o.name, parameters: o.classification === undefined ? {} : { classification: o.classification } }))) },
  grpc: { rpc: 'ModelInfer', message: grpcInfer(model, texts, outputs?.map(o => ({ name: o.name, parameters: o.classification === undefined ? {} : { classification: { int64_param: o.classification } } }))) }
})

/** gRPC's answers turned into REST's typed shapes (metadata's properties, tensors' contents). */
function typedGrpc (rpc: string, response: Record<string, unknown>): unknown {
  if (rpc === 'ModelMetadata') {
    const { properties, ...rest } = response as { properties: Record<string, string> }
    const { classes, ...parameters } = properties
    return { ...rest, classes: JSON.parse(classes!), parameters }
  }
  if (rpc === 'ModelInfer') {
    const r = response as { model_name: string, model_version: string, outputs: Array<{ name: string, datatype: string, shape: Array<number | string>, contents: { bytes_contents: Buffer[], fp64_contents: number[] } | null }>, raw_output_contents: Buffer[] }
    return {
      model_name: r.model_name,
      model_version: r.model_version,
      outputs: r.outputs.map((o, i): Tensor => {
        const shape = o.shape.map(Number)
        const count = shape.reduce((a, b) => a * b, 1)
        const raw = r.raw_output_contents[i]
        const data = raw !== undefined
          ? (o.datatype === 'BYTES' ? readBinaryTexts(raw, count) : Array.from({ length: raw.length / 8 }, (_, k) => raw.readDoubleLE(k * 8)))
          : (o.datatype === 'BYTES' ? o.contents!.bytes_contents.map(b => b.toString('utf8')) : o.contents!.fp64_contents)
        return { name: o.name, datatype: o.datatype, shape, data }
      })
    }
  }
  if (rpc === 'RepositoryIndex') return (response as { models: unknown[] }).models
  return response
}

describe('REST V2 and gRPC over the same operations', function () {
  this.timeout(120000)
  let root: string
  let pool: ClassifierPool
  let app: ReturnType<typeof createApp>
  let grpc: ListeningGrpcServer
  let inference: Client
  let keys: KeyFile

  before(async () => {
    root = makeThreeModelRepository('tfidf-v2-both-')
    keys = writeKeyFile([
      { id: 'user', scopes: ['predict'] },
      { id: 'admin', scopes: ['predict', 'admin'] },
      { id: 'tiny', scopes: ['predict'], limits: { texts_per_day: 3 } }
    ])
    const config = parseConfig({ WORKERS: '1', LOG_LEVEL: 'silent', MODEL_REPOSITORY: root, DEFAULT_MODEL: 'sentiment', API_KEYS_FILE: keys.file, REQUEST_TIMEOUT_MS: '1500' })
    ;({ pool } = await openRepository(config, { workerFile: HOOKED_WORKER }).then(async opened => {
      const ctx = createService({ config, pool: opened.pool, repository: opened.repository, logger: createLogger('silent') })
      app = createApp({ config, pool: opened.pool, context: ctx })
      grpc = await startGrpcServer(ctx, 0, '127.0.0.1')
      return opened
    }))
    inference = clientOf(SERVICES.inference, grpc.port)
  })

  after(async () => {
    inference.close()
    await grpc.close()
    await pool.close()
    rmSync(root, { recursive: true, force: true })
  })

  /** The key a request sends: a real one by id, or one the service never issued. */
  const secretOf = (id = 'admin'): string => keys.secrets[id] ?? 'tfs_not-a-key-of-this-service'

  async function overRest (pair: Pair): Promise<Outcome> {
    let r = request(app)[pair.rest.method](pair.rest.path).set('Authorization', `Bearer ${secretOf(pair.rest.key)}`)
    if (pair.rest.body !== undefined) r = r.send(pair.rest.body)
    const res = await r
    if (res.status === 200) return { ok: true, value: res.body }
    expect(res.headers['content-type']).to.equal('application/json')
    return { ok: false, status: res.status, message: (res.body as { error: string }).error }
  }

  async function overGrpc (pair: Pair): Promise<Outcome> {
    const metadata = new Metadata()
    metadata.set('authorization', `Bearer ${secretOf(pair.grpc.key)}`)
    const fn = (inference as unknown as Record<string, (m: object, md: InstanceType<typeof Metadata>, cb: (err: { code: number, details: string } | null, res: Record<string, unknown>) => void) => void>)[pair.grpc.rpc]!
    return await new Promise(resolve => {
      fn.call(inference, pair.grpc.message, metadata, (err, res) => {
        resolve(err === null ? { ok: true, value: typedGrpc(pair.grpc.rpc, res) } : { ok: false, status: err.code, message: err.details })
      })
    })
  }

  /** Both transports' outcomes; for a failure, checked against the table's row for `code`. */
  async function both (pair: Pair, code?: ErrorCode): Promise<{ rest: Outcome, grpc: Outcome }> {
    const [rest, viaGrpc] = await Promise.all([overRest(pair), overGrpc(pair)])
    if (code !== undefined) {
      const row = ERROR_CODES[code]
      expect(rest, `REST ${code}`).to.deep.equal({ ok: false, status: row.statusCode === 422 ? 400 : row.statusCode, message: (rest as { message: string }).message })
      expect(viaGrpc, `gRPC ${code}`).to.deep.equal({ ok: false, status: row.grpc, message: (rest as { message: string }).message })
    } else {
      expect(rest.ok, JSON.stringify(rest)).to.equal(true)
      expect(viaGrpc).to.deep.equal(rest)
    }
    return { rest, grpc: viaGrpc }
  }

  context('results', () => {
    it('server liveness, readiness and metadata', async () => {
      await both({ rest: { method: 'get', path: '/v2/health/live' }, grpc: { rpc: 'ServerLive', message: {} } })
      await both({ rest: { method: 'get', path: '/v2/health/ready' }, grpc: { rpc: 'ServerReady', message: {} } })
      const { rest } = await both({ rest: { method: 'get', path: '/v2' }, grpc: { rpc: 'ServerMetadata', message: {} } })
      expect(rest).to.deep.equal({ ok: true, value: { name: 'tfidf-serve', version: '1.0.0', extensions: ['model_repository', 'binary_tensor_data', 'classification'] } })
    })

    it("a model's readiness and metadata, at its version or any", async () => {
      const { rest } = await both({ rest: { method: 'get', path: '/v2/models/sentiment' }, grpc: { rpc: 'ModelMetadata', message: { name: 'sentiment' } } })
      expect((rest as { value: { classes: string[], versions: string[] } }).value).to.deep.include({ classes: ['negative', 'positive'], versions: ['1'] })
      await both({ rest: { method: 'get', path: '/v2/models/sentiment/versions/1' }, grpc: { rpc: 'ModelMetadata', message: { name: 'sentiment', version: '1' } } })
      const ready = await overRest({ rest: { method: 'get', path: '/v2/models/sentiment/ready' }, grpc: { rpc: 'ModelReady', message: {} } })
      expect(ready).to.deep.equal({ ok: true, value: { name: 'sentiment', ready: true } })
      expect(await overGrpc({ rest: { method: 'get', path: '' }, grpc: { rpc: 'ModelReady', message: { name: 'sentiment', version: '1' } } })).to.deep.equal({ ok: true, value: { ready: true } })
    })

    it('inference: labels, probabilities, decisions, confidences and top-k, value for value', async () => {
      const { rest } = await both(inferPair('sentiment', TEXTS, [{ name: 'predict' }, { name: 'predict_proba' }, { name: 'decision_function' }, { name: 'confidence' }, { name: 'predict_proba', classification: 2 }]))
      const outputs = (rest as { value: { outputs: Tensor[] } }).value.outputs
      expect(outputs.map(o => [o.name, o.datatype, o.shape])).to.deep.equal([['predict', 'BYTES', [3]], ['predict_proba', 'FP64', [3, 2]], ['decision_function', 'FP64', [3, 1]], ['confidence', 'FP64', [3]], ['predict_proba', 'BYTES', [3, 2]]])
      expect(outputs[0]!.data).to.deep.equal(['positive', 'negative', 'negative'])
      await both(inferPair('spam', ['WINNER! claim your free prize now', 'see you at lunch']))
    })

    it("the repository's index, load and unload", async () => {
      await both({ rest: { method: 'post', path: '/v2/repository/index', body: {} }, grpc: { rpc: 'RepositoryIndex', message: {} } })
      await both({ rest: { method: 'post', path: '/v2/repository/index', body: { ready: true } }, grpc: { rpc: 'RepositoryIndex', message: { ready: true } } })
      const restLoad = await overRest({ rest: { method: 'post', path: '/v2/repository/models/spam/load' }, grpc: { rpc: '', message: {} } })
      const grpcLoad = await overGrpc({ rest: { method: 'get', path: '' }, grpc: { rpc: 'RepositoryModelLoad', message: { model_name: 'spam' } } })
      expect([restLoad, grpcLoad]).to.deep.equal([{ ok: true, value: {} }, { ok: true, value: {} }])
    })
  })

  context('every failure: the same code, status and message', () => {
    it('ERR_NOT_FOUND: an unknown model, a version not served', async () => {
      await both(inferPair('nope', TEXTS), 'ERR_NOT_FOUND')
      await both({ rest: { method: 'get', path: '/v2/models/nope' }, grpc: { rpc: 'ModelMetadata', message: { name: 'nope' } } }, 'ERR_NOT_FOUND')
      await both({ rest: { method: 'get', path: '/v2/models/sentiment/versions/7' }, grpc: { rpc: 'ModelMetadata', message: { name: 'sentiment', version: '7' } } }, 'ERR_NOT_FOUND')
      await both({ rest: { method: 'post', path: '/v2/repository/models/nope/unload' }, grpc: { rpc: 'RepositoryModelUnload', message: { model_name: 'nope' } } }, 'ERR_NOT_FOUND')
      await both({ rest: { method: 'post', path: '/v2/repository/models/nope/load' }, grpc: { rpc: 'RepositoryModelLoad', message: { model_name: 'nope' } } }, 'ERR_NOT_FOUND')
    })

    it('ERR_MODEL_NOT_READY: a model whose load failed, inferred or loaded again', async () => {
      await both(inferPair('hostile', TEXTS), 'ERR_MODEL_NOT_READY')
      await both({ rest: { method: 'post', path: '/v2/repository/models/hostile/load' }, grpc: { rpc: 'RepositoryModelLoad', message: { model_name: 'hostile' } } }, 'ERR_MODEL_NOT_READY')
    })

    it('ERR_V2_INPUT: what the protocol does not allow', async () => {
      await both(inferPair('sentiment', []), 'ERR_V2_INPUT')
      await both(inferPair('sentiment', ['']), 'ERR_V2_INPUT')
      await both(inferPair('sentiment', Array.from({ length: 51 }, () => 'x')), 'ERR_V2_INPUT')
      await both(inferPair('sentiment', ['x'.repeat(10001)]), 'ERR_V2_INPUT')
      await both(inferPair('sentiment', TEXTS, [{ name: 'probabilities' }]), 'ERR_V2_INPUT')
      await both(inferPair('sentiment', TEXTS, [{ name: 'predict', classification: 0 }]), 'ERR_V2_INPUT')
      await both({ rest: { method: 'post', path: '/v2/models/sentiment/infer', body: { inputs: [{ name: 'text', datatype: 'FP64', shape: [1], data: ['x'] }] } }, grpc: { rpc: 'ModelInfer', message: { model_name: 'sentiment', inputs: [{ name: 'text', datatype: 'FP64', shape: [1], contents: { bytes_contents: [Buffer.from('x')] } }] } } }, 'ERR_V2_INPUT')
      await both({ rest: { method: 'post', path: '/v2/models/sentiment/infer', body: { inputs: [{ name: 'text', datatype: 'BYTES', shape: [2, 2], data: ['a', 'b', 'c', 'd'] }] } }, grpc: { rpc: 'ModelInfer', message: { model_name: 'sentiment', inputs: [{ name: 'text', datatype: 'BYTES', shape: [2, 2], contents: { bytes_contents: ['a', 'b', 'c', 'd'].map(t => Buffer.from(t)) } }] } } }, 'ERR_V2_INPUT')
      await both({ rest: { method: 'post', path: '/v2/models/sentiment/infer', body: { inputs: [{ name: 'text', datatype: 'BYTES', shape: [3], data: ['a', 'b'] }] } }, grpc: { rpc: 'ModelInfer', message: { model_name: 'sentiment', inputs: [{ name: 'text', datatype: 'BYTES', shape: [3], contents: { bytes_contents: ['a', 'b'].map(t => Buffer.from(t)) } }] } } }, 'ERR_V2_INPUT')
      await both({ rest: { method: 'post', path: '/v2/models/sentiment/infer', body: { inputs: [] } }, grpc: { rpc: 'ModelInfer', message: { model_name: 'sentiment', inputs: [] } } }, 'ERR_V2_INPUT')
    })

    it('ERR_UNAUTHORIZED, ERR_FORBIDDEN and ERR_RATE_LIMITED: keys, scopes and quotas', async () => {
      const wrong = inferPair('sentiment', TEXTS)
      const noKey = { rest: { ...wrong.rest, key: 'none' }, grpc: { ...wrong.grpc, key: 'none' } }
      await both(noKey, 'ERR_UNAUTHORIZED')
      await both({ rest: { method: 'post', path: '/v2/repository/models/spam/unload', key: 'user' }, grpc: { rpc: 'RepositoryModelUnload', message: { model_name: 'spam' }, key: 'user' } }, 'ERR_FORBIDDEN')
      const three = inferPair('sentiment', TEXTS)
      const tiny = { rest: { ...three.rest, key: 'tiny' }, grpc: { ...three.grpc, key: 'tiny' } }
      // The quota of three texts a day: REST's call uses it up, then both are refused alike.
      expect((await overRest(tiny)).ok).to.equal(true)
      await both(tiny, 'ERR_RATE_LIMITED')
    })

    it('ERR_REQUEST_TIMEOUT: a request that would pass REQUEST_TIMEOUT_MS', async () => {
      const slow = inferPair('sentiment', ['__sleep_2500__'])
      const rest = await overRest(slow)
      const viaGrpc = await overGrpc(slow)
      expect(rest).to.deep.equal({ ok: false, status: 503, message: 'request took longer than 1500 ms' })
      expect(viaGrpc).to.deep.equal({ ok: false, status: status.UNAVAILABLE, message: 'request took longer than 1500 ms' })
    })

    it('ERR_UNIMPLEMENTED (gRPC only: REST has no repository name) follows the table too', async () => {
      const outcome = await overGrpc({ rest: { method: 'get', path: '' }, grpc: { rpc: 'RepositoryIndex', message: { repository_name: 'other' } } })
      expect(outcome).to.deep.equal({ ok: false, status: ERROR_CODES.ERR_UNIMPLEMENTED.grpc, message: 'named repositories are not supported (got "other"); leave repository_name empty' })
      expect(ERROR_CODES.ERR_UNIMPLEMENTED.grpc).to.equal(status.UNIMPLEMENTED)
    })
  })

  it('binary tensors in and out, both ways', async () => {
    const header = Buffer.from(JSON.stringify({ inputs: [{ name: 'text', datatype: 'BYTES', shape: [3], parameters: { binary_data_size: writeBinaryStrings(TEXTS).length } }], outputs: [{ name: 'predict' }] }))
    const body = Buffer.concat([header, writeBinaryStrings(TEXTS)])
    const res = await request(app).post('/v2/models/sentiment/infer').set('Authorization', `Bearer ${keys.secrets.admin!}`).set('Inference-Header-Content-Length', String(header.length)).set('content-type', 'application/octet-stream').send(body)
    expect(res.status).to.equal(200)
    const viaGrpc = await overGrpc({ rest: { method: 'get', path: '' }, grpc: { rpc: 'ModelInfer', message: { model_name: 'sentiment', inputs: [{ name: 'text', datatype: 'BYTES', shape: [3] }], raw_input_contents: [writeBinaryStrings(TEXTS)], outputs: [{ name: 'predict', parameters: {} }] } } })
    expect(viaGrpc).to.deep.equal({ ok: true, value: { model_name: 'sentiment', model_version: '1', outputs: [{ name: 'predict', datatype: 'BYTES', shape: [3], data: (res.body as { outputs: Tensor[] }).outputs[0]!.data }] } })
  })
})
