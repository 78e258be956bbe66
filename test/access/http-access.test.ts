/**
 * Keys, scopes and in-process limits on a real app over a real pool, and gRPC over the same
 * context with a real @grpc/grpc-js client: every route without a key, with a wrong one, with
 * one of the wrong scope and with the right one; the probes left open; the key file changed
 * under a running service; the 429 fields; what logs and metrics say (and never say).
 */
import { credentials, status, type Client, type ServiceError as GrpcError } from '@grpc/grpc-js'
import { Metadata } from '@grpc/grpc-js'
import { Validator } from '@seriousme/openapi-schema-validator'
import { expect } from 'chai'
import { writeFileSync } from 'node:fs'
import request from 'supertest'
import { hashSecret } from '../../src/access/secret.js'
import { parseConfig } from '../../src/config.js'
import { loadServices } from '../../src/grpc/protos.js'
import { startGrpcServer, type ListeningGrpcServer } from '../../src/grpc/server.js'
import { createApp, createContext } from '../../src/http/app.js'
import type { AppContext } from '../../src/http/context.js'
import { createPino, loggerOf } from '../../src/logger.js'
import type { ClassifierPool } from '../../src/pool/classifier-pool.js'
import { openRepository } from '../../src/repository/open.js'
import { readExposition } from '../helpers/exposition.js'
import { waitFor, writeKeyFile, type KeyFile, type KeySpec } from '../helpers/keys.js'

const SERVICES = loadServices()
type Line = Record<string, unknown>

const KEYS: KeySpec[] = [
  { id: 'reader', scopes: ['predict'] },
  { id: 'operator', scopes: ['admin'] },
  { id: 'scraper', scopes: ['metrics'] },
  { id: 'doomed', scopes: ['predict'] },
  { id: 'slow', scopes: ['predict'], limits: { requests_per_second: 3 } },
  { id: 'wordy', scopes: ['predict'], limits: { texts_per_second: 10 } },
  { id: 'daily', scopes: ['predict'], limits: { texts_per_day: 10 } }
]

const single = { text: 'a wonderful, moving film' }
const batch = { texts: ['a wonderful, moving film', 'dull and lifeless'] }
const v2Body = { inputs: [{ name: 'text', datatype: 'BYTES', shape: [1], data: ['a wonderful, moving film'] }] }

/** Every route that asks for a key: method, path, body, scope, and the status the right key gets. */
const GUARDED: Array<[string, string, object | undefined, string, number]> = [
  ['post', '/predict', single, 'predict', 200],
  ['post', '/batch_predict', batch, 'predict', 200],
  ['post', '/explain', single, 'predict', 200],
  ['get', '/models', undefined, 'predict', 200],
  ['post', '/models/default/predict', single, 'predict', 200],
  ['post', '/models/default/batch_predict', batch, 'predict', 200],
  ['post', '/models/default/explain', single, 'predict', 200],
  ['get', '/v2/models/default', undefined, 'predict', 200],
  ['get', '/v2/models/default/versions/1', undefined, 'predict', 200],
  ['post', '/v2/models/default/infer', v2Body, 'predict', 200],
  ['post', '/v2/models/default/versions/1/infer', v2Body, 'predict', 200],
  ['post', '/v2/repository/index', {}, 'predict', 200],
  ['post', '/v2/repository/models/default/load', {}, 'admin', 200],
  ['get', '/metrics', undefined, 'metrics', 200]
]
const OPEN = ['/health', '/', '/v2', '/v2/health/live', '/v2/health/ready', '/v2/models/default/ready', '/openapi.json', '/docs']
const KEY_OF: Record<string, string> = { predict: 'reader', admin: 'operator', metrics: 'scraper' }

describe('access control (keys, scopes, limits) over HTTP and gRPC', function () {
  this.timeout(120000)
  let keys: KeyFile
  let pool: ClassifierPool
  let ctx: AppContext
  let app: ReturnType<typeof createApp>
  let grpc: ListeningGrpcServer
  let inference: Client
  const logged: Line[] = []

  before(async () => {
    keys = writeKeyFile(KEYS)
    const config = parseConfig({ API_KEYS_FILE: keys.file, METRICS_REQUIRE_KEY: 'true', WORKERS: '1', CACHE_SIZE: '0', LOG_LEVEL: 'info' })
    const opened = await openRepository(config)
    pool = opened.pool
    ctx = createContext({ config, pool, repository: opened.repository, logger: loggerOf(createPino('info', { write: (line: string) => { logged.push(JSON.parse(line) as Line) } })) })
    app = createApp({ config, pool, context: ctx })
    grpc = await startGrpcServer(ctx, 0, '127.0.0.1')
    inference = new SERVICES.inference(`127.0.0.1:${grpc.port}`, credentials.createInsecure())
  })
  after(async () => {
    inference?.close()
    await grpc?.close()
    await ctx?.access?.close()
    await pool?.close()
  })

  const call = (method: string, path: string, body?: object): request.Test => {
    const r = (request(app) as unknown as Record<string, (p: string) => request.Test>)[method]!(path)
    return body === undefined ? r : r.send(body)
  }

  it('refuses every guarded route without a key: 401, WWW-Authenticate and a detail', async () => {
    for (const [method, path, body] of GUARDED) {
      const res = await call(method, path, body)
      expect(res.status, path).to.equal(401)
      expect(res.headers['www-authenticate'], path).to.equal('Bearer realm="tfidf-serve"')
      const message = path.startsWith('/v2') ? (res.body as { error: string }).error : (res.body as { detail: string }).detail
      expect(message, path).to.equal('an API key is required: send it as "Authorization: Bearer <key>" or "X-API-Key: <key>"')
    }
  })

  it('refuses a wrong key with 401 and a key of the wrong scope with 403, on every guarded route', async () => {
    for (const [method, path, body, scope] of GUARDED) {
      const wrong = await call(method, path, body).set('Authorization', 'Bearer tfs_not-a-key-we-know')
      expect(wrong.status, path).to.equal(401)
      expect(wrong.headers['www-authenticate'], path).to.equal('Bearer realm="tfidf-serve"')
      const other = scope === 'predict' ? 'operator' : 'reader'
      const denied = await call(method, path, body).set('X-API-Key', keys.secrets[other]!)
      expect(denied.status, path).to.equal(403)
      expect(denied.headers['www-authenticate'], path).to.equal(undefined)
      const message = path.startsWith('/v2') ? (denied.body as { error: string }).error : (denied.body as { detail: string }).detail
      expect(message, path).to.equal(`the API key ${other} lacks the "${scope}" scope`)
    }
  })

  it('serves every guarded route to a key with its scope, as a Bearer token or X-API-Key', async () => {
    for (const [method, path, body, scope, ok] of GUARDED) {
      const secret = keys.secrets[KEY_OF[scope]!]!
      expect((await call(method, path, body).set('Authorization', `Bearer ${secret}`)).status, path).to.equal(ok)
      expect((await call(method, path, body).set('authorization', `bearer  ${secret}`)).status, path).to.equal(ok)
      expect((await call(method, path, body).set('X-API-Key', secret)).status, path).to.equal(ok)
    }
    const answer = (await call('post', '/predict', single).set('X-API-Key', keys.secrets.reader!)).body as { sentiment: string }
    expect(answer.sentiment).to.equal('positive')
  })

  it('leaves the probes, the description and the docs open', async () => {
    for (const path of OPEN) expect((await request(app).get(path)).status, path).to.equal(200)
    const unknown = await request(app).get('/nope')
    expect(unknown.status).to.equal(404)
  })

  it('declares both ways to send a key in its OpenAPI document, the scope of each route, and the 401, 403 and 429 it may answer', async () => {
    const doc = (await request(app).get('/openapi.json').expect(200)).body as { paths: Record<string, Record<string, { security?: unknown[], responses: Record<string, unknown>, description?: string }>>, components: { securitySchemes: unknown } }
    const validator = new Validator()
    expect((await validator.validate(doc)).errors ?? []).to.deep.equal([])
    expect(doc.components.securitySchemes).to.deep.include({ apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'The same key in X-API-Key' } })
    const template = (p: string): string => p.replace('/models/default', '/models/{name}').replace('/versions/1', '/versions/{version}')
    for (const [method, path, , scope] of GUARDED) {
      const operation = doc.paths[template(path)]![method]!
      expect(operation.security, path).to.deep.equal([{ bearerAuth: [] }, { apiKeyHeader: [] }])
      expect(operation.description, path).to.include(`Needs a key with the \`${scope}\` scope.`)
      expect(Object.keys(operation.responses), path).to.include.members(['401', '403', '429'])
    }
    for (const path of OPEN.filter(p => p !== '/v2/models/default/ready')) expect(doc.paths[path]!.get!.security, path).to.deep.equal([])
  })

  it('refuses a 10 KB Authorization header with 401 and keeps serving', async () => {
    const huge = `Bearer tfs_${'x'.repeat(10 * 1024)}`
    const res = await call('post', '/predict', single).set('Authorization', huge)
    expect(res.status).to.equal(401)
    expect((res.body as { detail: string }).detail).to.equal('the API key is not valid')
    expect((await call('post', '/predict', single).set('X-API-Key', keys.secrets.reader!)).status).to.equal(200)
  })

  it('limits a key\'s requests a second: 429 with Retry-After and the RateLimit fields, then serves again', async () => {
    const secret = keys.secrets.slow!
    // Aligned to a fresh window: wait until a request passes, then send the rest at once.
    const statuses: number[] = []
    const answers = await Promise.all(Array.from({ length: 5 }, async () => await call('post', '/predict', single).set('X-API-Key', secret)))
    for (const a of answers) statuses.push(a.status)
    expect(statuses.filter(s => s === 200).length).to.equal(3)
    const limited = answers.find(a => a.status === 429)!
    expect(limited.headers['retry-after']).to.equal('1')
    expect(limited.headers['ratelimit-policy']).to.equal('"requests";q=3;w=1')
    expect(limited.headers.ratelimit).to.equal('"requests";r=0;t=1')
    expect((limited.body as { detail: string }).detail).to.equal('rate limit of 3 requests a second exceeded for key slow')
    // Answers let through carry the fields once half the quota is gone: r=1 and r=0 here, not r=2.
    const fields = answers.filter(a => a.status === 200).map(a => a.headers.ratelimit as string | undefined).sort()
    expect(fields).to.deep.equal(['"requests";r=0;t=1', '"requests";r=1;t=1', undefined])
    expect(answers.filter(a => a.status === 200 && a.headers.ratelimit !== undefined).every(a => a.headers['ratelimit-policy'] === '"requests";q=3;w=1')).to.equal(true)
    await new Promise(resolve => setTimeout(resolve, 1100))
    expect((await call('post', '/predict', single).set('X-API-Key', secret)).status).to.equal(200)
  })

  it('limits a key\'s texts a second, a batch costing its length', async () => {
    const secret = keys.secrets.wordy!
    const eight = { texts: Array.from({ length: 8 }, (_, i) => `text number ${i}`) }
    const first = await call('post', '/batch_predict', eight).set('X-API-Key', secret)
    expect(first.status).to.equal(200)
    expect(first.headers['ratelimit-policy']).to.equal('"texts";q=10;w=1')
    expect(first.headers.ratelimit).to.equal('"texts";r=2;t=1')
    const second = await call('post', '/batch_predict', { texts: ['a', 'b', 'c'] }).set('X-API-Key', secret)
    expect(second.status).to.equal(429)
    expect(second.headers['retry-after']).to.equal('1')
    expect((second.body as { detail: string }).detail).to.equal('rate limit of 10 texts a second exceeded for key wordy')
  })

  it('holds a key to its texts a day across REST, V2 and gRPC; refused texts do not count; 429 says when it resets', async () => {
    const secret = keys.secrets.daily!
    const texts = (n: number): object => ({ texts: Array.from({ length: n }, (_, i) => `review ${i}`) })
    const six = await call('post', '/batch_predict', texts(6)).set('X-API-Key', secret)
    expect(six.status).to.equal(200)
    expect(six.headers['ratelimit-policy']).to.equal('"daily";q=10;w=86400')
    expect(six.headers.ratelimit).to.match(/^"daily";r=4;t=\d+$/)
    const five = await call('post', '/batch_predict', texts(5)).set('X-API-Key', secret)
    expect(five.status).to.equal(429)
    const midnight = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() + 1))
    expect((five.body as { detail: string }).detail).to.equal(`daily quota of 10 texts used up for key daily; it resets at ${midnight.toISOString().replace('.000Z', 'Z')}`)
    const retryAfter = Number(five.headers['retry-after'])
    expect(Math.abs(retryAfter - (midnight.getTime() - Date.now()) / 1000)).to.be.below(5)
    // 4 left: two through V2, one through gRPC, one through /predict; then none.
    const v2 = await call('post', '/v2/models/default/infer', { inputs: [{ name: 'text', datatype: 'BYTES', shape: [2], data: ['one', 'two'] }] }).set('X-API-Key', secret)
    expect(v2.status).to.equal(200)
    const md = new Metadata()
    md.set('authorization', `Bearer ${secret}`)
    const infer = { model_name: 'default', inputs: [{ name: 'text', datatype: 'BYTES', shape: [1], contents: { bytes_contents: [Buffer.from('three')] } }] }
    await grpcCall(inference, 'ModelInfer', infer, md)
    expect((await call('post', '/predict', single).set('X-API-Key', secret)).status).to.equal(200)
    expect((await call('post', '/predict', single).set('X-API-Key', secret)).status).to.equal(429)
    const over = await grpcCall(inference, 'ModelInfer', infer, md).then(() => { throw new Error('served') }, (err: GrpcError) => err)
    expect(over.code).to.equal(status.RESOURCE_EXHAUSTED)
    expect(over.details).to.match(/^daily quota of 10 texts used up for key daily; it resets at /)
    // REST's 429 fields, as trailing metadata
    expect(Math.abs(Number(over.metadata.get('retry-after')[0]) - (midnight.getTime() - Date.now()) / 1000)).to.be.below(5)
    expect(over.metadata.get('ratelimit-policy')).to.deep.equal(['"daily";q=10;w=86400'])
    expect(String(over.metadata.get('ratelimit')[0])).to.match(/^"daily";r=0;t=\d+$/)
    const overV2 = await call('post', '/v2/models/default/infer', v2Body).set('X-API-Key', secret)
    expect(overV2.status).to.equal(429)
    expect((overV2.body as { error: string }).error).to.match(/^daily quota of 10 texts used up/)
  })

  it('asks gRPC calls for the same keys and scopes; health, liveness and readiness stay open', async () => {
    const infer = { model_name: 'default', inputs: [{ name: 'text', datatype: 'BYTES', shape: [1], contents: { bytes_contents: [Buffer.from('a wonderful, moving film')] } }] }
    expect(await grpcCall(inference, 'ServerLive', {}, new Metadata())).to.deep.equal({ live: true })
    expect(await grpcCall(inference, 'ModelReady', { name: 'default' }, new Metadata())).to.deep.equal({ ready: true })
    expect(await grpcFailure(inference, 'ModelInfer', infer, new Metadata())).to.deep.equal({ code: status.UNAUTHENTICATED, details: 'an API key is required: send it as "Authorization: Bearer <key>" or "X-API-Key: <key>"' })
    const unauthenticated = await grpcCall(inference, 'ModelInfer', infer, new Metadata()).then(() => { throw new Error('served') }, (err: GrpcError) => err)
    expect(unauthenticated.metadata.get('www-authenticate')).to.deep.equal(['Bearer realm="tfidf-serve"'])
    const wrong = new Metadata()
    wrong.set('x-api-key', 'tfs_nope')
    expect((await grpcFailure(inference, 'ModelMetadata', { name: 'default' }, wrong)).code).to.equal(status.UNAUTHENTICATED)
    const operator = new Metadata()
    operator.set('x-api-key', keys.secrets.operator!)
    expect(await grpcFailure(inference, 'ModelInfer', infer, operator)).to.deep.equal({ code: status.PERMISSION_DENIED, details: 'the API key operator lacks the "predict" scope' })
    const reader = new Metadata()
    reader.set('authorization', `Bearer ${keys.secrets.reader!}`)
    expect((await grpcFailure(inference, 'RepositoryModelUnload', { model_name: 'default' }, reader)).code).to.equal(status.PERMISSION_DENIED)
    const answer = await grpcCall<{ outputs: Array<{ name: string, contents: { bytes_contents: Buffer[] } | null }>, raw_output_contents: Buffer[] }>(inference, 'ModelInfer', infer, reader)
    expect(answer.outputs[0]!.name).to.equal('predict')
    expect(await grpcCall(inference, 'RepositoryModelLoad', { model_name: 'default' }, operator)).to.deep.equal({})
    const line = logged.filter(l => l.rpc === 'ModelInfer' && l.status === 'OK').at(-1)!
    expect(line.key).to.equal('reader')
  })

  it('logs and counts each request under its key id, and never writes a secret or its hash', async () => {
    await call('post', '/predict', single).set('X-API-Key', keys.secrets.reader!).expect(200)
    const line = logged.filter(l => l.msg === 'request' && l.path === '/predict' && l.status === 200).at(-1)!
    expect(line.key).to.equal('reader')
    const scrape = await request(app).get('/metrics').set('Accept', 'text/plain;version=0.0.4').set('X-API-Key', keys.secrets.scraper!).expect(200)
    const { samples } = readExposition(scrape.text)
    const family = (name: string): Array<{ value: string, labels: Readonly<Record<string, string>> }> => samples.filter(s => s.name === name).map(s => ({ value: String(s.value), labels: s.labels }))
    const predicted = family('tfidf_http_requests_total').filter(m => m.labels.route === '/predict' && m.labels.status === '200' && m.labels.key === 'reader')
    expect(Number(predicted[0]!.value)).to.be.greaterThan(3)
    expect(family('tfidf_http_requests_total').some(m => m.labels.status === '401' && m.labels.key === '')).to.equal(true)
    expect(Number(family('tfidf_auth_refusals_total').find(m => m.labels.reason === 'missing')!.value)).to.be.at.least(GUARDED.length)
    expect(Number(family('tfidf_auth_refusals_total').find(m => m.labels.reason === 'scope')!.value)).to.be.at.least(GUARDED.length)
    const limited = family('tfidf_rate_limited_total')
    expect(limited.find(m => m.labels.key === 'slow' && m.labels.limit === 'requests')!.value).to.equal('2')
    expect(limited.find(m => m.labels.key === 'wordy' && m.labels.limit === 'texts')!.value).to.equal('1')
    expect(Number(limited.find(m => m.labels.key === 'daily' && m.labels.limit === 'quota')!.value)).to.equal(4)
    const all = JSON.stringify(logged) + scrape.text
    for (const secret of Object.values(keys.secrets)) {
      expect(all).to.not.include(secret)
      expect(all).to.not.include(secret.slice(4))
      expect(all).to.not.include(hashSecret(secret).toString('hex'))
    }
  })

  it('takes a changed key file at once: a revoked key gets 401; a broken file leaves the keys in force, said in one line', async () => {
    const doomed = keys.secrets.doomed!
    expect((await call('post', '/predict', single).set('X-API-Key', doomed)).status).to.equal(200)
    keys.rewrite(KEYS.filter(k => k.id !== 'doomed'))
    await waitFor(async () => (await call('post', '/predict', single).set('X-API-Key', doomed)).status === 401)
    expect((await call('post', '/predict', single).set('X-API-Key', keys.secrets.reader!)).status).to.equal(200)
    const before = logged.length
    writeFileSync(keys.file, '{"keys": [')
    await waitFor(() => logged.slice(before).some(l => String(l.msg).startsWith('api keys not reloaded')))
    const complaint = logged.slice(before).filter(l => String(l.msg).startsWith('api keys not reloaded'))
    expect(complaint[0]!.msg).to.equal(`api keys not reloaded, the previous keys stay in force: invalid key file ${keys.file}: not valid JSON: Unexpected end of JSON input`)
    expect((await call('post', '/predict', single).set('X-API-Key', keys.secrets.reader!)).status).to.equal(200)
    expect((await call('post', '/predict', single).set('X-API-Key', doomed)).status).to.equal(401)
    keys.rewrite(KEYS)
    await waitFor(async () => (await call('post', '/predict', single).set('X-API-Key', doomed)).status === 200)
  })
})

async function grpcCall<T = Record<string, unknown>> (client: Client, method: string, message: object, metadata: Metadata): Promise<T> {
  const fn = (client as unknown as Record<string, (m: object, md: Metadata, cb: (err: GrpcError | null, res: T) => void) => void>)[method]!
  return await new Promise<T>((resolve, reject) => { fn.call(client, message, metadata, (err, res) => { if (err === null) resolve(res); else reject(err) }) })
}

async function grpcFailure (client: Client, method: string, message: object, metadata: Metadata): Promise<{ code: number, details: string }> {
  try {
    await grpcCall(client, method, message, metadata)
  } catch (err) {
    return { code: (err as GrpcError).code, details: (err as GrpcError).details }
  }
  throw new Error(`${method} succeeded`)
}
