import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import request from 'supertest'
import { pyRound } from '../../src/http/rounding.js'
import { DEFAULT_MODEL_PATH, DEFAULT_VECTORIZER_PATH } from '../../src/paths.js'
import { loadModel } from '../../src/sklearn/load-model.js'
import type { Predictor } from '../../src/sklearn/predictor.js'
import { FIXTURES, ROOT } from '../helpers/paths.js'
import { startService, type Service } from '../helpers/service.js'

const TEXTS = (JSON.parse(readFileSync(path.join(FIXTURES, 'sklearn', 'texts.json'), 'utf8')) as { texts: string[] }).texts
  .filter(t => t.trim() !== '' || t.length > 0).slice(0, 120)

/** Runs a command with `input` on stdin. */
async function run (command: string, args: string[], input: string): Promise<{ stdout: string }> {
  return await new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] })
    let stdout = ''
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString() })
    child.on('error', reject)
    child.on('close', () => resolve({ stdout }))
    child.stdin.end(input)
  })
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe('the HTTP endpoints on the default model', function () {
  this.timeout(60000)
  let service: Service
  let predictor: Predictor

  before(async () => {
    service = await startService({ CACHE_SIZE: '0' })
    predictor = (await loadModel({ model: DEFAULT_MODEL_PATH, vectorizers: [DEFAULT_VECTORIZER_PATH] })).predictor
  })
  after(async () => { await service.close() })

  context('POST /predict, batch form', () => {
    it('answers every text in input order with the label and 2-decimal confidence scikit-learn would give', async () => {
      const texts = TEXTS.slice(0, 50)
      const res = await request(service.app).post('/predict').send({ texts, batch_size: 7 }).expect(200)
      expect(Object.keys(res.body as object)).to.deep.equal(['predictions', 'batch_info'])
      const body = res.body as { predictions: Array<Record<string, unknown>>, batch_info: Record<string, unknown> }
      expect(body.predictions.map(p => ({ ...p, processing_time: typeof p.processing_time }))).to.deep.equal(texts.map(text => {
        const p = predictor.predict(text)
        return { text, prediction: p.label, confidence: pyRound(p.confidence, 2), processing_time: 'number' }
      }))
      expect(body.predictions.every(p => (p.processing_time as number) >= 0 && (p.processing_time as number) < 10)).to.equal(true)
      expect(body.batch_info.total_texts).to.equal(50)
      expect(body.batch_info.batch_size).to.equal(7)
      expect(body.batch_info.processing_time).to.be.a('number').within(0, 30)
    })

    it('defaults batch_size to 10', async () => {
      const res = await request(service.app).post('/predict').send({ texts: ['one', 'two'] }).expect(200)
      expect((res.body as { batch_info: { batch_size: number } }).batch_info.batch_size).to.equal(10)
    })

    it('POST /batch_predict answers exactly the batch response', async () => {
      const texts = TEXTS.slice(50, 60)
      const a = (await request(service.app).post('/predict').send({ texts, batch_size: 3 }).expect(200)).body as { predictions: Array<{ prediction: string, confidence: number }> }
      const b = (await request(service.app).post('/batch_predict').send({ texts, batch_size: 3 }).expect(200)).body as typeof a
      expect(b.predictions.map(p => [p.prediction, p.confidence])).to.deep.equal(a.predictions.map(p => [p.prediction, p.confidence]))
    })
  })

  context('POST /predict, single form', () => {
    it('answers sentiment, 4-decimal confidence, model_used and the request id of its header', async () => {
      for (const text of TEXTS.slice(0, 30)) {
        const res = await request(service.app).post('/predict').send({ text }).expect(200)
        const p = predictor.predict(text)
        const body = res.body as Record<string, unknown>
        expect({ ...body, processing_time: typeof body.processing_time }).to.deep.equal({
          sentiment: p.label,
          confidence: pyRound(p.confidence, 4),
          model_used: 'LogisticRegression',
          processing_time: 'number',
          request_id: res.headers['x-request-id']
        })
        expect(body.request_id).to.match(/^req-\d+$/)
      }
    })

    it('agrees with the batch form and with tfidf-serve predict on the same texts', async () => {
      const texts = TEXTS.slice(60, 90)
      const batch = (await request(service.app).post('/predict').send({ texts, batch_size: 4 }).expect(200)).body as { predictions: Array<{ prediction: string, confidence: number }> }
      const { stdout } = await run(process.execPath, [path.join(ROOT, 'dist', 'src', 'cli.js'), 'predict', '--format', 'jsonl'], texts.map(text => JSON.stringify({ text })).join('\n'))
      const cli = stdout.trimEnd().split('\n').map(l => JSON.parse(l) as { label: string, confidence: number })
      expect(cli).to.have.length(texts.length)
      for (const [i, text] of texts.entries()) {
        const single = (await request(service.app).post('/predict').send({ text }).expect(200)).body as { sentiment: string, confidence: number }
        expect(single.sentiment).to.equal(batch.predictions[i]!.prediction)
        expect(pyRound(single.confidence, 2)).to.equal(batch.predictions[i]!.confidence)
        expect([cli[i]!.label, pyRound(cli[i]!.confidence, 4)]).to.deep.equal([single.sentiment, single.confidence])
      }
    })
  })

  it('GET /health answers the union of both health forms', async () => {
    const res = await request(service.app).get('/health').expect(200)
    const body = res.body as Record<string, unknown>
    expect(Object.keys(body).sort()).to.deep.equal(['memory_usage', 'memory_usage_mb', 'model_loaded', 'models_loaded', 'status', 'timestamp', 'uptime_seconds', 'vectorizer_loaded', 'version'])
    expect(body).to.include({ status: 'healthy', version: '1.0.0', model_loaded: true, models_loaded: true, vectorizer_loaded: true })
    expect(new Date(body.timestamp as string).toISOString()).to.equal(body.timestamp)
    const mem = body.memory_usage as Record<string, number>
    expect(Object.keys(mem)).to.deep.equal(['used', 'available', 'percentage'])
    expect(mem.used).to.be.above(10 * 1024 * 1024)
    expect(mem.percentage).to.be.within(0, 100)
    expect(body.memory_usage_mb).to.be.closeTo(mem.used! / 1024 / 1024, 50)
  })

  it('GET / describes the service, batch_predict included', async () => {
    const res = await request(service.app).get('/').expect(200)
    const body = res.body as { endpoints: Record<string, { url: string, method: string, description: string }>, model_info: unknown, name: string, version: string }
    expect(Object.keys(body.endpoints)).to.deep.equal(['predict', 'health', 'metrics', 'batch_predict'])
    expect(Object.values(body.endpoints).map(e => [e.url, e.method])).to.deep.equal([['/predict', 'POST'], ['/health', 'GET'], ['/metrics', 'GET'], ['/batch_predict', 'POST']])
    expect(body.model_info).to.deep.equal({ type: 'LogisticRegression', classes: ['negative', 'positive'], vectorizer: 'TfidfVectorizer', confidence: 'predict_proba' })
    expect([body.name, body.version]).to.deep.equal(['tfidf-serve', '1.0.0'])
  })

  context('headers on every response', () => {
    it('carries X-API-Version, a counting X-Request-Id, open CORS and helmet, errors included', async () => {
      const ids: number[] = []
      for (const [method, url, status] of [['get', '/', 200], ['get', '/nope', 404], ['post', '/predict', 400], ['get', '/health', 200]] as const) {
        const res = await request(service.app)[method](url).set('Origin', 'http://example.org').expect(status)
        expect(res.headers['x-api-version']).to.equal('1.0.0')
        expect(res.headers['access-control-allow-origin']).to.equal('*')
        expect(res.headers['x-content-type-options']).to.equal('nosniff')
        ids.push(Number(/^req-(\d+)$/.exec(res.headers['x-request-id'] as string)![1]))
      }
      expect(ids.slice(1).map((id, i) => id - ids[i]!)).to.deep.equal([1, 1, 1])
    })

    it('answers a CORS preflight', async () => {
      const res = await request(service.app).options('/predict').set('Origin', 'http://example.org').set('Access-Control-Request-Method', 'POST').expect(204)
      expect(res.headers['access-control-allow-origin']).to.equal('*')
    })
  })

  it('answers 404 for an unknown path and 405 with Allow for a wrong method', async () => {
    const missing = await request(service.app).get('/predictions').expect(404)
    expect(missing.body).to.deep.equal({ detail: 'no route for GET /predictions' })
    const wrong = await request(service.app).get('/predict').expect(405)
    expect(wrong.headers.allow).to.equal('POST')
    expect(wrong.body).to.deep.equal({ detail: 'method not allowed; use POST' })
    expect((await request(service.app).delete('/health').expect(405)).headers.allow).to.equal('GET, HEAD')
  })
})

describe('GET /metrics and the result cache', function () {
  this.timeout(60000)
  let service: Service
  before(async () => { service = await startService({ CACHE_SIZE: '100' }) })
  after(async () => { await service.close() })

  it('counts predictions, times requests and reports the cache hit rate', async () => {
    const before = (await request(service.app).get('/metrics').expect(200)).body as Record<string, number>
    expect(Object.keys(before)).to.deep.equal(['predictions_total', 'predictions_per_second', 'average_response_time', 'memory_usage_mb', 'uptime_seconds', 'cache_hit_rate'])
    expect(before).to.include({ predictions_total: 0, cache_hit_rate: 0, average_response_time: 0 })
    await request(service.app).post('/predict').send({ texts: ['a fine film', 'a dull film', 'a fine film'] }).expect(200)
    await request(service.app).post('/predict').send({ text: 'a dull film' }).expect(200)
    const after = (await request(service.app).get('/metrics').expect(200)).body as Record<string, number>
    expect(after.predictions_total).to.equal(4)
    // Look-ups: three in the batch (all misses), one single (a hit).
    expect(after.cache_hit_rate).to.equal(0.25)
    expect(after.average_response_time).to.be.above(0)
    expect(Number.isInteger(after.memory_usage_mb) && Number.isInteger(after.uptime_seconds)).to.equal(true)
    expect(after.predictions_per_second).to.be.above(0)
  })

  it('gives a cached text the same answer, with no worker time', async () => {
    const first = (await request(service.app).post('/predict').send({ text: 'an utterly charming story' }).expect(200)).body as Record<string, unknown>
    const second = (await request(service.app).post('/predict').send({ text: 'an utterly charming story' }).expect(200)).body as Record<string, unknown>
    expect([second.sentiment, second.confidence, second.processing_time]).to.deep.equal([first.sentiment, first.confidence, 0])
  })
})

describe('configuration that changes answers', function () {
  this.timeout(60000)

  it('ENABLE_METRICS=false turns /metrics into a 404', async () => {
    const service = await startService({ ENABLE_METRICS: 'false', WORKERS: '1' })
    try {
      const res = await request(service.app).get('/metrics').expect(404)
      expect(res.body).to.deep.equal({ detail: 'metrics are not enabled (ENABLE_METRICS=false)' })
    } finally {
      await service.close()
    }
  })

  it('LABEL_NAMES renames the classes, in class order', async () => {
    const dir = path.join(FIXTURES, 'sklearn', 'labels-int')
    const service = await startService({ WORKERS: '1', MODEL_PATH: path.join(dir, 'final_best_model.pkl'), VECTORIZER_PATH: path.join(dir, 'tfidf_vectorizer.pkl'), LABEL_NAMES: 'Negative, Very Positive' })
    try {
      expect(((await request(service.app).get('/').expect(200)).body as { model_info: { classes: string[] } }).model_info.classes).to.deep.equal(['negative', 'very_positive'])
      const res = await request(service.app).post('/predict').send({ texts: ['what a wonderful, great film', 'terrible and boring'] }).expect(200)
      expect((res.body as { predictions: Array<{ prediction: string }> }).predictions.map(p => p.prediction)).to.deep.equal(['very_positive', 'negative'])
    } finally {
      await service.close()
    }
  })

  it('lowercases labels and joins their words with _, and derives confidence from decision values where there is no predict_proba', async () => {
    const spaces = path.join(FIXTURES, 'sklearn', 'labels-spaces')
    const a = await startService({ WORKERS: '1', MODEL_PATH: path.join(spaces, 'final_best_model.pkl'), VECTORIZER_PATH: path.join(spaces, 'tfidf_vectorizer.pkl') })
    try {
      expect(((await request(a.app).get('/').expect(200)).body as { model_info: { classes: string[] } }).model_info.classes).to.deep.equal(['happy', 'mixed_up', 'no_feeling', 'very_sad'])
    } finally {
      await a.close()
    }
    const svc = path.join(FIXTURES, 'sklearn', 'labels-bool')
    const b = await startService({ WORKERS: '1', MODEL_PATH: path.join(svc, 'final_best_model.pkl'), VECTORIZER_PATH: path.join(svc, 'tfidf_vectorizer.pkl') })
    try {
      const info = (await request(b.app).get('/').expect(200)).body as { model_info: Record<string, unknown> }
      expect(info.model_info).to.deep.equal({ type: 'LinearSVC', classes: ['false', 'true'], vectorizer: 'TfidfVectorizer', confidence: 'decision_function' })
      const res = (await request(b.app).post('/predict').send({ texts: TEXTS.slice(0, 40) }).expect(200)).body as { predictions: Array<{ confidence: number }> }
      expect(res.predictions.every(p => p.confidence >= 0.5 && p.confidence <= 1)).to.equal(true)
    } finally {
      await b.close()
    }
  })

  it('serves a Pipeline file alone (VECTORIZER_PATH unset)', async () => {
    const service = await startService({ WORKERS: '1', MODEL_PATH: path.join(FIXTURES, 'sklearn', 'pipeline-count-tfidf', 'pipeline.pkl') })
    try {
      const info = (await request(service.app).get('/').expect(200)).body as { model_info: Record<string, unknown> }
      expect(info.model_info).to.include({ type: 'LogisticRegression', vectorizer: 'CountVectorizer + TfidfTransformer' })
    } finally {
      await service.close()
    }
  })
})

describe('500 responses', function () {
  this.timeout(60000)
  it('carry a v4 error_id and nothing of the error', async () => {
    const service = await startService({ WORKERS: '1' }, { hooked: true })
    try {
      const res = await request(service.app).post('/predict').send({ texts: ['fine', '__crash__'] }).expect(500)
      expect(Object.keys(res.body as object)).to.deep.equal(['detail', 'error_id'])
      expect((res.body as { detail: string }).detail).to.equal('Internal server error')
      expect((res.body as { error_id: string }).error_id).to.match(UUID)
    } finally {
      await service.close()
    }
  })
})
