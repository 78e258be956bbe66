/**
 * A model reloaded and unloaded through the load API while many clients use it, with the
 * admission queue in use (MAX_CONCURRENT_REQUESTS=1): no request is stranded on a version
 * that went away (docs/many-models.md, a model's lifetime). Each version of the model names
 * its labels after itself, so every answer says which version gave it.
 */
import { expect } from 'chai'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { FIXTURES } from '../helpers/paths.js'
import { serveRepository, type RepositoryServer } from '../helpers/service.js'

const LABEL_MAP = path.join(FIXTURES, 'apps', '1.2.1', 'label-map')
const expected = readFileSync(path.join(LABEL_MAP, 'expected.jsonl'), 'utf8').split('\n').filter(l => l !== '').map(l => JSON.parse(l) as { text: string, label: string })
const TEXTS = expected.slice(0, 3)

/** Version `version` of model m: the label-map pipeline, its labels suffixed with the version. */
function writeVersion (root: string, version: number): void {
  writeFileSync(path.join(root, 'm', 'model-settings.json'), JSON.stringify({ name: 'm', parameters: { uri: './model.joblib', version: String(version), extra: { tfidf_serve: { labels: { 0: `negative-v${version}`, 1: `positive-v${version}` } } } } }))
}

interface Answer { readonly status: number, readonly ms: number, readonly labels: readonly string[] }

async function predict (base: string): Promise<Answer> {
  const started = performance.now()
  const res = await fetch(`${base}/models/m/predict`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ texts: TEXTS.map(t => t.text) }) })
  const body = await res.json() as { predictions?: Array<{ prediction: string }> }
  return { status: res.status, ms: performance.now() - started, labels: body.predictions?.map(p => p.prediction) ?? [] }
}

/** `clients` clients, each sending one request after another until `ms` have passed, while `churn` runs; every answer. */
async function underLoad (base: string, clients: number, ms: number, churn: (until: number) => Promise<void>): Promise<Answer[]> {
  const until = performance.now() + ms
  const answers: Answer[] = []
  await Promise.all([
    churn(until),
    ...Array.from({ length: clients }, async () => { while (performance.now() < until) answers.push(await predict(base)) })
  ])
  return answers
}

const sleep = async (ms: number): Promise<void> => await new Promise(resolve => setTimeout(resolve, ms))

describe('a model reloaded and unloaded under load, the admission queue in use', function () {
  this.timeout(60000)
  let root: string
  let server: RepositoryServer
  let version = 1

  before(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'tfidf-reload-load-'))
    mkdirSync(path.join(root, 'm'))
    copyFileSync(path.join(LABEL_MAP, 'pipeline.joblib'), path.join(root, 'm', 'model.joblib'))
    writeVersion(root, version)
    server = await serveRepository(root, { DEFAULT_MODEL: 'm', MAX_CONCURRENT_REQUESTS: '1', MAX_QUEUE: '100', CACHE_SIZE: '0', PREDICTION_TIMEOUT_MS: '3000' })
  })
  after(async () => {
    await server.close()
    rmSync(root, { recursive: true, force: true })
  })

  async function post (route: string): Promise<number> {
    const res = await fetch(`${server.base}${route}`, { method: 'POST' })
    await res.arrayBuffer()
    return res.status
  }

  it('answers every request 200 from one version, quickly, while the model is reloaded every 200 ms, and replaces no worker', async () => {
    const answers = await underLoad(server.base, 16, 3000, async until => {
      while (performance.now() < until) {
        await sleep(200)
        writeVersion(root, ++version)
        expect(await post('/v2/repository/models/m/load')).to.equal(200)
      }
    })
    expect(answers.length).to.be.greaterThan(50)
    const statuses = answers.map(a => a.status).filter(s => s !== 200)
    expect(statuses, `${statuses.length} of ${answers.length} not 200`).to.deep.equal([])
    for (const a of answers) {
      const suffix = /-v\d+$/.exec(a.labels[0]!)![0]
      expect(a.labels).to.deep.equal(TEXTS.map(t => t.label + suffix))
    }
    const slowest = Math.max(...answers.map(a => a.ms))
    expect(slowest, 'the slowest answer (ms)').to.be.below(2000)
    expect(server.pool.workerRestarts).to.equal(0)
  })

  it('answers each request 200, or 404/503 at once, while the model is unloaded and loaded again', async () => {
    const answers = await underLoad(server.base, 16, 3000, async until => {
      while (performance.now() < until) {
        await sleep(150)
        expect(await post('/v2/repository/models/m/unload')).to.equal(200)
        await sleep(100)
        expect(await post('/v2/repository/models/m/load')).to.equal(200)
      }
    })
    const served = answers.filter(a => a.status === 200)
    const refused = answers.filter(a => a.status !== 200)
    expect(served.length).to.be.greaterThan(20)
    expect(refused.length).to.be.greaterThan(0)
    expect([...new Set(refused.map(a => a.status))].every(s => s === 404 || s === 503)).to.equal(true)
    const slowestRefusal = Math.max(...refused.map(a => a.ms))
    expect(slowestRefusal, 'the slowest refusal (ms)').to.be.below(1000)
    expect(Math.max(...served.map(a => a.ms)), 'the slowest answer (ms)').to.be.below(2000)
    expect(server.pool.workerRestarts).to.equal(0)
  })
})
