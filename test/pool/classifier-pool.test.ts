import { expect } from 'chai'
import request from 'supertest'
import { parseConfig } from '../../src/config.js'
import { ServiceError } from '../../src/errors.js'
import { createApp } from '../../src/http/app.js'
import type { Logger } from '../../src/logger.js'
import { Admission } from '../../src/pool/admission.js'
import { ClassifierPool } from '../../src/pool/classifier-pool.js'
import { HOOKED_WORKER, startService, type Service } from '../helpers/service.js'

async function waitFor (check: () => boolean, ms = 10000): Promise<void> {
  const until = Date.now() + ms
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time')
    await new Promise(resolve => setTimeout(resolve, 20))
  }
}

describe('Admission', () => {
  it('admits up to maxActive, queues up to maxWaiting, refuses the rest at once', async () => {
    const a = new Admission(2, 1)
    await a.acquire()
    await a.acquire()
    let third = false
    const queued = a.acquire().then(() => { third = true })
    try {
      await a.acquire()
      expect.fail('admitted past the limits')
    } catch (err) {
      expect((err as ServiceError).code).to.equal('ERR_QUEUE_FULL')
    }
    expect([a.active, a.waiting, third]).to.deep.equal([2, 1, false])
    a.release()
    await queued
    expect([a.active, a.waiting, third]).to.deep.equal([2, 0, true])
    a.release()
    a.release()
    expect(a.active).to.equal(0)
  })

  it('resolves idle() only once the last admitted task, queued ones included, is released', async () => {
    const a = new Admission(1, 1)
    await a.idle()
    await a.acquire()
    const queued = a.acquire()
    let idle = false
    const waiting = a.idle().then(() => { idle = true })
    a.release()
    await queued
    await new Promise(resolve => setImmediate(resolve))
    expect([a.active, idle]).to.deep.equal([1, false])
    a.release()
    await waiting
    expect([a.active, idle]).to.deep.equal([0, true])
  })

  it('checks its options', () => {
    expect(() => new Admission(0, 1)).to.throw(RangeError, 'maxActive')
    expect(() => new Admission(1, -1)).to.throw(RangeError, 'maxWaiting')
  })
})

describe('the worker pool under load and failure', function () {
  this.timeout(60000)

  context('50 concurrent requests', () => {
    let service: Service
    before(async () => { service = await startService({ CACHE_SIZE: '0' }) })
    after(async () => { await service.close() })

    it('answers all of them, each correctly', async () => {
      const texts = Array.from({ length: 50 }, (_, i) => i % 2 === 0 ? `a wonderful, moving film number ${i}` : `a dull, lifeless mess number ${i}`)
      const responses = await Promise.all(texts.map(async text => await request(service.app).post('/predict').send({ texts: [text, text + ' again'], batch_size: 1 })))
      responses.forEach((res, i) => {
        expect(res.status).to.equal(200)
        const predictions = (res.body as { predictions: Array<{ prediction: string }> }).predictions.map(p => p.prediction)
        const want = i % 2 === 0 ? 'positive' : 'negative'
        expect(predictions).to.deep.equal([want, want])
      })
    })
  })

  context('past MAX_CONCURRENT_REQUESTS and MAX_QUEUE', () => {
    let service: Service
    before(async () => { service = await startService({ WORKERS: '1', MAX_CONCURRENT_REQUESTS: '1', MAX_QUEUE: '1', CACHE_SIZE: '0' }, { hooked: true }) })
    after(async () => { await service.close() })

    it('answers 503 with Retry-After at once, loses nothing admitted, and is healthy after', async () => {
      const slow = request(service.app).post('/predict').send({ texts: ['__sleep_400__'] })
      const slowDone = slow.then(r => r)
      await waitFor(() => service.pool.inFlight === 1)
      const queued = request(service.app).post('/predict').send({ text: 'a fine film' }).then(r => r)
      await waitFor(() => service.pool.waiting === 1)
      const started = Date.now()
      const refused = await Promise.all(Array.from({ length: 5 }, async () => await request(service.app).post('/predict').send({ text: 'refused' })))
      expect(Date.now() - started).to.be.below(300)
      for (const r of refused) {
        expect(r.status).to.equal(503)
        expect(r.headers['retry-after']).to.equal('1')
        expect(r.body).to.deep.equal({ detail: 'server is at capacity, retry shortly' })
      }
      expect((await slowDone).status).to.equal(200)
      const q = await queued
      expect([q.status, (q.body as { sentiment: string }).sentiment]).to.deep.equal([200, 'positive'])
      expect((await request(service.app).get('/health')).status).to.equal(200)
      expect((await request(service.app).post('/predict').send({ text: 'after' })).status).to.equal(200)
    })
  })

  context('a task past PREDICTION_TIMEOUT_MS', () => {
    let service: Service
    before(async () => { service = await startService({ WORKERS: '2', PREDICTION_TIMEOUT_MS: '300', CACHE_SIZE: '0' }, { hooked: true }) })
    after(async () => { await service.close() })

    it('gets 503 with Retry-After, its worker is replaced, and the pool keeps serving', async () => {
      const res = await request(service.app).post('/predict').send({ texts: ['__sleep_20000__', 'fine'], batch_size: 1 }).expect(503)
      expect(res.headers['retry-after']).to.equal('1')
      expect(res.body).to.deep.equal({ detail: 'prediction took longer than 300 ms' })
      await waitFor(() => service.pool.workerCount === 2)
      const after = await request(service.app).post('/predict').send({ texts: ['a wonderful film', 'a dull film'], batch_size: 1 }).expect(200)
      expect((after.body as { predictions: Array<{ prediction: string }> }).predictions.map(p => p.prediction)).to.deep.equal(['positive', 'negative'])
      expect((await request(service.app).get('/health')).status).to.equal(200)
    })
  })

  context('a worker that crashes', () => {
    it('costs its request a 500 logged with the same error_id; other requests go on and the worker is replaced', async () => {
      const config = parseConfig({ WORKERS: '2', LOG_LEVEL: 'silent', CACHE_SIZE: '0' })
      const pool = await ClassifierPool.start({ ...config, workerFile: HOOKED_WORKER })
      const logged: Array<Record<string, unknown>> = []
      const logger: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: (msg, fields = {}) => { logged.push({ msg, ...fields }) } }
      const app = createApp({ config, pool, logger })
      try {
        const [crashed, ...others] = await Promise.all([
          request(app).post('/predict').send({ texts: ['__crash__'] }),
          ...Array.from({ length: 6 }, async (_, i) => await request(app).post('/predict').send({ text: `a wonderful film ${i}` }))
        ])
        expect(crashed!.status).to.equal(500)
        const errorId = (crashed!.body as { error_id: string }).error_id
        expect(logged.map(l => [l.msg, l.error_id])).to.deep.equal([['internal server error', errorId]])
        expect(String(logged[0]!.stack)).to.contain('a worker failed')
        for (const r of others) expect([r.status, (r.body as { sentiment: string }).sentiment]).to.deep.equal([200, 'positive'])
        await waitFor(() => pool.workerCount === 2)
        expect((await request(app).post('/predict').send({ text: 'still here' })).status).to.equal(200)
      } finally {
        await pool.close()
      }
    })
  })

  it('reports unhealthy (503, still the health report) once closed, and refuses predictions', async () => {
    const service = await startService({ WORKERS: '1' })
    await service.close()
    const health = await request(service.app).get('/health').expect(503)
    expect(health.body).to.include({ status: 'unhealthy', model_loaded: false })
    const res = await request(service.app).post('/predict').send({ text: 'x' }).expect(503)
    expect(res.headers['retry-after']).to.equal('1')
  })

  it('refuses to start on a model that cannot be served, naming the file', async () => {
    try {
      await ClassifierPool.start({ modelPath: '/no/such.pkl', vectorizerPaths: [], workers: 1, predictionTimeoutMs: 1000, maxConcurrentRequests: 1, maxQueue: 0 })
      expect.fail('started')
    } catch (err) {
      expect(err).to.be.instanceOf(ServiceError)
      expect((err as ServiceError).code).to.equal('ERR_MODEL_READ')
      expect((err as ServiceError).message).to.equal('no such file: /no/such.pkl')
    }
  })
})
