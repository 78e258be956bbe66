/**
 * Limits shared through a real redis-server by real service processes: a key's requests a
 * second held across two replicas; Redis killed under load (each replica answers as
 * RATE_LIMIT_ON_STORE_ERROR says, never a 500 or a hung request) and limits back once Redis
 * is; Redis frozen (SIGSTOP), calls cut by REDIS_TIMEOUT_MS; a quota that outlives a restart.
 */
import { expect } from 'chai'
import { readExposition, total } from '../helpers/exposition.js'
import { writeKeyFile, waitFor, type KeyFile } from '../helpers/keys.js'
import { logLines, readyPort, start, startRedis, type RedisServer, type Run } from '../helpers/processes.js'

const BODY = JSON.stringify({ text: 'a wonderful, moving film' })

interface Service { run: Run, base: string }

async function serve (env: Record<string, string>): Promise<Service> {
  const run = start({ WORKERS: '1', ...env })
  return { run, base: `http://127.0.0.1:${await readyPort(run)}` }
}

async function stop (s: Service | undefined): Promise<void> {
  if (s === undefined || s.run.child.exitCode !== null) return
  s.run.child.kill('SIGTERM')
  await s.run.exit
}

async function predict (s: Service, secret: string, body = BODY): Promise<{ status: number, ms: number, headers: Headers, text: string }> {
  const started = performance.now()
  const res = await fetch(`${s.base}/batch_predict`.replace('/batch_predict', body.includes('"texts"') ? '/batch_predict' : '/predict'), { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': secret }, body })
  const text = await res.text()
  return { status: res.status, ms: performance.now() - started, headers: res.headers, text }
}

/** Requests sent by `clients` loops to each service until `ms` have passed: every answer's status and time. */
async function load (services: readonly Service[], secret: string, ms: number, clients = 4): Promise<Array<{ service: number, status: number, ms: number }>> {
  const until = performance.now() + ms
  const out: Array<{ service: number, status: number, ms: number }> = []
  await Promise.all(services.flatMap((s, service) => Array.from({ length: clients }, async () => {
    while (performance.now() < until) {
      const r = await predict(s, secret)
      out.push({ service, status: r.status, ms: r.ms })
    }
  })))
  return out
}

describe('rate limits shared through Redis', function () {
  this.timeout(180000)
  let redis: RedisServer
  let keys: KeyFile
  let a: Service | undefined
  let b: Service | undefined

  before(async () => {
    redis = await startRedis()
    keys = writeKeyFile([
      { id: 'shared', scopes: ['predict'], limits: { requests_per_second: 50 } },
      { id: 'daily', scopes: ['predict'], limits: { texts_per_day: 10 } }
    ])
  })
  afterEach(async () => {
    await stop(a)
    await stop(b)
    a = b = undefined
    // A test that failed with Redis down leaves it up again for the next.
    if (redis.child.exitCode !== null || redis.child.signalCode !== null) redis = await startRedis(redis.port)
  })
  after(async () => { await redis?.kill() })

  it('holds one key to N requests a second across two replicas (within 3%)', async () => {
    // A call to Redis cut by REDIS_TIMEOUT_MS lets its request through (RATE_LIMIT_ON_STORE_ERROR
    // is open by default): on cores shared with other work a call past the default 100 ms did,
    // and 259 passed where 250 may. What is counted here is the one count both replicas share,
    // so calls are given all the time they take; cutting them is the frozen-Redis test's subject.
    const env = { API_KEYS_FILE: keys.file, REDIS_URL: redis.url, REDIS_TIMEOUT_MS: '10000' }
    ;[a, b] = await Promise.all([serve(env), serve(env)])
    // 4.5 s of load: five one-second windows, the fifth cut short but filled in its first tenth.
    const answers = await load([a, b], keys.secrets.shared!, 4500)
    const passed = answers.filter(r => r.status === 200).length
    const refused = answers.filter(r => r.status === 429).length
    expect(passed + refused).to.equal(answers.length)
    expect(refused).to.be.greaterThan(passed)
    expect(Math.abs(passed - 5 * 50) / (5 * 50), `${passed} passed of ${answers.length}`).to.be.at.most(0.03)
    // Both replicas served some of them: the limit is one, not one each.
    expect(answers.filter(r => r.service === 0 && r.status === 200).length).to.be.greaterThan(10)
    expect(answers.filter(r => r.service === 1 && r.status === 200).length).to.be.greaterThan(10)
  })

  it('keeps answering when Redis dies under load, open or closed as set, says so once, and limits again once it is back', async () => {
    const env = { API_KEYS_FILE: keys.file, REDIS_URL: redis.url, REDIS_TIMEOUT_MS: '100' }
    ;[a, b] = await Promise.all([serve({ ...env, RATE_LIMIT_ON_STORE_ERROR: 'open' }), serve({ ...env, RATE_LIMIT_ON_STORE_ERROR: 'closed' })])
    const running = load([a, b], keys.secrets.shared!, 3000, 2)
    await new Promise(resolve => setTimeout(resolve, 1000))
    await redis.kill()
    const during = await running
    // After the kill: the open replica lets everything through, the closed one refuses with 503; nothing else, nothing slow.
    const statuses = new Set(during.map(r => `${r.service}:${r.status}`))
    expect([...statuses].every(s => ['0:200', '0:429', '1:200', '1:429', '1:503'].includes(s)), [...statuses].join()).to.equal(true)
    // Nothing held until Redis is back (such a request would not be answered during the load at
    // all); the bound is generous because the cores may be shared with other work.
    expect(Math.max(...during.map(r => r.ms))).to.be.below(3000)
    const open = await predict(a, keys.secrets.shared!)
    expect(open.status).to.equal(200)
    const closed = await predict(b, keys.secrets.shared!)
    expect(closed.status).to.equal(503)
    expect(closed.headers.get('retry-after')).to.equal('1')
    expect(JSON.parse(closed.text)).to.deep.equal({ detail: 'rate limits cannot be checked right now (their store is unavailable); retry shortly' })
    // One line per outage, however many requests failed.
    for (const [s, how] of [[a, 'let through'], [b, 'refused']] as const) {
      const lines = logLines(s.run).filter(l => String(l.msg).startsWith('rate limit store unavailable'))
      expect(lines.length).to.equal(1)
      expect(lines[0]!.msg).to.match(new RegExp(`^rate limit store unavailable, requests ${how} until it is back: `))
      const metrics = readExposition(await (await fetch(`${s.base}/metrics`, { headers: { accept: 'text/plain;version=0.0.4' } })).text())
      expect(total(metrics, 'tfidf_rate_limit_store_errors_total')).to.be.greaterThan(0)
      expect(metrics.samples.filter(m => m.name === 'tfidf_http_requests_total' && m.labels.status === '500')).to.deep.equal([])
    }
    redis = await startRedis(redis.port)
    // Back: both replicas count again (429 past the limit), and say so.
    await waitFor(async () => (await load([a!, b!], keys.secrets.shared!, 300, 2)).some(r => r.status === 429 && r.service === 0), 10000)
    await waitFor(async () => (await predict(b!, keys.secrets.shared!)).status !== 503, 10000)
    for (const s of [a, b]) expect(logLines(s.run).some(l => l.msg === 'rate limit store is back')).to.equal(true)
  })

  it('cuts a call to a frozen Redis at REDIS_TIMEOUT_MS and answers', async () => {
    a = await serve({ API_KEYS_FILE: keys.file, REDIS_URL: redis.url, REDIS_TIMEOUT_MS: '150' })
    expect((await predict(a, keys.secrets.shared!)).status).to.equal(200)
    redis.child.kill('SIGSTOP')
    try {
      const answers = await Promise.all(Array.from({ length: 5 }, async () => await predict(a!, keys.secrets.shared!)))
      for (const r of answers) {
        expect(r.status).to.equal(200)
        expect(r.ms).to.be.below(1000)
      }
    } finally {
      redis.child.kill('SIGCONT')
    }
  })

  it('keeps a key\'s day of texts across a restart of the service', async () => {
    const env = { API_KEYS_FILE: keys.file, REDIS_URL: redis.url }
    const texts = (n: number): string => JSON.stringify({ texts: Array.from({ length: n }, (_, i) => `review ${i}`) })
    a = await serve(env)
    const first = await predict(a, keys.secrets.daily!, texts(8))
    expect(first.status).to.equal(200)
    expect(first.headers.get('ratelimit')).to.match(/^"daily";r=2;t=\d+$/)
    await stop(a)
    a = await serve(env)
    const over = await predict(a, keys.secrets.daily!, texts(5))
    expect(over.status).to.equal(429)
    expect(over.headers.get('ratelimit')).to.match(/^"daily";r=2;t=\d+$/)
    expect((await predict(a, keys.secrets.daily!, texts(2))).status).to.equal(200)
    expect((await predict(a, keys.secrets.daily!, texts(1))).status).to.equal(429)
  })
})
