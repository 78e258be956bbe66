/**
 * Serving a compiled file wherever a model file goes: `--model FILE` for every CLI verb,
 * `"model": FILE` in model-settings.json and in a repository folder; `tfidf-serve compile`
 * writes it; a damaged one is refused in one line (exit 1 at the CLI, UNAVAILABLE with the
 * reason in a repository). A model made with a functions module is served with settings that
 * name the same module, since a compiled file carries no code.
 */
import { expect } from 'chai'
import { copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import request from 'supertest'
import { parseConfig } from '../../src/config.js'
import { createApp } from '../../src/http/app.js'
import { createLogger } from '../../src/logger.js'
import type { ClassifierPool } from '../../src/pool/classifier-pool.js'
import { openRepository } from '../../src/repository/open.js'
import { runCli } from '../helpers/cli.js'
import { readyPort, start } from '../helpers/processes.js'
import { DEFAULT_PATHS, readBytes, tempDir, writeBytes } from '../helpers/compiled-files.js'
import { FIXTURES } from '../helpers/paths.js'

const TEXTS = 'a fine film, truly great\nawful awful awful\n\nwin free money now\nÜnïcödé ǅ 😀\n'

describe('serving compiled models', function () {
  this.timeout(120_000)
  const dir = tempDir('tfsc-serve-')
  const compiled = path.join(dir, 'default.tfsc')
  after(() => rmSync(dir, { recursive: true, force: true }))

  before(async () => {
    const run = await runCli(['compile', '--out', compiled])
    expect(run.stderr).to.equal('')
    expect(run.code).to.equal(0)
    const report = JSON.parse(run.stdout) as { out: string, bytes: number, seconds: number, product: string, sources: Array<{ role: string, file: string, sha256: string }> }
    expect(report.out).to.equal(compiled)
    expect(report.bytes).to.equal(readBytes(compiled).length)
    expect(report.sources.map(s => [s.role, s.file])).to.deep.equal([['model', DEFAULT_PATHS.model], ['vectorizer', DEFAULT_PATHS.vectorizers[0]]])
    expect(report.product).to.match(/^tfidf-serve \d+\.\d+\.\d+/)
  })

  it('predicts, explains and inspects from the compiled file exactly as from the pickles', async () => {
    for (const verb of [['predict', '--workers', '2'], ['explain', '--top-k', '3'], ['inspect']]) {
      const fromPickles = await runCli([...verb], TEXTS)
      const fromCompiled = await runCli([...verb, '--model', compiled], TEXTS)
      expect(fromCompiled.code, verb[0]).to.equal(0)
      expect(fromCompiled.stdout, verb[0]).to.equal(fromPickles.stdout)
    }
  })

  it('refuses a damaged compiled file in one line with exit 1, at every verb', async () => {
    const bytes = readBytes(compiled)
    bytes[bytes.length - 1]! ^= 1
    const damaged = writeBytes(path.join(dir, 'damaged.tfsc'), bytes)
    for (const verb of [['predict'], ['explain'], ['inspect']]) {
      const run = await runCli([...verb, '--model', damaged], TEXTS)
      expect(run.code, verb[0]).to.equal(1)
      expect(run.stderr, verb[0]).to.equal(`tfidf-serve: damaged compiled model: the checksum does not match the contents in ${damaged}\n`)
    }
  })

  it('refuses label names given at serve time, and compiling a compiled file', async () => {
    const labels = path.join(dir, 'labels.json')
    writeFileSync(labels, '{"negative": "bad", "positive": "good"}')
    const run = await runCli(['inspect', '--model', compiled, '--labels', labels])
    expect(run.code).to.equal(1)
    expect(run.stderr).to.match(/carries the label names it was compiled with/)
    const again = await runCli(['compile', '--model', compiled, '--out', path.join(dir, 'again.tfsc')])
    expect(again.code).to.equal(1)
    expect(again.stderr).to.match(/compiled already/)
  })

  it('serves a model made with a functions module only beside settings naming that same module', async () => {
    const app = path.join(dir, 'app')
    cpSync(path.join(FIXTURES, 'apps', '1.9.1', 'analyzer-main'), app, { recursive: true })
    const out = path.join(app, 'model.tfsc')
    const settings = path.join(app, 'model-settings.json')
    const compile = await runCli(['compile', '--settings', settings, '--out', out])
    expect(compile.stderr).to.equal('')
    const texts = readFileSync(path.join(app, 'expected.jsonl'), 'utf8').split('\n').filter(l => l !== '').slice(0, 20).map(l => (JSON.parse(l) as { text: string }).text.replace(/\n/g, ' ')).join('\n') + '\n'
    const fromPickles = await runCli(['predict', '--settings', settings], texts)
    const fromCompiled = await runCli(['predict', '--model', out], texts)
    expect(fromCompiled.stderr).to.equal('')
    expect(fromCompiled.stdout).to.equal(fromPickles.stdout)
    const verified = await runCli(['verify', '--model', out, path.join(app, 'expected.jsonl')])
    expect(verified.stderr).to.equal('')
    expect(verified.code).to.equal(0)
    // Away from its settings, the model has no functions module to run: refused, not imported from the file.
    const alone = path.join(dir, 'alone.tfsc')
    copyFileSync(out, alone)
    const refused = await runCli(['predict', '--model', alone], texts)
    expect(refused.code).to.equal(1)
    expect(refused.stderr).to.match(/^tfidf-serve: the compiled model was made with the functions module functions\.mjs, and a compiled file carries no code: serve it with settings that name that module \("functions"\) in .*alone\.tfsc\n$/)
    // A changed module is not the one it was compiled with.
    writeFileSync(path.join(app, 'functions.mjs'), readFileSync(path.join(app, 'functions.mjs'), 'utf8') + '\n// changed\n')
    const changed = await runCli(['predict', '--model', out], texts)
    expect(changed.code).to.equal(1)
    expect(changed.stderr).to.match(/is not the one the model was compiled with/)
  })

  // The service's first model, when compiled, loads in the front thread (no decoding thread):
  // the same ready line, answers and refusals as a start from the pickles.
  it('starts the service from a compiled file as from the pickles: the same ready line and answers; a damaged one stops it in one line', async () => {
    const texts = TEXTS.split('\n').filter(t => t !== '')
    const serve = async (env: Record<string, string>): Promise<{ ready: Record<string, unknown>, body: unknown }> => {
      const run = start({ CACHE_SIZE: '0', ...env })
      try {
        const port = await readyPort(run)
        const ready = JSON.parse(run.stdout().split('\n').find(l => l.includes('"msg":"ready"'))!) as Record<string, unknown>
        const res = await fetch(`http://127.0.0.1:${port}/v2/models/default/infer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ inputs: [{ name: 'text', shape: [texts.length], datatype: 'BYTES', data: texts }], parameters: { probabilities: true } }) })
        expect(res.status).to.equal(200)
        return { ready, body: await res.json() }
      } finally {
        run.child.kill('SIGTERM')
        expect(await run.exit).to.equal(0)
      }
    }
    const fromPickles = await serve({})
    const fromCompiled = await serve({ MODEL_PATH: compiled, VECTORIZER_PATH: '' })
    expect(fromCompiled.body).to.deep.equal(fromPickles.body)
    const same = ['classifier', 'vectorizer', 'steps', 'classes', 'features', 'confidence', 'sklearn_versions', 'explainable', 'workers', 'shared_model_bytes']
    for (const key of same) expect(fromCompiled.ready[key], key).to.deep.equal(fromPickles.ready[key])
    const damaged = path.join(dir, 'damaged-start.tfsc')
    const bytes = readBytes(compiled)
    writeBytes(damaged, bytes.subarray(0, bytes.length - 8))
    const refused = start({ MODEL_PATH: damaged, VECTORIZER_PATH: '' })
    expect(await refused.exit).to.equal(1)
    expect(refused.stderr()).to.match(/^tfidf-serve: damaged compiled model: the parts add up to \d+ bytes but the file has \d+ in .*damaged-start\.tfsc\n$/)
  })

  it('starts the service from a compiled file made with a functions module, beside settings naming it', async () => {
    const app = path.join(dir, 'app-service')
    cpSync(path.join(FIXTURES, 'apps', '1.9.1', 'analyzer-main'), app, { recursive: true })
    const settings = path.join(app, 'model-settings.json')
    const fromPickles = await runCli(['predict', '--settings', settings], TEXTS)
    const out = path.join(app, 'model.tfsc')
    expect((await runCli(['compile', '--settings', settings, '--out', out])).stderr).to.equal('')
    const parsed = JSON.parse(readFileSync(settings, 'utf8')) as { parameters?: { extra?: { tfidf_serve?: Record<string, unknown> } } }
    const tfidfServe: Record<string, unknown> = { ...parsed.parameters?.extra?.tfidf_serve, model: 'model.tfsc' }
    delete tfidfServe.vectorizer
    writeFileSync(settings, JSON.stringify({ ...parsed, parameters: { ...parsed.parameters, extra: { ...parsed.parameters?.extra, tfidf_serve: tfidfServe } } }))
    const run = start({ MODEL_SETTINGS: settings, MODEL_PATH: '', VECTORIZER_PATH: '', CACHE_SIZE: '0' })
    try {
      const port = await readyPort(run)
      const texts = TEXTS.split('\n').filter(t => t !== '')
      const res = await fetch(`http://127.0.0.1:${port}/predict`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ texts }) })
      expect(res.status).to.equal(200)
      const served = ((await res.json()) as { predictions: Array<{ sentiment: string }> }).predictions.map(p => p.sentiment)
      const expected = fromPickles.stdout.split('\n').filter(l => l !== '').map(l => (JSON.parse(l) as { prediction: string }).prediction)
      expect(served).to.deep.equal(expected.slice(0, served.length))
    } finally {
      run.child.kill('SIGTERM')
      expect(await run.exit).to.equal(0)
    }
  })

  describe('in a repository', () => {
    let pool: ClassifierPool
    let app: ReturnType<typeof createApp>
    const root = path.join(dir, 'repository')
    before(async () => {
      for (const name of ['compiled', 'damaged', 'pickles']) mkdirSync(path.join(root, name), { recursive: true })
      copyFileSync(compiled, path.join(root, 'compiled', 'model.tfsc'))
      writeFileSync(path.join(root, 'compiled', 'model-settings.json'), JSON.stringify({ parameters: { extra: { tfidf_serve: { model: 'model.tfsc' } } } }))
      const bytes = readBytes(compiled)
      writeBytes(path.join(root, 'damaged', 'model.tfsc'), bytes.subarray(0, bytes.length - 8))
      writeFileSync(path.join(root, 'damaged', 'model-settings.json'), JSON.stringify({ parameters: { extra: { tfidf_serve: { model: 'model.tfsc' } } } }))
      for (const f of [DEFAULT_PATHS.model, DEFAULT_PATHS.vectorizers[0]!]) copyFileSync(f, path.join(root, 'pickles', path.basename(f)))
      const config = parseConfig({ MODEL_REPOSITORY: root, DEFAULT_MODEL: 'compiled', WORKERS: '2', CACHE_SIZE: '0', LOG_LEVEL: 'silent' })
      ;({ pool } = await openRepository(config).then(r => { app = createApp({ config, pool: r.pool, repository: r.repository, logger: createLogger('silent') }); return r }))
    })
    after(async () => { await pool?.close() })

    it('serves a folder whose settings name a compiled file, and marks a damaged one UNAVAILABLE with its reason', async () => {
      const body = (await request(app).get('/models').expect(200)).body as { models: Array<{ name: string, state: string, reason: string }> }
      expect(body.models.map(m => [m.name, m.state])).to.deep.equal([['compiled', 'READY'], ['damaged', 'UNAVAILABLE'], ['pickles', 'READY']])
      expect(body.models[1]!.reason).to.match(/^damaged compiled model: the parts add up to \d+ bytes but the file has \d+ in .*damaged[/\\]model\.tfsc$/)
      const texts = TEXTS.split('\n').filter(t => t !== '')
      const a = (await request(app).post('/models/compiled/predict').send({ texts }).expect(200)).body as { predictions: Array<{ prediction: string, confidence: number }> }
      const b = (await request(app).post('/models/pickles/predict').send({ texts }).expect(200)).body as { predictions: Array<{ prediction: string, confidence: number }> }
      expect(a.predictions.map(p => [p.prediction, p.confidence])).to.deep.equal(b.predictions.map(p => [p.prediction, p.confidence]))
    })
  })
})
