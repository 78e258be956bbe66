import { expect } from 'chai'
import net from 'node:net'
import { listen, startService, type Listening, type Service } from '../helpers/service.js'

describe('a slow-loris client (REQUEST_TIMEOUT_MS, upload included)', function () {
  this.timeout(30000)
  let service: Service
  let listening: Listening
  let port: number
  before(async () => {
    service = await startService({ WORKERS: '1', REQUEST_TIMEOUT_MS: '1000' })
    listening = await listen(service)
    port = listening.port
  })
  after(async () => {
    await listening.close()
    await service.close()
  })

  it('is cut off once its request has taken longer than the limit, while others are served', async () => {
    const socket = net.connect(port, '127.0.0.1')
    await new Promise(resolve => socket.once('connect', resolve))
    const started = performance.now()
    let received = ''
    socket.on('data', (d: Buffer) => { received += d.toString() })
    const closed = new Promise<void>(resolve => socket.once('close', () => resolve()))
    socket.write('POST /predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"te')
    // A byte every 200 ms: never finishing, never idle long enough for a socket timeout.
    const drip = setInterval(() => { if (!socket.destroyed) socket.write(' ') }, 200)
    const other = await fetch(`http://127.0.0.1:${port}/predict`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'a wonderful film' }) })
    expect(other.status).to.equal(200)
    await closed
    clearInterval(drip)
    const seconds = (performance.now() - started) / 1000
    expect(seconds).to.be.within(0.9, 5)
    expect(received).to.match(/^HTTP\/1\.1 408 /)
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).to.equal(200)
  })
})
