/**
 * Reloads and unloads against a real repository served over 127.0.0.1 (issue 23): a reload
 * runs the functions module as it is now, in every worker; a version's answers never change
 * because its workers were replaced, even once the file has changed again; and a load racing
 * an unload answers what the load did.
 */
import { expect } from 'chai'
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseConfig } from '../../src/config.js'
import { createApp } from '../../src/http/app.js'
import { createServer } from '../../src/http/server.js'
import { createLogger } from '../../src/logger.js'
import type { ClassifierPool } from '../../src/pool/classifier-pool.js'
import type { ModelRepository } from '../../src/repository/model-repository.js'
import { openRepository } from '../../src/repository/open.js'
import { FIXTURES } from '../helpers/paths.js'
import { HOOKED_WORKER } from '../helpers/service.js'

const APPS = path.join(FIXTURES, 'apps', '1.2.1')
interface Line { text: string, label: string, functions: Record<string, string> }
const lines = readFileSync(path.join(APPS, 'preprocessor-main', 'expected.jsonl'), 'utf8').split('\n').filter(l => l !== '').map(l => JSON.parse(l) as Line)

/** base (the default) and other: the label-map pipeline; reloadfn: preprocessor-main, whose functions.mjs the tests edit. */
function makeRepository (): string {
  const root = mkdtempSync(path.join(tmpdir(), 'tfidf-lifecycle-'))
  for (const name of ['base', 'other']) {
    mkdirSync(path.join(root, name))
    copyFileSync(path.join(APPS, 'label-map', 'pipeline.joblib'), path.join(root, name, 'model.joblib'))
    writeFileSync(path.join(root, name, 'model-settings.json'), JSON.stringify({ name, parameters: { uri: './model.joblib', version: '1', extra: { tfidf_serve: { labels: { 0: 'negative', 1: 'positive' } } } } }))
  }
  cpSync(path.join(APPS, 'preprocessor-main'), path.join(root, 'reloadfn'), { recursive: true })
  const settings = JSON.parse(readFileSync(path.join(root, 'reloadfn', 'model-settings.json'), 'utf8')) as { name?: string }
  settings.name = 'reloadfn'
  writeFileSync(path.join(root, 'reloadfn', 'model-settings.json'), JSON.stringify(settings))
  return root
}

/** A functions module whose clean_text maps every text to `cleaned`. */
const constantModule = (cleaned: string): string => `export const functions = { '__main__.clean_text': () => ${JSON.stringify(cleaned)} }\n`

describe('reloads and unloads of a served repository', function () {
  this.timeout(120000)
  let root: string
  let pool: ClassifierPool
  let repository: ModelRepository
  let server: ReturnType<typeof createServer>
  let url: string

  before(async () => {
    root = makeRepository()
    const config = parseConfig({ MODEL_REPOSITORY: root, DEFAULT_MODEL: 'base', WORKERS: '2', CACHE_SIZE: '0', LOG_LEVEL: 'silent' })
    ;({ pool, repository } = await openRepository(config, { workerFile: HOOKED_WORKER }))
    server = createServer(createApp({ config, pool, repository, logger: createLogger('silent') }), config)
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  after(async () => {
    await new Promise(resolve => server.close(resolve))
    await pool.close()
    rmSync(root, { recursive: true, force: true })
  })

  async function post (route: string, body: unknown = {}): Promise<{ status: number, body: unknown }> {
    const res = await fetch(`${url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    return { status: res.status, body: await res.json() }
  }

  /** Each text in a request of its own, all at once (both workers answer): [prediction, confidence] of each. */
  async function answers (model: string, texts: readonly string[]): Promise<Array<[string, number]>> {
    return await Promise.all(texts.map(async text => {
      const res = await post(`/models/${model}/predict`, { texts: [text] })
      expect(res.status, JSON.stringify(res.body)).to.equal(200)
      const [p] = (res.body as { predictions: Array<{ prediction: string, confidence: number }> }).predictions
      return [p!.prediction, p!.confidence] as [string, number]
    }))
  }

  async function waitFor (check: () => boolean, ms = 20000): Promise<void> {
    const until = Date.now() + ms
    while (!check()) {
      if (Date.now() > until) throw new Error('condition not met in time')
      await new Promise(resolve => setTimeout(resolve, 20))
    }
  }

  it('runs the edited functions module in every worker after a reload, and a replaced worker runs its version\'s module even after the file changed again', async () => {
    const positive = lines.filter(l => l.label === 'positive' && l.functions['__main__.clean_text'] !== '')
    const negative = lines.filter(l => l.label === 'negative' && l.functions['__main__.clean_text'] !== '')
    const pos = positive[0]!
    const neg = negative[0]!
    const module = path.join(root, 'reloadfn', 'functions.mjs')
    // The app's own answers, from the module as shipped.
    const [asPositive] = await answers('reloadfn', [pos.text])
    const [asNegative] = await answers('reloadfn', [neg.text])
    expect([asPositive![0], asNegative![0]]).to.deep.equal(['positive', 'negative'])
    const negatives = Array.from({ length: 12 }, (_, i) => negative[i % 6]!.text)
    expect((await answers('reloadfn', negatives)).map(a => a[0])).to.deep.equal(negatives.map(() => 'negative'))

    // Version 2: every text cleans to the positive text's cleaning.
    writeFileSync(module, constantModule(pos.functions['__main__.clean_text']!))
    expect(await post('/v2/repository/models/reloadfn/load')).to.deep.equal({ status: 200, body: {} })
    expect(await answers('reloadfn', negatives)).to.deep.equal(negatives.map(() => asPositive))

    // The file changes again, not reloaded; both workers are replaced (two requests at once,
    // each keeps a worker busy, then ends it).
    writeFileSync(module, constantModule(neg.functions['__main__.clean_text']!))
    const restarts = pool.workerRestarts
    const crashed = await Promise.all([0, 1].map(async () => await post('/models/reloadfn/predict', { texts: ['__sleep_300__', '__crash__'] })))
    expect(crashed.map(r => r.status)).to.deep.equal([500, 500])
    await waitFor(() => pool.workerRestarts >= restarts + 2 && pool.workerCount === 2).catch(err => { throw new Error(`${String(err)}: ${pool.workerRestarts - restarts} restarts, ${pool.workerCount} workers`) })
    expect(await answers('reloadfn', negatives)).to.deep.equal(negatives.map(() => asPositive))

    // A reload serves the file as it is now.
    expect(await post('/v2/repository/models/reloadfn/load')).to.deep.equal({ status: 200, body: {} })
    const positives = Array.from({ length: 12 }, (_, i) => positive[i % 6]!.text)
    expect(await answers('reloadfn', positives)).to.deep.equal(positives.map(() => asNegative))
  })

  it('answers each of 20 loads racing 20 unloads with what that load did: 200, never "failed to load: "', async () => {
    const loadedBefore = repository.eventCounts().find(c => c.model === 'other' && c.event === 'loaded')?.count ?? 0
    const calls = Array.from({ length: 40 }, (_, i) => i % 2 === 0 ? 'load' : 'unload')
    const results = await Promise.all(calls.map(async call => await post(`/v2/repository/models/other/${call}`)))
    const failed = results.map((r, i) => ({ call: calls[i], ...r })).filter(r => r.status !== 200)
    expect(failed).to.deep.equal([])
    expect(results.every(r => JSON.stringify(r.body) === '{}')).to.equal(true)
    // Every load did load.
    expect(repository.eventCounts().find(c => c.model === 'other' && c.event === 'loaded')?.count).to.equal(loadedBefore + 20)
    // And the model serves once loaded again.
    expect(await post('/v2/repository/models/other/load')).to.deep.equal({ status: 200, body: {} })
    const app = readFileSync(path.join(APPS, 'label-map', 'expected.jsonl'), 'utf8').split('\n').filter(l => l !== '').slice(0, 4).map(l => JSON.parse(l) as { text: string, label: string })
    expect((await answers('other', app.map(l => l.text))).map(a => a[0])).to.deep.equal(app.map(l => l.label.toLowerCase()))
  })
})
