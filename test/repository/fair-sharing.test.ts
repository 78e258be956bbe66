/**
 * One model cannot starve the others (issue #38): a repository of the shipped model and a
 * slow one (its app's cleaning backtracks catastrophically), behind a real HTTP server on
 * 127.0.0.1 with two workers and PREDICTION_TIMEOUT_MS 2000. While the slow model's requests
 * keep more tasks coming than there are workers, the default model's requests are each
 * answered 200 within their normal bound: the slow model holds at most one worker of two.
 * Bounds are generous: the test shares two cores with the slow model's backtracking.
 */
import { expect } from 'chai'
import { rmSync } from 'node:fs'
import type http from 'node:http'
import type { AddressInfo } from 'node:net'
import { parseConfig } from '../../src/config.js'
import { createApp, createContext } from '../../src/http/app.js'
import { createServer } from '../../src/http/server.js'
import { createLogger } from '../../src/logger.js'
import type { ClassifierPool } from '../../src/pool/classifier-pool.js'
import { openRepository } from '../../src/repository/open.js'
import { CATASTROPHIC_TEXT, makeSlowModelRepository } from '../helpers/repositories.js'

/** Longest a default model's request may take beside the slow model: its normal time is a few milliseconds. */
const BOUND_MS = 750

interface Served { root: string, pool: ClassifierPool, server: http.Server, base: string }

async function serve (env: Record<string, string>, slow: Record<string, unknown> = {}): Promise<Served> {
  const root = makeSlowModelRepository('tfidf-fair-', slow)
  const config = parseConfig({ MODEL_REPOSITORY: root, DEFAULT_MODEL: 'sentiment', WORKERS: '2', PREDICTION_TIMEOUT_MS: '2000', CACHE_SIZE: '0', LOG_LEVEL: 'silent', ...env })
  const { pool, repository } = await openRepository(config)
  const context = createContext({ config, pool, repository, logger: createLogger('silent') })
  const server = createServer(createApp({ config, pool, context }), config)
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return { root, pool, server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

async function stop (s: Served | undefined): Promise<void> {
  if (s === undefined) return
  await new Promise(resolve => s.server.close(resolve))
  await s.pool.close()
  rmSync(s.root, { recursive: true, force: true })
}

async function post (base: string, route: string, body: object): Promise<{ status: number, ms: number }> {
  const started = performance.now()
  const response = await fetch(base + route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  await response.arrayBuffer()
  return { status: response.status, ms: performance.now() - started }
}

/**
 * Keeps `clients` requests to the slow model in flight until `done`; returns their statuses
 * (200, or 503 when a backtracking text ran past the prediction timeout).
 */
function loadSlow (base: string, clients: number, done: () => boolean): Promise<number[]> {
  const statuses: number[] = []
  return Promise.all(Array.from({ length: clients }, async () => {
    while (!done()) statuses.push((await post(base, '/models/slow/predict', { text: CATASTROPHIC_TEXT })).status)
  })).then(() => statuses)
}

/** The slow model's tasks busy on the workers: wait until one of them is surely running. */
const settle = async (): Promise<void> => { await new Promise(resolve => setTimeout(resolve, 300)) }

describe('workers shared fairly between models', function () {
  this.timeout(120000)

  for (const [name, env] of [['one task per chunk', {}], ['adaptive batching', { ADAPTIVE_BATCH_MAX_TEXTS: '16', ADAPTIVE_BATCH_MAX_WAIT_MS: '5' }]] as const) {
    context(`a slow model under load (${name})`, () => {
      let served: Served | undefined
      before(async () => { served = await serve(env) })
      after(async () => { await stop(served) })

      it(`leaves a worker to the default model: each of its requests is answered 200 within ${BOUND_MS} ms`, async () => {
        const { base } = served!
        let done = false
        const slow = loadSlow(base, 4, () => done)
        await settle()
        const answers: Array<{ status: number, ms: number }> = []
        try {
          for (let i = 0; i < 30; i++) answers.push(await post(base, '/predict', { text: `a good film, number ${i}` }))
          for (let i = 0; i < 5; i++) answers.push(await post(base, '/predict', { texts: Array.from({ length: 20 }, (_, k) => `text ${i} ${k}`), batch_size: 5 }))
        } finally {
          done = true
        }
        const statuses = await slow
        expect(answers.map(a => a.status)).to.deep.equal(answers.map(() => 200))
        expect(Math.max(...answers.map(a => a.ms)), 'slowest of the default model\'s requests (ms)').to.be.below(BOUND_MS)
        // The slow model was served all along, on its share.
        expect(statuses.filter(s => s === 200).length, `slow model statuses ${statuses.join(' ')}`).to.be.above(0)
        expect(statuses.every(s => s === 200 || s === 503)).to.equal(true)
      })
    })
  }

  context('a slow model whose settings give it every worker (max_workers: 2)', () => {
    let served: Served | undefined
    before(async () => { served = await serve({}, { max_workers: 2 }) })
    after(async () => { await stop(served) })

    it('holds both workers, as its settings say: the default model\'s requests wait behind it', async () => {
      const { base } = served!
      let done = false
      const slow = loadSlow(base, 4, () => done)
      await settle()
      const answers: Array<{ status: number, ms: number }> = []
      try {
        for (let i = 0; i < 5; i++) answers.push(await post(base, '/predict', { text: `a good film, number ${i}` }))
      } finally {
        done = true
      }
      await slow
      expect(Math.max(...answers.map(a => a.ms))).to.be.above(BOUND_MS)
    })
  })
})
