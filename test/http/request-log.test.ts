import { expect } from 'chai'
import request from 'supertest'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { parseConfig } from '../../src/config.js'
import { createApp } from '../../src/http/app.js'
import { createPino, loggerOf } from '../../src/logger.js'
import { ClassifierPool } from '../../src/pool/classifier-pool.js'
import { HOOKED_WORKER } from '../helpers/service.js'

type Line = Record<string, unknown>

/** A real pino logger whose lines land in `lines`. */
function collecting (lines: Line[]): ReturnType<typeof loggerOf> {
  return loggerOf(createPino('info', { write: (line: string) => { lines.push(JSON.parse(line) as Line) } }))
}

async function waitFor (check: () => boolean, ms = 10000): Promise<void> {
  const until = Date.now() + ms
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time')
    await new Promise(resolve => setTimeout(resolve, 20))
  }
}

describe('logs (pino)', function () {
  this.timeout(60000)
  let pool: ClassifierPool
  const restarts: number[] = []
  before(async () => {
    const config = parseConfig({ WORKERS: '2', CACHE_SIZE: '0', PREDICTION_TIMEOUT_MS: '300' })
    pool = await ClassifierPool.start({ ...config, workerFile: HOOKED_WORKER, onWorkerRestart: id => restarts.push(id) })
  })
  after(async () => { await pool.close() })

  it('writes one line per request: method, path, status, duration, ids, texts, client; never a text', async () => {
    const lines: Line[] = []
    const app = createApp({ config: parseConfig({ WORKERS: '2' }), pool, logger: collecting(lines) })
    const secret = 'my private words about a wonderful film'
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
    const batch = await request(app).post('/predict').set('X-Request-Id', 'gateway-42').set('traceparent', traceparent).send({ texts: [secret, 'dull'] }).expect(200)
    await request(app).get('/health').expect(200)
    await request(app).post('/PREDICT').send({ text: secret }).expect(404)
    await waitFor(() => lines.length === 3)
    expect(lines.map(l => [l.level, l.msg, l.method, l.path, l.status])).to.deep.equal([
      ['info', 'request', 'POST', '/predict', 200],
      ['info', 'request', 'GET', '/health', 200],
      ['info', 'request', 'POST', '/PREDICT', 404]
    ])
    const first = lines[0]!
    expect(first).to.include({ request_id: batch.headers['x-request-id'], incoming_request_id: 'gateway-42', traceparent, texts: 2 })
    expect(first.client).to.match(/127\.0\.0\.1/)
    expect(first.duration_ms).to.be.a('number').above(0)
    expect(first.time).to.match(/^\d{4}-\d\d-\d\dT/)
    expect(JSON.stringify(lines)).not.to.contain('private words')
  })

  it('logs a timeout and a worker restart, counts the restart, and logs every 500 with its error_id and stack', async () => {
    const lines: Line[] = []
    const app = createApp({ config: parseConfig({ WORKERS: '2', PREDICTION_TIMEOUT_MS: '300' }), pool, logger: collecting(lines) })
    const slow = await request(app).post('/predict').send({ texts: ['__sleep_5000__'] }).expect(503)
    await waitFor(() => restarts.length === 1 && pool.workerCount === 2)
    const crashed = await request(app).post('/predict').send({ texts: ['__crash__'] }).expect(500)
    await waitFor(() => restarts.length === 2 && pool.workerCount === 2)
    expect(pool.workerRestarts).to.equal(2)
    const timeout = lines.find(l => l.msg === 'timeout')!
    expect(timeout).to.include({ level: 'warn', request_id: slow.headers['x-request-id'], cause: 'ERR_PREDICTION_TIMEOUT' })
    const internal = lines.find(l => l.msg === 'internal server error')!
    expect(internal).to.include({ level: 'error', error_id: (crashed.body as { error_id: string }).error_id })
    expect(String(internal.stack)).to.contain('a worker failed')
    const requestLines = lines.filter(l => l.msg === 'request')
    expect(requestLines.map(l => [l.level, l.status])).to.deep.equal([['warn', 503], ['error', 500]])
    expect(requestLines[1]!.error_id).to.equal((crashed.body as { error_id: string }).error_id)
    const metrics = await request(app).get('/metrics?format=prometheus').expect(200)
    const restartsTotal = (parsePrometheusTextFormat(metrics.text) as Array<{ name: string, metrics: Array<{ value: string }> }>).find(f => f.name === 'tfidf_worker_restarts_total')!
    expect(Number(restartsTotal.metrics[0]!.value)).to.equal(2)
  })
})
