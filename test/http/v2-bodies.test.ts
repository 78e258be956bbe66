/**
 * V2 bodies take one bounded path (issue 23, defects 2 and 7): the repository index's body is
 * shape-checked and parsed like an inference's (400 `{"error"}`, never a 500 or a deep parse on
 * the front thread), and a body's content coding is decoded (gzip, deflate, br, any case) or
 * refused with 415, never read as identity; the spec's routes take codings alike.
 */
import { expect } from 'chai'
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib'
import request from 'supertest'
import { startService, type Service } from '../helpers/service.js'

const INFER = Buffer.from(JSON.stringify({ inputs: [{ name: 'text', datatype: 'BYTES', shape: [1], data: ['a wonderful, moving film'] }], outputs: [{ name: 'predict' }] }))
const ANSWER = { model_name: 'default', model_version: '1', outputs: [{ name: 'predict', datatype: 'BYTES', shape: [1], data: ['positive'] }] }

/** superagent would send a Buffer under a JSON type as JSON (`{"type":"Buffer",...}`): bytes as they are. */
const asIs = (body: unknown): string => body as string

describe('V2 request bodies', function () {
  this.timeout(60000)
  let service: Service

  before(async () => { service = await startService() })
  after(async () => { await service.close() })

  context('the repository index', () => {
    for (const [name, body] of [['{', Buffer.from('{')], ['null', Buffer.from('null')], ['[', Buffer.from('[')], ['a 0xFF byte', Buffer.from([0xff])], ['a list', Buffer.from('[1]')]] as const) {
      it(`answers ${name} with 400 {"error"}`, async () => {
        const res = await request(service.app).post('/v2/repository/index').set('content-type', 'application/json').serialize(asIs).send(body)
        expect(res.status).to.equal(400)
        expect(res.headers['content-type']).to.equal('application/json')
        expect(Object.keys(res.body as object)).to.deep.equal(['error'])
      })
    }

    it('refuses a body nested 500,000 deep from its shape, unparsed, and keeps serving', async () => {
      const deep = Buffer.from('['.repeat(500_000) + ']'.repeat(500_000))
      const res = await request(service.app).post('/v2/repository/index').set('content-type', 'application/json').serialize(asIs).send(deep.subarray(0, 1024 * 1024 - 1))
      expect(res.status).to.equal(400)
      expect((res.body as { error: string }).error).to.match(/nest/)
      const index = await request(service.app).post('/v2/repository/index').send({ ready: true })
      expect([index.status, index.body]).to.deep.equal([200, [{ name: 'default', version: '1', state: 'READY', reason: '' }]])
    })

    it('still takes an empty body and {"ready": bool}', async () => {
      expect((await request(service.app).post('/v2/repository/index').set('content-type', '').send('')).status).to.equal(200)
      expect((await request(service.app).post('/v2/repository/index').send({ ready: 'yes' })).body).to.deep.equal({ error: 'ready must be a boolean' })
    })
  })

  context('content codings', () => {
    const coded: Array<[string, Buffer]> = [['gzip', gzipSync(INFER)], ['GZIP', gzipSync(INFER)], ['x-gzip', gzipSync(INFER)], ['deflate', deflateSync(INFER)], ['br', brotliCompressSync(INFER)], ['Br', brotliCompressSync(INFER)], ['identity', INFER], ['gzip, br', brotliCompressSync(gzipSync(INFER))]]
    for (const [coding, body] of coded) {
      it(`decodes Content-Encoding: ${coding}`, async () => {
        const res = await request(service.app).post('/v2/models/default/infer').set('content-encoding', coding).send(body)
        expect([res.status, res.body]).to.deep.equal([200, ANSWER])
      })
    }

    for (const coding of ['x-unknown', 'compress', 'br, zstd']) {
      it(`refuses Content-Encoding: ${coding} with 415 and Accept-Encoding, on V2 and on the spec's routes`, async () => {
        const v2 = await request(service.app).post('/v2/models/default/infer').set('content-encoding', coding).send(INFER)
        expect([v2.status, v2.headers['accept-encoding'], Object.keys(v2.body as object)]).to.deep.equal([415, 'gzip, deflate, br', ['error']])
        const spec = await request(service.app).post('/predict').set('content-type', 'application/json').set('content-encoding', coding).send('{"text": "fine"}')
        expect([spec.status, spec.headers['accept-encoding'], typeof (spec.body as { detail: unknown }).detail]).to.deep.equal([415, 'gzip, deflate, br', 'string'])
      })
    }

    it('answers broken gzip with 400, and a gzip bomb past four times the body limit with 400', async () => {
      const broken = await request(service.app).post('/v2/models/default/infer').set('content-encoding', 'gzip').send(Buffer.from('not gzip at all'))
      expect(broken.status).to.equal(400)
      const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20))
      const res = await request(service.app).post('/v2/models/default/infer').set('content-encoding', 'gzip').send(bomb)
      expect(res.status).to.equal(400)
      expect((res.body as { error: string }).error).to.match(/^the gzip body cannot be inflated/)
    })

    it("decodes a coded body on the spec's routes, shape checks included", async () => {
      const res = await request(service.app).post('/predict').set('content-type', 'application/json').set('content-encoding', 'gzip').serialize(asIs).send(gzipSync('{"text": "a wonderful, moving film"}'))
      expect([res.status, (res.body as { sentiment: string }).sentiment]).to.deep.equal([200, 'positive'])
      const deep = await request(service.app).post('/predict').set('content-type', 'application/json').set('content-encoding', 'gzip').serialize(asIs).send(gzipSync('['.repeat(100) + ']'.repeat(100)))
      expect(deep.status).to.equal(422)
    })
  })
})
