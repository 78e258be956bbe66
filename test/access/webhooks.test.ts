/**
 * Webhooks to a real HTTP receiver on 127.0.0.1 that checks every signature: what an event
 * holds, retries with backoff while the receiver is down, the queue's bound (the loss counted),
 * a final 4xx; and the service process sending model, quota and worker events.
 */
import { expect } from 'chai'
import { createHmac, timingSafeEqual } from 'node:crypto'
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { WebhookSender, type WebhookEvent } from '../../src/access/webhooks.js'
import { waitFor, writeKeyFile } from '../helpers/keys.js'
import { FIXTURES, ROOT } from '../helpers/paths.js'
import { freePort, readyPort, start, type Run } from '../helpers/processes.js'

const SECRET = 'a webhook secret'

interface Received { event: WebhookEvent, headers: http.IncomingHttpHeaders }

/** A receiver that verifies X-Signature-256 as GitHub's docs say (HMAC-SHA256 of the raw body, compared in constant time). */
async function receiver (port: number, answer: (event: WebhookEvent) => number = () => 204): Promise<{ got: Received[], bad: number, close: () => Promise<void> }> {
  const state = { got: [] as Received[], bad: 0 }
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      const expected = Buffer.from(`sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`)
      const given = Buffer.from(String(req.headers['x-signature-256'] ?? ''))
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        state.bad++
        res.writeHead(401).end()
        return
      }
      const event = JSON.parse(body.toString('utf8')) as WebhookEvent
      const status = answer(event)
      if (status < 300) state.got.push({ event, headers: req.headers })
      res.writeHead(status).end()
    })
  })
  await new Promise<void>(resolve => server.listen(port, '127.0.0.1', resolve))
  return { get got () { return state.got }, get bad () { return state.bad }, close: async () => { server.closeAllConnections(); await new Promise(resolve => server.close(resolve)) } }
}

/** How a streaming receiver answers one request: a status, then a body that ends at once, floods (64 KiB chunks as fast as the socket takes them) or trickles (a byte every 50 ms). */
interface Answer { status: number, body: 'none' | 'flood' | 'trickle' }

/** The most a streaming receiver writes to one answer, and for how long: the test's own bound, so today's unbounded read ends too. */
const STREAM_CAP_BYTES = 64 * 1024 * 1024
const STREAM_CAP_MS = 3000

/**
 * A receiver that answers its n-th request (from 0) as `plan(n)` says, verifying each signature,
 * and counts the bytes it managed to hand to each answer's socket before the sender stopped
 * reading (backpressure) or closed the connection: an upper bound on what the sender read.
 */
async function streamingReceiver (port: number, plan: (n: number) => Answer): Promise<{ got: Array<{ n: number, at: number }>, written: number[], bad: number, close: () => Promise<void> }> {
  const state = { got: [] as Array<{ n: number, at: number }>, written: [] as number[], bad: 0 }
  const chunk = Buffer.alloc(64 * 1024, 'x')
  let stopped = false
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      if (String(req.headers['x-signature-256']) !== `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`) state.bad++
      const index = state.written.length
      state.written.push(0)
      state.got.push({ n: Number((JSON.parse(body.toString('utf8')) as WebhookEvent).data.n), at: Date.now() })
      const answer = plan(index)
      if (answer.body === 'none') { res.writeHead(answer.status).end(); return }
      res.writeHead(answer.status, { 'content-type': 'text/plain' })
      res.flushHeaders()
      const began = Date.now()
      const over = (): boolean => stopped || res.destroyed || state.written[index]! >= STREAM_CAP_BYTES || Date.now() - began > STREAM_CAP_MS
      if (answer.body === 'flood') {
        const flood = (): void => {
          while (!over()) {
            state.written[index]! += chunk.length
            if (!res.write(chunk)) { res.once('drain', flood); return }
          }
          if (!res.destroyed) res.end()
        }
        flood()
      } else {
        const timer = setInterval(() => {
          if (over()) { clearInterval(timer); if (!res.destroyed) res.end(); return }
          state.written[index]! += 1
          res.write('x')
        }, 50)
        res.on('close', () => clearInterval(timer))
      }
    })
  })
  await new Promise<void>(resolve => server.listen(port, '127.0.0.1', resolve))
  return {
    get got () { return state.got },
    get written () { return state.written },
    get bad () { return state.bad },
    close: async () => { stopped = true; server.closeAllConnections(); await new Promise(resolve => server.close(resolve)) }
  }
}

describe('webhooks', function () {
  this.timeout(120000)

  it('POSTs each event as JSON with an id, its type, a timestamp and an HMAC-SHA256 signature', async () => {
    const port = await freePort()
    const r = await receiver(port)
    const sender = new WebhookSender({ url: `http://127.0.0.1:${port}/hook`, secret: SECRET, queueSize: 10 })
    try {
      const sent = sender.send('model.loaded', { model: 'spam', version: '2' })
      await waitFor(() => r.got.length === 1)
      const { event, headers } = r.got[0]!
      expect(event).to.deep.equal(sent)
      expect(event.data).to.deep.equal({ model: 'spam', version: '2' })
      expect(event.id).to.match(/^[0-9a-f-]{36}$/)
      expect(Math.abs(Date.parse(event.timestamp) - Date.now())).to.be.below(5000)
      expect(headers['content-type']).to.equal('application/json')
      expect(headers['x-webhook-event']).to.equal('model.loaded')
      expect(headers['x-webhook-id']).to.equal(sent.id)
      expect(r.bad).to.equal(0)
      expect(sender.counts).to.deep.equal({ delivered: 1, retried: 0, dropped: 0, refused: 0 })
    } finally {
      sender.close()
      await r.close()
    }
  })

  it('retries with backoff while the receiver is down and delivers in order once it is up; past the queue\'s bound drops the oldest and counts them', async () => {
    const port = await freePort()
    const lost: string[] = []
    const sender = new WebhookSender({ url: `http://127.0.0.1:${port}/`, secret: SECRET, queueSize: 3, backoffMs: 50, maxBackoffMs: 200, onLost: (e, why) => lost.push(`${why}:${String(e.data.n)}`) })
    try {
      for (let n = 1; n <= 5; n++) sender.send('worker.replaced', { n })
      expect(sender.queued).to.equal(3)
      expect(lost).to.deep.equal(['dropped:1', 'dropped:2'])
      await new Promise(resolve => setTimeout(resolve, 600))
      expect(sender.counts.retried).to.be.at.least(3)
      const r = await receiver(port)
      try {
        await waitFor(() => r.got.length === 3 && sender.counts.delivered === 3)
        expect(r.got.map(g => g.event.data.n)).to.deep.equal([3, 4, 5])
        expect(sender.counts).to.include({ delivered: 3, dropped: 2, refused: 0 })
      } finally {
        await r.close()
      }
    } finally {
      sender.close()
    }
  })

  it('retries a 5xx, 408 or 429 and gives up on another 4xx, counting it', async () => {
    const port = await freePort()
    const answers = [503, 429, 204, 400, 204]
    const r = await receiver(port, () => answers.shift() ?? 204)
    const sender = new WebhookSender({ url: `http://127.0.0.1:${port}/`, secret: SECRET, queueSize: 10, backoffMs: 20 })
    try {
      sender.send('model.unloaded', { n: 1 })
      sender.send('model.unloaded', { n: 2 })
      sender.send('model.unloaded', { n: 3 })
      // The receiver records an event before its answer reaches the sender: wait for both.
      await waitFor(() => r.got.length === 2 && sender.counts.delivered === 2)
      expect(r.got.map(g => g.event.data.n)).to.deep.equal([1, 3])
      expect(sender.counts).to.deep.equal({ delivered: 2, retried: 2, dropped: 0, refused: 1 })
    } finally {
      sender.close()
      await r.close()
    }
  })

  context('a receiver whose answer\'s body does not end', () => {
    // What the receiver hands to one answer's socket before the sender stops reading and closes it:
    // the loopback socket's buffers (about 4 MiB measured) and the little the sender reads itself.
    // Reading the whole body, the receiver streams its 64 MiB cap to it.
    const READ_BOUND = 16 * 1024 * 1024

    it('takes a 200 followed by an endless body as delivered, reads little of it, and sends the next event at once', async () => {
      const port = await freePort()
      const r = await streamingReceiver(port, n => n === 0 ? { status: 200, body: 'flood' } : { status: 204, body: 'none' })
      const sender = new WebhookSender({ url: `http://127.0.0.1:${port}/`, secret: SECRET, queueSize: 10, attemptTimeoutMs: 2000, backoffMs: 20 })
      try {
        const began = Date.now()
        sender.send('model.loaded', { n: 1 })
        sender.send('model.loaded', { n: 2 })
        await waitFor(() => sender.counts.delivered === 2, 5000).catch(() => { throw new Error(`not delivered: ${JSON.stringify({ got: r.got.map(g => g.n), written: r.written, counts: sender.counts })}`) })
        expect(r.got.map(g => g.n)).to.deep.equal([1, 2])
        expect(r.got[1]!.at - began).to.be.below(1000)
        expect(r.written[0]).to.be.below(READ_BOUND)
        expect(sender.counts).to.deep.equal({ delivered: 2, retried: 0, dropped: 0, refused: 0 })
        expect(r.bad).to.equal(0)
      } finally {
        sender.close()
        await r.close()
      }
    })

    it('bounds the whole exchange in time: a 200 whose body trickles forever holds the queue no longer than attemptTimeoutMs', async () => {
      const port = await freePort()
      const r = await streamingReceiver(port, n => n === 0 ? { status: 200, body: 'trickle' } : { status: 204, body: 'none' })
      const sender = new WebhookSender({ url: `http://127.0.0.1:${port}/`, secret: SECRET, queueSize: 10, attemptTimeoutMs: 400, backoffMs: 20 })
      try {
        sender.send('model.loaded', { n: 1 })
        sender.send('model.loaded', { n: 2 })
        await waitFor(() => sender.counts.delivered === 2, 5000).catch(() => { throw new Error(`not delivered: ${JSON.stringify({ got: r.got.map(g => g.n), written: r.written, counts: sender.counts })}`) })
        expect(r.got.map(g => g.n)).to.deep.equal([1, 2])
        const held = r.got[1]!.at - r.got[0]!.at
        expect(held).to.be.within(300, 1500)
        expect(sender.counts).to.deep.equal({ delivered: 2, retried: 0, dropped: 0, refused: 0 })
      } finally {
        sender.close()
        await r.close()
      }
    })

    it('retries a 500 followed by an endless body, reading little of each, and delivers once the receiver answers 204', async () => {
      const port = await freePort()
      const r = await streamingReceiver(port, n => n < 2 ? { status: 500, body: 'flood' } : { status: 204, body: 'none' })
      const sender = new WebhookSender({ url: `http://127.0.0.1:${port}/`, secret: SECRET, queueSize: 10, attemptTimeoutMs: 2000, backoffMs: 20 })
      try {
        sender.send('model.unloaded', { n: 1 })
        sender.send('model.unloaded', { n: 2 })
        await waitFor(() => sender.counts.delivered === 2, 8000).catch(() => { throw new Error(`not delivered: ${JSON.stringify({ got: r.got.map(g => g.n), written: r.written, counts: sender.counts })}`) })
        expect(r.got.map(g => g.n)).to.deep.equal([1, 1, 1, 2])
        expect(r.written.slice(0, 2).every(w => w < READ_BOUND), JSON.stringify(r.written)).to.equal(true)
        expect(sender.counts).to.deep.equal({ delivered: 2, retried: 2, dropped: 0, refused: 0 })
      } finally {
        sender.close()
        await r.close()
      }
    })
  })

  it('tells the receiver, from the service process, of models loaded, failing and unloaded, a quota used up and a worker replaced', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'tfidf-hooks-'))
    for (const name of ['sentiment', 'second']) {
      mkdirSync(path.join(root, name))
      for (const f of ['final_best_model.pkl', 'tfidf_vectorizer.pkl']) copyFileSync(path.join(ROOT, 'models', f), path.join(root, name, f))
    }
    mkdirSync(path.join(root, 'broken'))
    copyFileSync(path.join(FIXTURES, 'hostile', 'self-list.pkl'), path.join(root, 'broken', 'model.pkl'))
    const keys = writeKeyFile([{ id: 'ops', scopes: ['predict', 'admin'], limits: { texts_per_day: 3 } }])
    const port = await freePort()
    const r = await receiver(port)
    let run: Run | undefined
    try {
      run = start({ MODEL_REPOSITORY: root, DEFAULT_MODEL: 'sentiment', WORKERS: '1', API_KEYS_FILE: keys.file, WEBHOOK_URL: `http://127.0.0.1:${port}/events`, WEBHOOK_SECRET: SECRET, PREDICTION_TIMEOUT_MS: '1', CACHE_SIZE: '0' })
      const base = `http://127.0.0.1:${await readyPort(run)}`
      const headers = { 'content-type': 'application/json', 'x-api-key': keys.secrets.ops! }
      const of = (type: string): WebhookEvent[] => r.got.map(g => g.event).filter(e => e.type === type)
      await waitFor(() => of('model.loaded').length === 2 && of('model.load_failed').length === 1).catch(err => { throw new Error(`${(err as Error).message}: ${JSON.stringify(r.got.map(g => g.event))} ${run!.stdout()}`) })
      expect(of('model.loaded').map(e => e.data.model).sort()).to.deep.equal(['second', 'sentiment'])
      expect(of('model.load_failed')[0]!.data).to.include({ model: 'broken' })
      expect(String(of('model.load_failed')[0]!.data.reason)).to.include('contains itself')
      expect((await fetch(`${base}/v2/repository/models/second/unload`, { method: 'POST', headers })).status).to.equal(200)
      await waitFor(() => of('model.unloaded').length === 1)
      expect(of('model.unloaded')[0]!.data).to.include({ model: 'second', version: '1' })
      // A batch no worker finishes in 1 ms: the worker is replaced.
      const long = { texts: Array.from({ length: 3 }, (_, i) => `${'word '.repeat(1900)}${i}`) }
      expect((await fetch(`${base}/batch_predict`, { method: 'POST', headers, body: JSON.stringify(long) })).status).to.equal(503)
      await waitFor(() => of('worker.replaced').length >= 1)
      expect(of('worker.replaced')[0]!.data.thread_id).to.be.a('number')
      // The day's 3 texts were charged by that batch; the next text finds the quota used up.
      expect((await fetch(`${base}/predict`, { method: 'POST', headers, body: JSON.stringify({ text: 'one more' }) })).status).to.equal(429)
      expect((await fetch(`${base}/predict`, { method: 'POST', headers, body: JSON.stringify({ text: 'and again' }) })).status).to.equal(429)
      await waitFor(() => of('key.quota_exhausted').length === 1)
      const quota = of('key.quota_exhausted')[0]!.data
      expect(quota).to.include({ key: 'ops', texts_per_day: 3, day: new Date().toISOString().slice(0, 10) })
      expect(r.bad).to.equal(0)
    } finally {
      run?.child.kill('SIGTERM')
      await run?.exit
      await r.close()
    }
  })
})
