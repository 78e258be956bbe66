/**
 * A model's lifetime and work nobody waits for (docs/many-models.md, docs/operations.md),
 * asserted through real state: the pool's own maps and counts, and what each worker says it
 * holds over the model channel.
 */
import { expect } from 'chai'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { ServiceError } from '../../src/errors.js'
import { FIXTURES } from '../helpers/paths.js'
import { listen, serveRepository, startService, type Listening, type RepositoryServer, type Service } from '../helpers/service.js'

const LABEL_MAP = path.join(FIXTURES, 'apps', '1.2.1', 'label-map')
const TEXT = (JSON.parse(readFileSync(path.join(LABEL_MAP, 'expected.jsonl'), 'utf8').split('\n')[0]!) as { text: string }).text

/** Reloads in the test (each decodes in a thread of its own); bench/reloads.ts runs 10,000 for memory. */
const RELOADS = 40

const sleep = async (ms: number): Promise<void> => await new Promise(resolve => setTimeout(resolve, ms))

/** Resolves once `ready()` holds, checking every 5 ms, or fails after `ms`. */
async function until (ready: () => boolean, ms = 10000, what = ''): Promise<void> {
  const end = performance.now() + ms
  while (!ready()) {
    if (performance.now() > end) throw new Error(`timed out waiting ${what}`)
    await sleep(5)
  }
}

async function post (base: string, route: string, body?: object, signal?: AbortSignal): Promise<{ status: number, body: unknown }> {
  const res = await fetch(base + route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body), signal })
  const text = await res.text()
  return { status: res.status, body: text === '' ? null : JSON.parse(text) }
}

describe("a model's lifetime in the pool", function () {
  this.timeout(300000)

  describe(`${RELOADS} reloads under light load`, () => {
    let root: string
    let server: RepositoryServer

    before(async () => {
      root = mkdtempSync(path.join(tmpdir(), 'tfidf-lifetime-'))
      mkdirSync(path.join(root, 'm'))
      copyFileSync(path.join(LABEL_MAP, 'pipeline.joblib'), path.join(root, 'm', 'model.joblib'))
      writeFileSync(path.join(root, 'm', 'model-settings.json'), JSON.stringify({ name: 'm', parameters: { uri: './model.joblib', version: '1' } }))
      server = await serveRepository(root, { DEFAULT_MODEL: 'm', CACHE_SIZE: '0' })
    })
    after(async () => {
      await server.close()
      rmSync(root, { recursive: true, force: true })
    })

    it("leaves only the live model in the pool's and every worker's maps", async () => {
      let loading = true
      const statuses: number[] = []
      const client = (async () => {
        while (loading) {
          statuses.push((await post(server.base, '/models/m/predict', { texts: [TEXT, TEXT] })).status)
          await sleep(2)
        }
      })()
      for (let i = 0; i < RELOADS; i++) expect((await post(server.base, '/v2/repository/models/m/load')).status).to.equal(200)
      loading = false
      await client
      expect(statuses.length).to.be.greaterThan(50)
      expect(statuses.filter(s => s !== 200)).to.deep.equal([])
      const { models, shares } = server.pool.modelKeys
      expect(models).to.have.length(1)
      expect(shares).to.deep.equal(models)
      const live = models[0]!
      const held = await server.pool.workersHeld()
      expect(held).to.have.length(2)
      for (const worker of held) {
        expect(worker.models.every(k => k === live), `worker ${worker.threadId} holds ${worker.models.join(', ')}`).to.equal(true)
        expect(worker.waiting).to.deep.equal([])
      }
    })
  })

  describe('requests abandoned while queued', () => {
    let service: Service
    let http: Listening
    let base: string

    async function start (env: Record<string, string>): Promise<void> {
      service = await startService({ WORKERS: '1', MAX_CONCURRENT_REQUESTS: '1', MAX_QUEUE: '300', PREDICTION_TIMEOUT_MS: '5000', CACHE_SIZE: '0', ...env }, { hooked: true })
      http = await listen(service)
      base = `http://127.0.0.1:${http.port}`
    }
    afterEach(async () => {
      await http.close()
      await service.close()
    })

    /** One request holding the only slot for `ms` (its one task), answered 200. */
    async function blocker (ms: number): Promise<{ status: number }> {
      return await post(base, '/predict', { texts: [`__sleep_${ms}__`] })
    }

    it('200 whose clients disconnect: their slots free at once, and no worker task runs for them', async () => {
      await start({})
      const before = service.pool.counts
      const holding = blocker(4000)
      await until(() => service.pool.inFlight === 1)
      const aborts = Array.from({ length: 200 }, () => new AbortController())
      const gone = aborts.map(async a => await post(base, '/predict', { texts: [TEXT, TEXT, TEXT] }, a.signal).then(() => 'answered', () => 'aborted'))
      await until(() => service.pool.waiting === 200, 10000, `for 200 in line (${service.pool.waiting})`)
      const abortedAt = performance.now()
      for (const a of aborts) a.abort()
      await until(() => service.pool.waiting === 0, 2500, `for an empty line (${service.pool.waiting})`)
      const freedMs = performance.now() - abortedAt
      // Freed as their connections closed (200 closes on a loaded machine take a while), not by a clock.
      expect(freedMs, 'ms until the line was empty').to.be.below(2500)
      expect(service.pool.stages.handed, 'the blocker still runs').to.equal(1)
      expect(await Promise.all(gone)).to.deep.equal(Array(200).fill('aborted'))
      expect((await holding).status).to.equal(200)
      await until(() => service.pool.stages.handed === 0)
      const after = service.pool.counts
      expect(after.tasksStarted - before.tasksStarted, 'tasks handed to a worker').to.equal(1)
      expect(service.pool.stages).to.deep.equal({ queued: 0, admitted: 0, awaitingShare: 0, handed: 0 })
    })

    it('200 that pass REQUEST_TIMEOUT_MS: answered 503 at the limit, their slots free, and no worker task runs for them', async () => {
      await start({ REQUEST_TIMEOUT_MS: '600' })
      const before = service.pool.counts
      const holding = blocker(4000)
      await until(() => service.pool.inFlight === 1)
      const answers = await Promise.all(Array.from({ length: 200 }, async () => {
        const started = performance.now()
        const res = await post(base, '/predict', { texts: [TEXT, TEXT, TEXT] })
        return { status: res.status, ms: performance.now() - started }
      }))
      expect(answers.filter(a => a.status !== 503).map(a => a.status)).to.deep.equal([])
      expect(Math.max(...answers.map(a => a.ms)), 'the slowest 503 (ms)').to.be.below(600 + 2000)
      expect(service.pool.waiting).to.equal(0)
      // The blocker's slot was freed at its own timeout; its task still runs, and no other took the worker.
      expect(service.pool.stages.handed, 'the blocker still runs').to.equal(1)
      // The blocker itself passes REQUEST_TIMEOUT_MS too; its running task is left to finish.
      expect((await holding).status).to.equal(503)
      await until(() => service.pool.stages.handed === 0)
      expect(service.pool.counts.tasksStarted - before.tasksStarted, 'tasks handed to a worker').to.equal(1)
      expect(service.pool.workerRestarts).to.equal(0)
    })
  })

  describe('a dropped model on a busy worker', () => {
    let service: Service

    before(async () => {
      service = await startService({ WORKERS: '2', PREDICTION_TIMEOUT_MS: '10000' }, { hooked: true })
    })
    after(async () => { await service.close() })

    it('is let go by every worker, the busy one once its task ends, each saying so itself', async () => {
      const pool = service.pool
      const spec = { paths: { model: path.join(LABEL_MAP, 'pipeline.joblib'), vectorizers: [] }, settingsFile: null }
      await pool.addModel('extra', spec)
      // Each worker creates a model the first time a task names it: two tasks at once, one each.
      await Promise.all([pool.classify(['__sleep_200__', TEXT], 1, 'extra'), pool.classify(['__sleep_200__', TEXT], 1, 'extra')])
      const before = await pool.workersHeld()
      expect(before.map(w => w.models.includes('extra'))).to.deep.equal([true, true])
      const busy = pool.classify(['__busy_1500__'], 1)
      await until(() => pool.stages.handed === 1)
      const removing = performance.now()
      await pool.removeModel('extra')
      const removedMs = performance.now() - removing
      await busy
      // Confirmed by both: the busy worker only once its task let it hear the drop.
      expect(removedMs).to.be.above(1000)
      expect(pool.modelKeys.models).to.deep.equal(['default'])
      const held = await pool.workersHeld()
      expect(held).to.have.length(2)
      for (const worker of held) expect(worker.models).to.not.include('extra')
      // A task for the dropped key fails at once, saying why.
      const at = performance.now()
      const err = await pool.classify([TEXT], 1, 'extra').then(() => null, (e: unknown) => e)
      expect(err).to.be.instanceOf(ServiceError)
      expect((err as ServiceError).code).to.equal('ERR_MODEL_NOT_READY')
      expect(performance.now() - at).to.be.below(100)
    })
  })

  describe('chunks of one task, each under its own prediction timeout', () => {
    let service: Service
    let http: Listening
    let base: string

    before(async () => {
      service = await startService({ WORKERS: '1', PREDICTION_TIMEOUT_MS: '1000', CACHE_SIZE: '0' }, { hooked: true })
      http = await listen(service)
      base = `http://127.0.0.1:${http.port}`
    })
    after(async () => {
      await http.close()
      await service.close()
    })

    it('answers a batch whose chunks together run past the timeout, each within it', async () => {
      const texts = ['__busy_400__', TEXT, '__busy_401__', TEXT, '__busy_402__', TEXT]
      const res = await post(base, '/predict', { texts, batch_size: 2 })
      expect(res.status, JSON.stringify(res.body)).to.equal(200)
      const body = res.body as { predictions: unknown[], batch_info: { batch_size: number, processing_time: number } }
      expect(body.predictions).to.have.length(6)
      expect(body.batch_info.batch_size).to.equal(2)
      expect(body.batch_info.processing_time).to.be.above(1.2)
      expect(service.pool.workerRestarts).to.equal(0)
    })

    it('answers 503 within PREDICTION_TIMEOUT_MS + 1 s when one chunk among fast ones runs past it', async () => {
      const restarts = service.pool.workerRestarts
      const started = performance.now()
      const res = await post(base, '/predict', { texts: [TEXT, TEXT, TEXT, TEXT, '__busy_4000__', TEXT, TEXT, TEXT], batch_size: 2 })
      const ms = performance.now() - started
      expect(res.status).to.equal(503)
      expect(JSON.stringify(res.body)).to.match(/ERR_PREDICTION_TIMEOUT|prediction/i)
      expect(ms).to.be.below(2000)
      await until(() => service.pool.workerRestarts === restarts + 1 && service.pool.workerCount === 1)
    })
  })
})
