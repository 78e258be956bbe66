/**
 * Adaptive batching (issue 24): concurrent requests' chunks gathered into one worker task.
 * Real worker threads; the hooked worker's '__sleep_<ms>__' texts keep a worker busy, and
 * the pool's task observer says what each worker task carried.
 */
import { expect } from 'chai'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import request from 'supertest'
import { parseConfig } from '../../src/config.js'
import { ClassifierPool } from '../../src/pool/classifier-pool.js'
import { readModelSettings } from '../../src/settings/model-settings.js'
import { readModelFolder } from '../../src/repository/layout.js'
import { readExposition } from '../helpers/exposition.js'
import { HOOKED_WORKER, startService, type Service } from '../helpers/service.js'

interface Task { texts: number, chunks: number, at: number }

async function waitFor (check: () => boolean, ms = 10000): Promise<void> {
  const until = Date.now() + ms
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time')
    await new Promise(resolve => setTimeout(resolve, 5))
  }
}

/** A pool with `env`'s settings and every task it hands a worker, recorded. */
async function observedPool (env: Record<string, string>): Promise<{ pool: ClassifierPool, tasks: Task[] }> {
  const config = parseConfig({ WORKERS: '2', LOG_LEVEL: 'silent', CACHE_SIZE: '0', ...env })
  const pool = await ClassifierPool.start({ ...config, workerFile: HOOKED_WORKER })
  const tasks: Task[] = []
  pool.observeTasks((_model, texts, chunks) => tasks.push({ texts, chunks, at: performance.now() }))
  return { pool, tasks }
}

const TEXTS = Array.from({ length: 120 }, (_, i) => `${['a fine film', 'a dull and bad plot', 'great acting, poor script', 'not good at all'][i % 4]!} ${i}`)

/**
 * Keeps both workers busy for `ms` with a task of their own each (a chunk over the batching
 * bound goes alone), then forgets the tasks seen so far; resolves with those two requests.
 */
async function occupyWorkers (pool: ClassifierPool, tasks: Task[], ms: number): Promise<Array<Promise<unknown>>> {
  const busy = [0, 1].map(async () => await pool.classify(Array.from({ length: 65 }, (_, i) => i === 0 ? `__sleep_${ms}__` : `text ${i}`), 65))
  await new Promise(resolve => setTimeout(resolve, 50))
  tasks.length = 0
  return busy
}

describe('adaptive batching', function () {
  this.timeout(60000)

  context('on (16 texts, 20 ms) beside off', () => {
    let on: { pool: ClassifierPool, tasks: Task[] }
    let off: { pool: ClassifierPool, tasks: Task[] }
    before(async () => {
      [on, off] = await Promise.all([observedPool({ ADAPTIVE_BATCH_MAX_TEXTS: '16', ADAPTIVE_BATCH_MAX_WAIT_MS: '20' }), observedPool({})])
    })
    after(async () => { await Promise.all([on.pool.close(), off.pool.close()]) })

    it('answers 120 concurrent single-text requests exactly as one task per request does, in fewer, gathered tasks', async () => {
      const batched = await Promise.all(TEXTS.map(async t => await on.pool.classify([t], 1)))
      const alone = await Promise.all(TEXTS.map(async t => await off.pool.classify([t], 1)))
      expect(batched.map(r => [r.classIndex[0], r.confidence[0], r.terms[0], r.known[0]])).to.deep.equal(alone.map(r => [r.classIndex[0], r.confidence[0], r.terms[0], r.known[0]]))
      expect(off.tasks.map(t => t.texts)).to.deep.equal(TEXTS.map(() => 1))
      expect(on.tasks.reduce((n, t) => n + t.texts, 0)).to.equal(120)
      expect(on.tasks.length).to.be.below(20)
      expect(Math.max(...on.tasks.map(t => t.texts))).to.equal(16)
      for (const t of on.tasks) expect(t.chunks).to.equal(t.texts)
    })

    it('scores (the V2 outputs) of concurrent requests of several sizes and batch sizes equal the unbatched ones, row for row', async () => {
      const sizes = [1, 3, 7, 12, 5, 20, 2]
      const requests = sizes.map((n, i) => ({ texts: TEXTS.slice(i * 10, i * 10 + n), batchSize: 1 + (i % 4) }))
      const batched = await Promise.all(requests.map(async r => await on.pool.classify(r.texts, r.batchSize, undefined, true)))
      const alone = await Promise.all(requests.map(async r => await off.pool.classify(r.texts, r.batchSize, undefined, true)))
      const rows = (s: Awaited<ReturnType<ClassifierPool["classify"]>>): unknown => [[...s.classIndex], [...s.confidence], s.proba === null ? null : [...s.proba], s.decision === null ? null : [...s.decision]]
      expect(batched.map(rows)).to.deep.equal(alone.map(rows))
    })

    it('shares a lone request\'s chunks out among the free workers, in parallel as without batching', async () => {
      on.tasks.length = 0
      await on.pool.classify(TEXTS.slice(0, 20), 5)
      expect(on.tasks.map(t => [t.texts, t.chunks])).to.deep.equal([[10, 2], [10, 2]])
    })

    it('never splits a request\'s chunk: a chunk larger than the bound goes alone, whole', async () => {
      on.tasks.length = 0
      const r = await on.pool.classify(TEXTS.slice(0, 40), 40)
      expect(r.classIndex.length).to.equal(40)
      expect(on.tasks.map(t => [t.texts, t.chunks])).to.deep.equal([[40, 1]])
    })

    it('sends a lone request at once while a worker is free: no wait for the bound', async () => {
      const { pool, tasks } = await observedPool({ ADAPTIVE_BATCH_MAX_TEXTS: '64', ADAPTIVE_BATCH_MAX_WAIT_MS: '2000' })
      try {
        const started = performance.now()
        await pool.classify(['a fine film'], 1)
        expect(performance.now() - started).to.be.below(500)
        expect(tasks.map(t => t.texts)).to.deep.equal([1])
      } finally {
        await pool.close()
      }
    })
  })

  context('while every worker is busy (64 texts, 150 ms)', () => {
    let pool: ClassifierPool
    let tasks: Task[]
    before(async () => { ({ pool, tasks } = await observedPool({ ADAPTIVE_BATCH_MAX_TEXTS: '64', ADAPTIVE_BATCH_MAX_WAIT_MS: '150' })) })
    after(async () => { await pool.close() })

    it('gathers what arrives and sends it when a worker comes free, or when the oldest has waited the bound, never later', async () => {
      const busy = await occupyWorkers(pool, tasks, 1000)
      const sent = performance.now()
      const waiting = TEXTS.slice(0, 10).map(async t => await pool.classify([t], 1))
      const answers = await Promise.all(waiting)
      // One gathered task of all ten, handed over at the bound (150 ms), though no worker was free.
      expect(tasks.map(t => [t.texts, t.chunks])).to.deep.equal([[10, 10]])
      expect(tasks[0]!.at - sent).to.be.within(140, 400)
      expect(answers.every(a => a.classIndex.length === 1)).to.equal(true)
      await Promise.all(busy)
    })
  })

  context('abandoned while gathering (64 texts, 300 ms)', () => {
    let pool: ClassifierPool
    let tasks: Task[]
    before(async () => { ({ pool, tasks } = await observedPool({ ADAPTIVE_BATCH_MAX_TEXTS: '64', ADAPTIVE_BATCH_MAX_WAIT_MS: '300' })) })
    after(async () => { await pool.close() })

    it('drops the texts of requests abandoned while their chunks wait, and sends only the others', async () => {
      const busy = await occupyWorkers(pool, tasks, 800)
      const dropped = pool.counts.textsDropped
      const aborts = TEXTS.slice(0, 10).map(() => new AbortController())
      const answers = TEXTS.slice(0, 10).map(async (t, i) => await pool.classify([t], 1, undefined, false, undefined, { signal: aborts[i]!.signal }).then(() => 'answered', (e: { code?: string }) => e.code))
      await new Promise(resolve => setTimeout(resolve, 50))
      for (const a of aborts.slice(0, 6)) a.abort()
      expect(await Promise.all(answers)).to.deep.equal([...Array(6).fill('ERR_REQUEST_TIMEOUT'), ...Array(4).fill('answered')])
      // One gathered task of the four still waited for.
      expect(tasks.map(t => [t.texts, t.chunks])).to.deep.equal([[4, 4]])
      expect(pool.counts.textsDropped - dropped).to.equal(6)
      await Promise.all(busy)
    })
  })

  context('failures stay each request\'s own', () => {
    let service: Service
    before(async () => { service = await startService({ WORKERS: '2', CACHE_SIZE: '0', PREDICTION_TIMEOUT_MS: '1000', ADAPTIVE_BATCH_MAX_TEXTS: '32', ADAPTIVE_BATCH_MAX_WAIT_MS: '100' }, { hooked: true }) })
    after(async () => { await service.close() })

    it('a gathered task that runs past PREDICTION_TIMEOUT_MS answers each of its requests 503, and the next requests are served', async () => {
      // One request of two chunks, shared out: both workers busy for 600 ms, so the next four
      // gather (all four in before a worker is free) into one task, one of them hanging.
      const busy = [request(service.app).post('/predict').send({ texts: ['__sleep_600__', '__sleep_600__'], batch_size: 1 }).then(r => r)]
      await waitFor(() => service.pool.inFlight === 1)
      const sent = ['a fine film', '__sleep_5000__', 'a dull plot', 'fine'].map(async text => await request(service.app).post('/predict').send({ text }).then(r => r))
      await waitFor(() => service.pool.inFlight === 5)
      const gathered = await Promise.all(sent)
      expect(gathered.map(r => [r.status, r.body.detail])).to.deep.equal(Array(4).fill([503, 'prediction took longer than 1000 ms']))
      for (const r of await Promise.all(busy)) expect(r.status).to.equal(200)
      const after = await request(service.app).post('/predict').send({ texts: ['a fine film', 'a dull plot'] })
      expect([after.status, after.body.predictions.length]).to.deep.equal([200, 2])
    })

    it('gathers a spec /predict and a V2 infer that come together into one worker task, each answered as alone', async () => {
      // Tasks of 3 to 5 texts: only the gathered one of the two requests' four texts.
      const gatheredTasks = async (): Promise<number> => {
        const samples = readExposition((await request(service.app).get('/metrics?format=prometheus')).text).samples
        const bucket = (le: string): number => samples.find(s => s.name === 'tfidf_worker_task_texts_bucket' && s.labels.le === le)!.value
        return bucket('5') - bucket('2')
      }
      const before = await gatheredTasks()
      const busy = [request(service.app).post('/predict').send({ texts: ['__sleep_600__', '__sleep_600__'], batch_size: 1 }).then(r => r)]
      await waitFor(() => service.pool.inFlight === 1)
      const sent = [
        request(service.app).post('/predict').send({ texts: ['a fine film', 'a dull plot'] }).then(r => r),
        request(service.app).post('/v2/models/default/infer').send({ inputs: [{ name: 'text', datatype: 'BYTES', shape: [2], data: ['a fine film', 'a dull plot'] }], outputs: [{ name: 'predict' }, { name: 'confidence' }] }).then(r => r)
      ]
      // Both in before a worker is free.
      await waitFor(() => service.pool.inFlight === 3)
      const [spec, v2] = await Promise.all(sent)
      for (const r of await Promise.all(busy)) expect(r.status).to.equal(200)
      expect(await gatheredTasks() - before).to.equal(1)
      const alone = await request(service.app).post('/predict').send({ texts: ['a fine film', 'a dull plot'] })
      const labels = (body: { predictions: Array<{ prediction: string }> }): string[] => body.predictions.map(p => p.prediction)
      expect(labels(spec.body)).to.deep.equal(labels(alone.body))
      expect(v2.body.outputs[0].data).to.deep.equal(labels(alone.body))
      expect(v2.body.outputs[1].data.map((c: number) => Math.round(c * 100) / 100)).to.deep.equal(alone.body.predictions.map((p: { confidence: number }) => p.confidence))
    })

    it('/metrics counts texts per worker task in tfidf_worker_task_texts', async () => {
      const read = async (): Promise<[number, number]> => {
        const samples = readExposition((await request(service.app).get('/metrics?format=prometheus')).text).samples
        return [samples.find(s => s.name === 'tfidf_worker_task_texts_count')!.value, samples.find(s => s.name === 'tfidf_worker_task_texts_sum')!.value]
      }
      const before = await read()
      const res = await request(service.app).post('/predict').send({ texts: ['a fine film', 'a dull plot', 'fine'] })
      expect(res.status).to.equal(200)
      const after = await read()
      expect([after[0] - before[0], after[1] - before[1]]).to.deep.equal([1, 3])
    })
  })

  context('settings', () => {
    it('reads ADAPTIVE_BATCH_MAX_TEXTS and ADAPTIVE_BATCH_MAX_WAIT_MS, off (1 text) by default, and refuses bad values naming them', () => {
      expect(parseConfig({}).adaptiveBatch).to.deep.equal({ maxTexts: 1, maxWaitMs: 5 })
      expect(parseConfig({ ADAPTIVE_BATCH_MAX_TEXTS: '64', ADAPTIVE_BATCH_MAX_WAIT_MS: '2.5' }).adaptiveBatch).to.deep.equal({ maxTexts: 64, maxWaitMs: 2.5 })
      expect(() => parseConfig({ ADAPTIVE_BATCH_MAX_TEXTS: '0' })).to.throw(/ADAPTIVE_BATCH_MAX_TEXTS must be >= 1/)
      expect(() => parseConfig({ ADAPTIVE_BATCH_MAX_WAIT_MS: '-1' })).to.throw(/ADAPTIVE_BATCH_MAX_WAIT_MS must be >= 0/)
    })

    it('takes a model\'s own max_batch_size and max_batch_time (seconds, as MLServer writes them) from its settings, the rest from the environment', async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'batching-'))
      writeFileSync(path.join(dir, 'model-settings.json'), JSON.stringify({ name: 'spam', max_batch_size: 24, max_batch_time: 0.01, parameters: { uri: '../../models/final_best_model.pkl' } }))
      expect(readModelSettings(path.join(dir, 'model-settings.json')).batching).to.deep.equal({ maxTexts: 24, maxWaitMs: 10 })
      writeFileSync(path.join(dir, 'model-settings.json'), JSON.stringify({ name: 'spam', max_batch_size: 0 }))
      expect(() => readModelSettings(path.join(dir, 'model-settings.json'))).to.throw(/max_batch_size must be >= 1/)
      const folder = mkdtempSync(path.join(tmpdir(), 'batching-model-'))
      writeFileSync(path.join(folder, 'model-settings.json'), JSON.stringify({ name: 'spam', max_batch_size: 8 }))
      writeFileSync(path.join(folder, 'final_best_model.pkl'), '')
      const found = readModelFolder(folder, null)
      expect(found.version === null ? found.problem : found.spec.batching).to.deep.equal({ maxTexts: 8 })
      const config = parseConfig({ WORKERS: '1', LOG_LEVEL: 'silent', ADAPTIVE_BATCH_MAX_WAIT_MS: '7' })
      const pool = await ClassifierPool.start({ ...config, modelBatching: { maxTexts: 8 } })
      try {
        expect(pool.batchingOf()).to.deep.equal({ maxTexts: 8, maxWaitMs: 7 })
      } finally {
        await pool.close()
      }
    })
  })
})
