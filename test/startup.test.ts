/**
 * The service as a process: `node dist/src/main.bundle.js` as `npm start` runs it, start-up
 * refusals, and a graceful SIGTERM with requests in flight.
 */
import { expect } from 'chai'
import { once } from 'node:events'
import http from 'node:http'
import path from 'node:path'
import { FIXTURES } from './helpers/paths.js'
import { readyPort, start } from './helpers/processes.js'

describe('the service process', function () {
  this.timeout(60000)

  it('serves the default model and logs one ready line with model, classes, features, workers and load time', async () => {
    const run = start({})
    try {
      const port = await readyPort(run)
      const ready = JSON.parse(run.stdout().split('\n').find(l => l.includes('"msg":"ready"'))!) as Record<string, unknown>
      expect(ready).to.include({ classifier: 'LogisticRegression', vectorizer: 'TfidfVectorizer', features: 29238, workers: 2 })
      expect(ready.classes).to.deep.equal(['negative', 'positive'])
      expect(ready.model_load_ms).to.be.a('number')
      const res = await fetch(`http://127.0.0.1:${port}/predict`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'a wonderful film' }) })
      expect(res.status).to.equal(200)
      expect(((await res.json()) as { sentiment: string }).sentiment).to.equal('positive')
    } finally {
      run.child.kill('SIGTERM')
      expect(await run.exit).to.equal(0)
    }
  })

  const refusals: Array<[string, Record<string, string>, RegExp]> = [
    ['a bad setting', { WORKERS: 'two' }, /^tfidf-serve: invalid configuration: WORKERS must be integer \(got "two"\)\n$/],
    ['a missing model file', { MODEL_PATH: '/no/model.pkl' }, /^tfidf-serve: no such file: \/no\/model\.pkl\n$/],
    ['a MODEL_DIR that does not exist', { MODEL_DIR: '/no/such-folder' }, /^tfidf-serve: invalid configuration: MODEL_DIR does not exist: \/no\/such-folder\n$/],
    ['a missing settings file', { MODEL_SETTINGS: '/no/model-settings.json' }, /^tfidf-serve: invalid model settings: no such file: \/no\/model-settings\.json\n$/],
    ['a hostile model file', { MODEL_PATH: path.join(FIXTURES, 'pickle', 'os-system.pkl') }, /^tfidf-serve: unsupported object 'os\.system' in .*os-system\.pkl \(byte \d+\)\n$/],
    ['a truncated model file', { MODEL_PATH: path.join(FIXTURES, 'pickle', 'truncated.pkl') }, /^tfidf-serve: .* in .*truncated\.pkl \(byte \d+\)\n$/],
    ['an unsupported estimator', { MODEL_PATH: path.join(FIXTURES, 'estimators', 'refused', 'radius-pipeline.pkl') }, /^tfidf-serve: RadiusNeighborsClassifier is not supported .* in .*radius-pipeline\.pkl\n$/],
    ['LABEL_NAMES of the wrong length', { LABEL_NAMES: 'a,b,c' }, /^tfidf-serve: invalid configuration: LABEL_NAMES has 3 names but the model has 2 classes \(negative, positive\)\n$/]
  ]
  for (const [name, env, line] of refusals) {
    it(`refuses to start on ${name} with one line on stderr and exit 1`, async () => {
      const run = start(env)
      expect(await run.exit).to.equal(1)
      expect(run.stderr()).to.match(line)
    })
  }

  it('on SIGTERM stops accepting, answers every request in flight, and exits 0', async () => {
    const run = start({ CACHE_SIZE: '0' })
    const port = await readyPort(run)
    const long = 'a wonderful, moving film with a dull middle '.repeat(200)
    const body = JSON.stringify({ texts: Array.from({ length: 50 }, (_, i) => `${long} ${i}`), batch_size: 1 })
    // Every connection is accepted first (a GET on each), so SIGTERM finds all 24 requests on
    // open connections; a connection still in the listen backlog is refused, as it should be.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 24 })
    const get = async (): Promise<void> => await new Promise((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path: '/health', agent }, res => { res.resume(); res.on('end', resolve) }).on('error', reject)
    })
    await Promise.all(Array.from({ length: 24 }, get))
    const sent: Array<Promise<void>> = []
    const answered = Array.from({ length: 24 }, async () => await new Promise<{ status: number, texts: number, at: number }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path: '/predict', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, res => {
        let text = ''
        res.on('data', (d: Buffer) => { text += d.toString() })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, texts: (JSON.parse(text) as { predictions?: unknown[] }).predictions?.length ?? 0, at: performance.now() }))
      })
      req.on('error', reject)
      sent.push(once(req, 'finish').then(() => {}))
      req.end(body)
    }))
    await Promise.all(sent)
    await new Promise(resolve => setTimeout(resolve, 50))
    const killedAt = performance.now()
    run.child.kill('SIGTERM')
    const responses = await Promise.all(answered)
    expect(responses.map(r => [r.status, r.texts])).to.deep.equal(Array(24).fill([200, 50]))
    // Some answers came after SIGTERM: they were in flight when it arrived.
    expect(Math.max(...responses.map(r => r.at))).to.be.above(killedAt)
    expect(await run.exit).to.equal(0)
    agent.destroy()
    expect(run.stdout()).to.contain('"msg":"stopped"')
    let refused = false
    try {
      await fetch(`http://127.0.0.1:${port}/health`)
    } catch {
      refused = true
    }
    expect(refused).to.equal(true)
  })
})
