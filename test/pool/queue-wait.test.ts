/**
 * Waiting for a worker is not predicting (issue 23, defect 6): PREDICTION_TIMEOUT_MS runs from
 * the moment a worker takes a chunk, and a wait has a bound and an answer of its own.
 * Real worker threads; the hooked worker's '__sleep_<ms>__' texts keep a worker busy.
 */
import { expect } from 'chai'
import request from 'supertest'
import { parseConfig } from '../../src/config.js'
import { ServiceError } from '../../src/errors.js'
import { createApp } from '../../src/http/app.js'
import { createLogger } from '../../src/logger.js'
import { Admission } from '../../src/pool/admission.js'
import { ClassifierPool } from '../../src/pool/classifier-pool.js'
import { HOOKED_WORKER, startService, type Service } from '../helpers/service.js'

async function waitFor (check: () => boolean, ms = 10000): Promise<void> {
  const until = Date.now() + ms
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time')
    await new Promise(resolve => setTimeout(resolve, 10))
  }
}

describe('waiting for a worker', function () {
  this.timeout(60000)

  context('PREDICTION_TIMEOUT_MS=1500 with both workers busy', () => {
    let service: Service
    before(async () => { service = await startService({ WORKERS: '2', PREDICTION_TIMEOUT_MS: '1500', CACHE_SIZE: '0' }, { hooked: true }) })
    after(async () => { await service.close() })

    it('a request that waited 1.2 s and then ran 0.6 s is answered (1.8 s in all, but no chunk ran past the timeout)', async () => {
      const busy = [0, 1].map(async () => await request(service.app).post('/predict').send({ texts: ['__sleep_1200__'] }))
      await waitFor(() => service.pool.inFlight === 2)
      const started = Date.now()
      const waited = await request(service.app).post('/predict').send({ texts: ['__sleep_600__'] })
      const took = Date.now() - started
      expect([waited.status, waited.body.detail]).to.deep.equal([200, undefined])
      expect(took).to.be.above(1500)
      for (const r of await Promise.all(busy)) expect(r.status).to.equal(200)
      // The same request on idle workers: the answer it should have had.
      const idle = await request(service.app).post('/predict').send({ texts: ['__sleep_600__'] })
      expect([idle.status, (idle.body as { predictions?: unknown[] }).predictions?.length]).to.deep.equal([200, 1])
      const answer = (body: { predictions: Array<{ text: string, prediction: string, confidence: number }> }): unknown => body.predictions.map(p => [p.text, p.prediction, p.confidence])
      expect([waited.status, answer(waited.body)]).to.deep.equal([200, answer(idle.body)])
      expect(service.pool.workerRestarts).to.equal(0)
    })

    it('a chunk that runs past the timeout on its worker still gets the prediction timeout, and its worker is replaced', async () => {
      const res = await request(service.app).post('/predict').send({ texts: ['__sleep_20000__'] })
      expect([res.status, res.body]).to.deep.equal([503, { detail: 'prediction took longer than 1500 ms' }])
      await waitFor(() => service.pool.workerRestarts === 1 && service.pool.workerCount === 2)
    })
  })

  context('a bound on the wait (queueTimeoutMs 300, PREDICTION_TIMEOUT_MS 5000)', () => {
    let pool: ClassifierPool
    let app: ReturnType<typeof createApp>
    before(async () => {
      const config = parseConfig({ WORKERS: '2', PREDICTION_TIMEOUT_MS: '5000', CACHE_SIZE: '0', LOG_LEVEL: 'silent' })
      pool = await ClassifierPool.start({ ...config, queueTimeoutMs: 300, workerFile: HOOKED_WORKER })
      app = createApp({ config, pool, logger: createLogger('silent') })
    })
    after(async () => { await pool.close() })

    it('answers 503 "waited 300 ms for a worker" once the wait passes it, drops the queued chunk without touching a worker, and the busy ones finish', async () => {
      const busy = [0, 1].map(async () => await request(app).post('/predict').send({ texts: ['__sleep_1000__'] }))
      await waitFor(() => pool.inFlight === 2)
      const started = Date.now()
      const waited = await request(app).post('/predict').send({ text: 'a wonderful film' })
      const took = Date.now() - started
      expect([waited.status, waited.headers['retry-after'], waited.body]).to.deep.equal([503, '1', { detail: 'waited 300 ms for a worker' }])
      expect(took).to.be.within(250, 900)
      for (const r of await Promise.all(busy)) expect(r.status).to.equal(200)
      expect(pool.workerRestarts).to.equal(0)
      const after = await request(app).post('/predict').send({ text: 'a wonderful film' })
      expect([after.status, after.body.sentiment]).to.deep.equal([200, 'positive'])
    })
  })
})

describe('Admission with a bound on the wait in line', () => {
  it('refuses with ERR_QUEUE_TIMEOUT once the wait passes it, leaves the line, and the slot still goes to the next', async () => {
    const a = new Admission(1, 2)
    await a.acquire(50)
    const started = Date.now()
    try {
      await a.acquire(50)
      expect.fail('admitted while the slot was held')
    } catch (err) {
      expect([(err as ServiceError).code, (err as ServiceError).message]).to.deep.equal(['ERR_QUEUE_TIMEOUT', 'waited 50 ms for a worker'])
    }
    expect(Date.now() - started).to.be.within(40, 500)
    expect([a.active, a.waiting]).to.deep.equal([1, 0])
    const next = a.acquire(5000)
    expect(a.waiting).to.equal(1)
    a.release()
    await next
    expect([a.active, a.waiting]).to.deep.equal([1, 0])
    a.release()
    expect(a.active).to.equal(0)
  })
})
