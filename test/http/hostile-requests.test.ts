/**
 * Requests as an attacker or a careless client sends them, on a real server on 127.0.0.1:
 * stalled and aborted uploads (the status logged and counted is the one sent, or
 * "aborted"), a 413 while the client still sends 6 MB (read, not reset), bodies refused by
 * their shape before a parse, requests cut into many chunks (no listener warnings), and a
 * server process whose stderr carries nothing but JSON under a mixed load.
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import http from 'node:http'
import net from 'node:net'
import path from 'node:path'
import type { AddressInfo } from 'node:net'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { parseConfig } from '../../src/config.js'
import { createApp } from '../../src/http/app.js'
import { createServer } from '../../src/http/server.js'
import { createPino, loggerOf } from '../../src/logger.js'
import { ClassifierPool } from '../../src/pool/classifier-pool.js'
import { ROOT } from '../helpers/paths.js'

type Line = Record<string, unknown>

interface Raw { status: number, headers: Record<string, string>, body: string, reset: boolean }

/** Whether `received` holds a whole response (headers and a Content-Length body). */
function isWhole (received: string): boolean {
  const end = received.indexOf('\r\n\r\n')
  if (end < 0) return false
  const length = /\r\ncontent-length: *(\d+)/i.exec(received.slice(0, end))
  return length !== null && Buffer.byteLength(received.slice(end + 4), 'latin1') >= Number(length[1])
}

/**
 * Sends `head` then `body` chunk by chunk on a raw socket, as fast as the socket takes them,
 * as a client that writes its whole request before it reads; returns the answer once it is
 * whole or the server closes ('reset' tells whether the socket saw an error such as ECONNRESET).
 */
async function rawRequest (port: number, head: string, body: { chunks: number, size: number, chunked?: boolean } | undefined, after: 'wait' | 'destroy' = 'wait'): Promise<Raw> {
  const socket = net.connect(port, '127.0.0.1')
  await once(socket, 'connect')
  let received = ''
  let reset = false
  let whole: () => void = () => {}
  const answered = new Promise<void>(resolve => { whole = resolve })
  socket.on('data', (d: Buffer) => { received += d.toString('latin1'); if (isWhole(received)) whole() })
  socket.on('error', () => { reset = true })
  const closed = once(socket, 'close')
  socket.write(head)
  if (body !== undefined) {
    const spaces = Buffer.alloc(body.size, 0x20)
    // Chunked framing: each write is one chunk of the body.
    const chunk = body.chunked === true ? Buffer.concat([Buffer.from(`${body.size.toString(16)}\r\n`), spaces, Buffer.from('\r\n')]) : spaces
    for (let i = 0; i < body.chunks && !socket.destroyed; i++) {
      if (!socket.write(chunk)) await Promise.race([once(socket, 'drain'), closed])
    }
    if (body.chunked === true && !socket.destroyed) socket.write('0\r\n\r\n')
  }
  if (after === 'destroy') socket.destroy()
  await Promise.race([closed, answered])
  socket.destroy()
  const [headText = '', text = ''] = received.split('\r\n\r\n')
  const [statusLine = '', ...lines] = headText.split('\r\n')
  const headers = Object.fromEntries(lines.map(l => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body: text, reset }
}

async function waitFor<T> (find: () => T | undefined, ms = 10000): Promise<T> {
  const until = Date.now() + ms
  for (;;) {
    const found = find()
    if (found !== undefined) return found
    if (Date.now() > until) throw new Error('not found in time')
    await new Promise(resolve => setTimeout(resolve, 20))
  }
}

describe('hostile and careless requests on a real server', function () {
  this.timeout(120000)
  const lines: Line[] = []
  let pool: ClassifierPool
  let server: http.Server
  let port: number

  before(async () => {
    const config = parseConfig({ WORKERS: '2', REQUEST_TIMEOUT_MS: '1000', CACHE_SIZE: '0' })
    pool = await ClassifierPool.start(config)
    const logger = loggerOf(createPino('info', { write: (line: string) => { lines.push(JSON.parse(line) as Line) } }))
    server = createServer(createApp({ config, pool, logger }), config)
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  })
  after(async () => {
    server.closeAllConnections()
    await new Promise(resolve => server.close(resolve))
    await pool.close()
  })

  const logged = async (requestId: string): Promise<Line> => await waitFor(() => lines.find(l => l.msg === 'request' && l.request_id === requestId))
  const counted = async (): Promise<Array<{ labels: Record<string, string>, value: string }>> => {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics?format=prometheus`)).text()
    const families = parsePrometheusTextFormat(text) as Array<{ name: string, metrics: Array<{ labels: Record<string, string>, value: string }> }>
    return families.find(f => f.name === 'tfidf_http_requests_total')?.metrics ?? []
  }

  it('answers a stalled upload 408 with X-Request-Id and X-API-Version, and logs and counts it as 408', async () => {
    const before = lines.length
    const res = await rawRequest(port, 'POST /predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"te', undefined)
    expect(res.status).to.equal(408)
    expect(res.headers).to.include({ 'x-api-version': '1.0.0', connection: 'close' })
    expect(res.headers['x-request-id']).to.match(/^req-\d+$/)
    expect(JSON.parse(res.body)).to.deep.equal({ detail: 'request body was not received in full within 1000 ms' })
    const line = await logged(res.headers['x-request-id']!)
    expect(line).to.include({ method: 'POST', path: '/predict', status: 408 })
    expect(lines.slice(before).filter(l => l.msg === 'request' && l.status === 200)).to.deep.equal([])
    expect((await counted()).filter(m => m.labels.route === '/predict').map(m => [m.labels.status, m.value])).to.deep.include(['408', '1'])
  })

  it('answers headers that stall 408 with X-Request-Id, logged and counted', async () => {
    const res = await rawRequest(port, 'POST /predict HTTP/1.1\r\nHost: x\r\n', undefined)
    expect(res.status).to.equal(408)
    expect(res.headers['x-request-id']).to.match(/^req-\d+$/)
    expect(res.headers['x-api-version']).to.equal('1.0.0')
    expect(await logged(res.headers['x-request-id']!)).to.include({ status: 408 })
    expect((await counted()).filter(m => m.labels.route === 'unmatched' && m.labels.status === '408').map(m => m.value)).to.deep.equal(['1'])
  })

  it('logs and counts an upload its client abandons as "aborted", not 200', async () => {
    const before = lines.length
    await rawRequest(port, 'POST /predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"texts": ["', { chunks: 2, size: 1000 }, 'destroy')
    const line = await waitFor(() => lines.slice(before).find(l => l.msg === 'request' && l.path === '/predict'))
    expect(line.status).to.equal('aborted')
    const metrics = (await counted()).filter(m => m.labels.route === '/predict')
    expect(metrics.map(m => [m.labels.status, m.value])).to.deep.include(['aborted', '1'])
    expect(metrics.filter(m => m.labels.status === '200')).to.deep.equal([])
  })

  for (const [framing, head] of [
    ['a Content-Length of 6 MB', `POST /predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${6 * 1024 * 1024}\r\n\r\n`],
    ['chunked framing', 'POST /predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n']
  ] as const) {
    it(`lets a raw client still writing 6 MB with ${framing} read its 413, 20 times in 20`, async () => {
      const answers: Raw[] = []
      for (let i = 0; i < 20; i++) {
        answers.push(await rawRequest(port, head, { chunks: 96, size: 0x10000, chunked: framing === 'chunked framing' }))
      }
      expect(answers.map(a => [a.status, a.reset])).to.deep.equal(new Array(20).fill([413, false]))
      expect(JSON.parse(answers[0]!.body)).to.deep.equal({ detail: 'request body exceeds 1048576 bytes' })
      expect(answers[0]!.headers['x-request-id']).to.match(/^req-\d+$/)
    })
  }

  it('lets fetch read the 413 of a 6 MB body 20 times in 20, and keeps serving', async () => {
    const body = JSON.stringify({ text: 'x'.repeat(6 * 1024 * 1024) })
    const statuses: number[] = []
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/predict`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      statuses.push(res.status)
      await res.text()
    }
    expect(statuses).to.deep.equal(new Array(20).fill(413))
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).to.equal(200)
  })

  it('refuses 1 MB of arrays nested 520,000 deep with a 422 from its shape, before any parse', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/predict`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '['.repeat(520_000) + ']'.repeat(520_000) })
    expect(res.status).to.equal(422)
    expect(await res.json()).to.deep.equal({ detail: [{ loc: ['body'], msg: 'body nests arrays and objects more than 8 deep', type: 'json_too_complex' }] })
    const many = await fetch(`http://127.0.0.1:${port}/predict`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"texts": [${new Array(200_000).fill('0').join(',')}]}` })
    expect(await many.json()).to.deep.equal({ detail: [{ loc: ['body'], msg: 'body holds more than 114 values', type: 'json_too_complex' }] })
  })

  it('cuts a batch into 50 one-text chunks with no process warning and no abort listener left behind', async () => {
    const warnings: Error[] = []
    const onWarning = (w: Error): void => { warnings.push(w) }
    process.on('warning', onWarning)
    try {
      const texts = Array.from({ length: 50 }, (_, i) => `text number ${i}`)
      const res = await fetch(`http://127.0.0.1:${port}/predict`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ texts, batch_size: 1 }) })
      expect(res.status).to.equal(200)
      expect(((await res.json()) as { predictions: unknown[] }).predictions).to.have.length(50)
      await new Promise(resolve => setImmediate(resolve))
      expect(warnings.map(w => w.name)).to.deep.equal([])
    } finally {
      process.off('warning', onWarning)
    }
  })
})

describe('the service process under a mixed load', function () {
  this.timeout(120000)

  it('writes nothing but JSON lines to stdout and stderr', async () => {
    const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'main.js')], { env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', WORKERS: '2', REQUEST_TIMEOUT_MS: '1000' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString() })
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString() })
    const exited = once(child, 'exit')
    const port = await waitFor(() => {
      const ready = stdout.split('\n').find(l => l.includes('"msg":"ready"'))
      return ready === undefined ? undefined : (JSON.parse(ready) as { port: number }).port
    }, 20000)
    const post = async (body: string, contentType = 'application/json'): Promise<number> => {
      const res = await fetch(`http://127.0.0.1:${port}/predict`, { method: 'POST', headers: { 'content-type': contentType }, body })
      await res.arrayBuffer()
      return res.status
    }
    const texts = Array.from({ length: 30 }, (_, i) => `a film, number ${i}`)
    const mix: Array<() => Promise<unknown>> = [
      async () => await post(JSON.stringify({ texts, batch_size: 1 })),
      async () => await post(JSON.stringify({ text: 'a wonderful film' })),
      async () => await post('{"text": '),
      async () => await post('['.repeat(100_000)),
      async () => await post(JSON.stringify({ text: 'x'.repeat(1_200_000) })),
      async () => await post('{"text": "ok"}', 'text/plain'),
      async () => await rawRequest(port, 'POST /predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"te', { chunks: 1, size: 100 }, 'destroy'),
      async () => await fetch(`http://127.0.0.1:${port}/nowhere`).then(async r => await r.text()),
      async () => await fetch(`http://127.0.0.1:${port}/explain`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ texts, top_k: 3 }) }).then(async r => await r.text())
    ]
    const until = Date.now() + 3000
    let sent = 0
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (Date.now() < until) { await mix[sent++ % mix.length]!() }
    }))
    child.kill('SIGTERM')
    await exited
    expect(sent).to.be.above(mix.length * 4)
    const notJson = (text: string): string[] => text.split('\n').filter(l => l !== '').filter(l => { try { JSON.parse(l); return false } catch { return true } })
    expect(notJson(stderr), 'stderr').to.deep.equal([])
    expect(notJson(stdout), 'stdout').to.deep.equal([])
  })
})
