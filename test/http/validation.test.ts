import { expect } from 'chai'
import http from 'node:http'
import request from 'supertest'
import { listen, startService, type Listening, type Service } from '../helpers/service.js'

/** Sends raw bytes; resolves with status, body and whether the server closed the connection. */
async function raw (port: number, head: Record<string, string>, chunks: Buffer[], path = '/predict'): Promise<{ status: number, body: string, closed: boolean }> {
  return await new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers: head, agent: false }, res => {
      let body = ''
      res.on('data', (d: Buffer) => { body += d.toString() })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, closed: res.headers.connection === 'close' }))
    })
    req.on('error', reject)
    let i = 0
    const writeNext = (): void => {
      if (i === chunks.length) return void req.end()
      const ok = req.write(chunks[i++]!)
      if (ok) setImmediate(writeNext)
      else req.once('drain', writeNext)
    }
    writeNext()
  })
}

describe('request validation and errors (DECISIONS.md 6-8)', function () {
  this.timeout(60000)
  let service: Service

  before(async () => { service = await startService({ WORKERS: '1' }) })
  after(async () => { await service.close() })

  const post = (body: string, type = 'application/json'): request.Test =>
    request(service.app).post('/predict').set('Content-Type', type).send(body)

  context('400', () => {
    it('refuses a body that is not JSON', async () => {
      const res = await post('{"texts": [').expect(400)
      expect((res.body as { detail: string }).detail).to.match(/^request body is not valid JSON/)
    })

    it('refuses a body that is not application/json, or has no type', async () => {
      expect((await post('{"text":"x"}', 'text/plain').expect(400)).body).to.deep.equal({ detail: 'request body must be application/json' })
      expect((await post('{"text":"x"}', 'application/json; charset=latin1').expect(400)).body).to.deep.equal({ detail: 'request body must be application/json' })
      expect((await request(service.app).post('/predict').expect(400)).body).to.deep.equal({ detail: 'request body must be application/json' })
    })

    it('accepts application/json with charset utf-8', async () => {
      await post('{"text":"fine"}', 'application/json; charset=utf-8').expect(200)
    })
  })

  context('422 with FastAPI\'s body', () => {
    const NEITHER = { loc: ['body', 'text'], msg: 'Field required: the single form is {"text": "..."}, the batch form {"texts": ["...", ...]}', type: 'missing' }
    const cases: Array<[string, unknown, unknown[]]> = [
      ['an empty object', {}, [NEITHER, { loc: ['body', 'texts'], msg: 'Field required', type: 'missing' }]],
      ['a misspelt key (txt), naming the single form', { txt: 'hi' }, [NEITHER, { loc: ['body', 'texts'], msg: 'Field required', type: 'missing' }, { loc: ['body', 'txt'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }]],
      ['both text and texts', { text: 'a', texts: ['b'] }, [{ loc: ['body', 'text'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }]],
      ['an extra key', { texts: ['a'], mode: 'fast' }, [{ loc: ['body', 'mode'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }]],
      ['an extra key beside text', { text: 'a', lang: 'en' }, [{ loc: ['body', 'lang'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }]],
      ['texts as a string', { texts: 'abc' }, [{ loc: ['body', 'texts'], msg: 'Input should be a valid list', type: 'list_type' }]],
      ['a number among texts', { texts: ['a', 3, null] }, [
        { loc: ['body', 'texts', 1], msg: 'Input should be a valid string', type: 'string_type' },
        { loc: ['body', 'texts', 2], msg: 'Input should be a valid string', type: 'string_type' }]],
      ['text as a number', { text: 5 }, [{ loc: ['body', 'text'], msg: 'Input should be a valid string', type: 'string_type' }]],
      ['an empty text', { texts: ['fine', ''] }, [{ loc: ['body', 'texts', 1], msg: 'String should have at least 1 character', type: 'string_too_short' }]],
      ['an empty single text', { text: '' }, [{ loc: ['body', 'text'], msg: 'String should have at least 1 character', type: 'string_too_short' }]],
      ['zero texts', { texts: [] }, [{ loc: ['body', 'texts'], msg: 'List should have at least 1 item after validation, not 0', type: 'too_short' }]],
      ['51 texts', { texts: Array(51).fill('x') }, [{ loc: ['body', 'texts'], msg: 'List should have at most 50 items after validation, not 51', type: 'too_long' }]],
      ['a text of 10,001 code points', { texts: ['é'.repeat(10001)] }, [{ loc: ['body', 'texts', 0], msg: 'String should have at most 10000 characters', type: 'string_too_long' }]],
      ['batch_size 0', { texts: ['a'], batch_size: 0 }, [{ loc: ['body', 'batch_size'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal' }]],
      ['batch_size 51', { texts: ['a'], batch_size: 51 }, [{ loc: ['body', 'batch_size'], msg: 'Input should be less than or equal to 50', type: 'less_than_equal' }]],
      ['batch_size 1.5', { texts: ['a'], batch_size: 1.5 }, [{ loc: ['body', 'batch_size'], msg: 'Input should be a valid integer', type: 'int_type' }]],
      ['batch_size "5"', { texts: ['a'], batch_size: '5' }, [{ loc: ['body', 'batch_size'], msg: 'Input should be a valid integer', type: 'int_type' }]],
      ['batch_size true', { texts: ['a'], batch_size: true }, [{ loc: ['body', 'batch_size'], msg: 'Input should be a valid integer', type: 'int_type' }]],
      ['a JSON array', ['a'], [{ loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type' }]],
      ['JSON null', null, [{ loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type' }]]
    ]
    for (const [name, body, detail] of cases) {
      it(`refuses ${name}`, async () => {
        const res = await post(JSON.stringify(body)).expect(422)
        expect(res.body).to.deep.equal({ detail })
      })
    }

    it('refuses a lone UTF-16 surrogate from a \\ud800 escape', async () => {
      const res = await post('{"texts": ["fine", "bad \\ud800 text"]}').expect(422)
      expect(res.body).to.deep.equal({ detail: [{ loc: ['body', 'texts', 1], msg: 'Input should be a valid string, unable to parse raw data as a unicode string', type: 'string_unicode' }] })
    })

    it('counts length in code points: 10,000 emoji are one valid text', async () => {
      const res = await post(JSON.stringify({ text: '😀'.repeat(10000) })).expect(200)
      expect((res.body as { sentiment: string }).sentiment).to.be.oneOf(['negative', 'positive'])
    })

    it('classifies a text of spaces like any other', async () => {
      const res = await post(JSON.stringify({ texts: ['   '] })).expect(200)
      expect((res.body as { predictions: Array<{ text: string }> }).predictions[0]!.text).to.equal('   ')
    })

    it('/batch_predict takes only the batch form', async () => {
      const res = await request(service.app).post('/batch_predict').send({ text: 'a' }).expect(422)
      expect(res.body).to.deep.equal({ detail: [{ loc: ['body', 'texts'], msg: 'Field required', type: 'missing' }, { loc: ['body', 'text'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }] })
    })
  })

  context('on a real server: raw bytes and 413', () => {
    let listening: Listening
    let port: number
    before(async () => {
      listening = await listen(service)
      port = listening.port
    })
    after(async () => { await listening.close() })

    it('refuses invalid UTF-8 with 400, checked on the raw bytes', async () => {
      const bytes = Buffer.from([0x7b, 0x22, 0x74, 0x65, 0x78, 0x74, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d])
      const res = await raw(port, { 'Content-Type': 'application/json', 'Content-Length': String(bytes.length) }, [bytes])
      expect([res.status, res.body]).to.deep.equal([400, JSON.stringify({ detail: 'request body is not valid UTF-8' })])
    })

    it('refuses a Content-Length over 1 MiB without reading the body, and closes the connection', async () => {
      const res = await raw(port, { 'Content-Type': 'application/json', 'Content-Length': String(1024 * 1024 + 1) }, [])
      expect(res).to.deep.equal({ status: 413, body: JSON.stringify({ detail: 'request body exceeds 1048576 bytes' }), closed: true })
    })

    it('refuses a chunked body once its bytes pass 1 MiB', async () => {
      const chunk = Buffer.alloc(64 * 1024, 0x20)
      const res = await raw(port, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' }, Array(40).fill(chunk))
      expect([res.status, res.body]).to.deep.equal([413, JSON.stringify({ detail: 'request body exceeds 1048576 bytes' })])
    })

    it('accepts a body of exactly 1 MiB and keeps serving after refusals', async () => {
      const body = JSON.stringify({ text: 'fine' })
      const padded = Buffer.from(body + ' '.repeat(1024 * 1024 - body.length))
      const res = await raw(port, { 'Content-Type': 'application/json', 'Content-Length': String(padded.length) }, [padded])
      expect(res.status).to.equal(200)
    })
  })
})
