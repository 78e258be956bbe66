import { expect } from 'chai'
import net from 'node:net'
import { listen, startService, type Listening, type Service } from '../helpers/service.js'

/** Sends `raw` on a fresh connection; resolves with all it got back once the server closes it. */
async function exchange (port: number, raw: string): Promise<string> {
  const socket = net.connect(port, '127.0.0.1')
  let received = ''
  socket.on('data', (d: Buffer) => { received += d.toString() })
  socket.write(raw)
  await new Promise<void>((resolve, reject) => {
    socket.once('close', () => resolve())
    socket.once('error', reject)
    setTimeout(() => reject(new Error(`connection still open; got ${received}`)), 5000)
  })
  return received
}

function parse (response: string): { status: number, headers: Record<string, string>, body: unknown } {
  const [head, body] = response.split('\r\n\r\n') as [string, string]
  const [statusLine, ...headerLines] = head.split('\r\n')
  const headers = Object.fromEntries(headerLines.map(l => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
  return { status: Number(statusLine!.split(' ')[1]), headers, body: JSON.parse(body) }
}

describe('strict HTTP', function () {
  this.timeout(30000)
  let service: Service
  let listening: Listening
  let port: number
  before(async () => {
    service = await startService({ WORKERS: '1' })
    listening = await listen(service)
    port = listening.port
  })
  after(async () => {
    await listening.close()
    await service.close()
  })

  it('routes exactly: another case or a trailing slash is not the route', async () => {
    const post = async (path: string): Promise<Response> => await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text": "a wonderful film"}' })
    expect((await post('/predict')).status).to.equal(200)
    for (const path of ['/PREDICT', '/Predict', '/predict/', '/BATCH_PREDICT', '/Explain']) {
      const res = await post(path)
      expect(res.status, path).to.equal(404)
      expect(await res.json()).to.deep.equal({ detail: `no route for POST ${path}` })
    }
    expect((await fetch(`http://127.0.0.1:${port}/HEALTH`)).status).to.equal(404)
  })

  for (const [what, raw, status] of [
    ['a malformed request line', 'GET /health HTTP/9.9 nonsense\r\n\r\n', 400],
    ['a bad header', 'GET /health HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n', 400],
    ['broken chunked framing', 'POST /predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n', 400],
    ['headers past the limit', `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20000)}\r\n\r\n`, 431]
  ] as const) {
    it(`answers ${what} with a JSON ${status} carrying X-API-Version, and closes the connection`, async () => {
      const response = parse(await exchange(port, raw))
      expect(response.status).to.equal(status)
      expect(response.headers['x-api-version']).to.equal('1.0.0')
      expect(response.headers['content-type']).to.equal('application/json; charset=utf-8')
      expect(response.headers.connection).to.equal('close')
      expect((response.body as { detail: string }).detail).to.be.a('string').and.not.equal('')
      // The server keeps serving.
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).to.equal(200)
    })
  }
})
