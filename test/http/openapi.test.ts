import { expect } from 'chai'
import { Validator } from '@seriousme/openapi-schema-validator'
import { Ajv2020 } from 'ajv/dist/2020.js'
import type { Express } from 'express'
import request from 'supertest'
import { startService, type Service } from '../helpers/service.js'

type Json = Record<string, unknown>

/** The (path, method) pairs the app routes, the 405 catch-alls (app.all: every method) left out. */
function routesOf (app: Express): Array<[string, string]> {
  const stack = (app as unknown as { router: { stack: Array<{ route?: { path: string, methods: Record<string, boolean> } }> } }).router.stack
  return stack.flatMap(layer => {
    const methods = Object.keys(layer.route?.methods ?? {})
    return methods.length > 5 ? [] : methods.map(m => [layer.route!.path, m] as [string, string])
  })
}

/** The document's path template for a concrete path ('/docs/init.js' -> '/docs/{asset}'). */
function templateOf (doc: Json, path: string): string | undefined {
  return Object.keys(doc.paths as Json).find(t => new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+').replace(/\./g, '\\.')}$`).test(path))
}

describe('GET /openapi.json', function () {
  this.timeout(60000)
  let service: Service
  let doc: Json
  before(async () => {
    service = await startService({ MAX_CONCURRENT_REQUESTS: '1', MAX_QUEUE: '0', CACHE_SIZE: '0' }, { hooked: true })
    doc = (await request(service.app).get('/openapi.json').expect(200).expect('content-type', /application\/json/)).body as Json
  })
  after(async () => { await service.close() })

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator()
    const result = await validator.validate(doc)
    expect(result.errors ?? []).to.deep.equal([])
    expect(result.valid).to.equal(true)
    expect(validator.version).to.equal('3.1')
  })

  it('describes every route the app has, with its method', () => {
    const routes = routesOf(service.app)
    expect(routes.length).to.be.above(8)
    for (const [path, method] of routes) {
      const template = templateOf(doc, path)
      expect(template, path).not.to.equal(undefined)
      expect(((doc.paths as Json)[template!] as Json)[method], `${method} ${path}`).to.be.an('object')
    }
  })

  it('describes every status each route answers, and each JSON body matches its schema', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
    ajv.addSchema(doc, 'api')
    const app = service.app
    const big = (i: number): string[] => Array.from({ length: 50 }, (_, k) => `text ${i} ${k} ${'word '.repeat(1500)}`)
    const calls: Array<[string, string, () => Promise<request.Response>]> = [
      ['/predict', 'post', async () => await request(app).post('/predict').send({ text: 'a wonderful film' })],
      ['/predict', 'post', async () => await request(app).post('/predict').send({ texts: ['a wonderful film', 'dull'] })],
      ['/predict', 'post', async () => await request(app).post('/predict').set('content-type', 'application/json').send('{"text": ')],
      ['/predict', 'post', async () => await request(app).post('/predict').set('content-type', 'application/json').send(JSON.stringify({ text: 'x'.repeat(1_100_000) }))],
      ['/predict', 'post', async () => await request(app).post('/predict').send({ texts: [] })],
      ['/predict', 'post', async () => await request(app).post('/predict').send({ texts: ['__crash__'] })],
      ['/batch_predict', 'post', async () => await request(app).post('/batch_predict').send({ texts: ['a wonderful film'] })],
      ['/batch_predict', 'post', async () => await request(app).post('/batch_predict').send({ text: 'x' })],
      ['/explain', 'post', async () => await request(app).post('/explain').send({ text: 'a wonderful film', top_k: 3 })],
      ['/explain', 'post', async () => await request(app).post('/explain').send({ texts: ['a wonderful film', 'dull'] })],
      ['/explain', 'post', async () => await request(app).post('/explain').send({ texts: ['ok'], top_k: 1000 })],
      ['/health', 'get', async () => await request(app).get('/health')],
      ['/metrics', 'get', async () => await request(app).get('/metrics')],
      ['/metrics', 'get', async () => await request(app).get('/metrics?format=prometheus')],
      ['/metrics', 'get', async () => await request(app).get('/metrics').set('Accept', 'application/openmetrics-text; version=1.0.0')],
      ['/metrics', 'get', async () => await request(app).get('/metrics?format=xml')],
      ['/', 'get', async () => await request(app).get('/')],
      ['/openapi.json', 'get', async () => await request(app).get('/openapi.json')],
      ['/docs', 'get', async () => await request(app).get('/docs')],
      ['/docs/init.js', 'get', async () => await request(app).get('/docs/init.js')],
      ['/docs/swagger-ui.css', 'get', async () => await request(app).get('/docs/swagger-ui.css')],
      ['/docs/nope.js', 'get', async () => await request(app).get('/docs/nope.js')],
      ['/predict', 'options', async () => await request(app).options('/predict').set('Origin', 'http://example.com').set('Access-Control-Request-Method', 'POST')]
    ]
    const seen = new Set<string>()
    for (const [path, method, call] of calls) {
      const res = await call()
      const template = templateOf(doc, path)!
      const operation = ((doc.paths as Json)[template] as Json)[method] as { responses: Record<string, { content?: Record<string, unknown> }> }
      const documented = operation.responses[String(res.status)]
      expect(documented, `${method} ${path} answered ${res.status}`).not.to.equal(undefined)
      seen.add(`${method} ${path} ${res.status}`)
      const type = String(res.headers['content-type'] ?? '').split(';')[0]!
      if (type === 'application/json' && path !== '/openapi.json') {
        const pointer = `api#/paths/${template.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}/responses/${res.status}/content/application~1json/schema`
        const validate = ajv.compile({ $ref: pointer })
        expect(validate(res.body), `${method} ${path} ${res.status}: ${JSON.stringify(validate.errors)}`).to.equal(true)
      }
    }
    // Past MAX_CONCURRENT_REQUESTS=1 and MAX_QUEUE=0: 503, documented too.
    const both = await Promise.all([0, 1].map(async i => await request(app).post('/predict').send({ texts: big(i) })))
    const refused = both.find(r => r.status === 503)!
    expect(refused, 'one of two concurrent requests is refused').not.to.equal(undefined)
    expect((((doc.paths as Json)['/predict'] as Json).post as { responses: Json }).responses['503']).to.be.an('object')
    expect([...seen]).to.include.members(['post /predict 200', 'post /predict 400', 'post /predict 413', 'post /predict 422', 'post /predict 500', 'post /explain 422', 'get /metrics 400', 'options /predict 204', 'get /docs/nope.js 404'])
  })

  it('documents the answers every route may give outside its operations: 404, 405 and the parser\'s 400', async () => {
    const responses = (doc.components as { responses: Json }).responses
    const notFound = await request(service.app).get('/nowhere').expect(404)
    expect(Object.keys(responses)).to.include.members(['NotFound', 'MethodNotAllowed', 'BadRequest', 'RequestTimeout', 'RequestHeaderFieldsTooLarge'])
    const ajv = new Ajv2020({ strict: false })
    ajv.addSchema(doc, 'api')
    expect(ajv.compile({ $ref: 'api#/components/schemas/Error' })(notFound.body)).to.equal(true)
    const wrongMethod = await request(service.app).delete('/predict').expect(405)
    expect(wrongMethod.headers.allow).to.equal('POST')
  })

  it('builds its request schemas from the limits the validator uses', async () => {
    const small = await startService({ MAX_BATCH_SIZE: '7', MAX_TEXT_LENGTH: '99' })
    try {
      const d = (await request(small.app).get('/openapi.json')).body as Json
      const body = (((d.paths as Json)['/batch_predict'] as Json).post as { requestBody: { content: { 'application/json': { schema: { properties: { texts: { maxItems: number, items: { maxLength: number } } } } } } } }).requestBody.content['application/json'].schema
      expect([body.properties.texts.maxItems, body.properties.texts.items.maxLength]).to.deep.equal([7, 99])
      const res = await request(small.app).post('/batch_predict').send({ texts: Array.from({ length: 8 }, () => 'x') }).expect(422)
      expect((res.body as { detail: Array<{ type: string }> }).detail[0]!.type).to.equal('too_long')
    } finally {
      await small.close()
    }
  })
})
