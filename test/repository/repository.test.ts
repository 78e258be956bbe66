/**
 * A model repository served for real: folders of fixture models (files directly, numbered
 * versions, MLServer's layout, a hostile file), the spec's routes under /models/{name}, the
 * Open Inference Protocol V2 over REST (JSON and binary tensors, byte for byte), the
 * repository extension, and reloads while requests run (none lost, each answered by the
 * version it names).
 */
import { expect } from 'chai'
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import request from 'supertest'
import { parseConfig } from '../../src/config.js'
import { createApp } from '../../src/http/app.js'
import { createLogger } from '../../src/logger.js'
import type { ClassifierPool } from '../../src/pool/classifier-pool.js'
import { writeBinaryStrings } from '../../src/protocol/v2/infer.js'
import { openRepository } from '../../src/repository/open.js'
import type { ModelRepository } from '../../src/repository/model-repository.js'
import { FIXTURES, ROOT } from '../helpers/paths.js'

const APPS = path.join(FIXTURES, 'apps', '1.2.1')
interface Line { text: string, label: string, proba?: number[] }
const expected = (app: string): Line[] => readFileSync(path.join(APPS, app, 'expected.jsonl'), 'utf8').split('\n').filter(l => l !== '').map(l => JSON.parse(l) as Line)
const display = (label: string): string => label.toLowerCase().replace(/\s+/g, '_')

/** A repository folder: spam (sms-porter, files and settings), sentiment (versions 1 and 2), mlserver (MLServer's layout), hostile. */
function makeRepository (): string {
  const root = mkdtempSync(path.join(tmpdir(), 'tfidf-repo-'))
  cpSync(path.join(APPS, 'sms-porter'), path.join(root, 'spam'), { recursive: true })
  // The settings name it sms-porter; the folder's name serves when the settings give none.
  const settings = JSON.parse(readFileSync(path.join(root, 'spam', 'model-settings.json'), 'utf8')) as { name?: string }
  delete settings.name
  writeFileSync(path.join(root, 'spam', 'model-settings.json'), JSON.stringify(settings))
  mkdirSync(path.join(root, 'sentiment', '1'), { recursive: true })
  for (const f of ['final_best_model.pkl', 'tfidf_vectorizer.pkl']) copyFileSync(path.join(ROOT, 'models', f), path.join(root, 'sentiment', '1', f))
  mkdirSync(path.join(root, 'mlserver'))
  copyFileSync(path.join(APPS, 'label-map', 'pipeline.joblib'), path.join(root, 'mlserver', 'model.joblib'))
  writeFileSync(path.join(root, 'mlserver', 'model-settings.json'), JSON.stringify({ name: 'mlserver', implementation: 'mlserver_sklearn.SKLearnModel', parameters: { uri: './model.joblib', version: 'v1', extra: { tfidf_serve: { labels: { 0: 'negative', 1: 'positive' } } } } }))
  mkdirSync(path.join(root, 'hostile'))
  copyFileSync(path.join(FIXTURES, 'hostile', 'self-list.pkl'), path.join(root, 'hostile', 'model.pkl'))
  return root
}

describe('a model repository', function () {
  this.timeout(120000)
  let root: string
  let pool: ClassifierPool
  let repository: ModelRepository
  let app: ReturnType<typeof createApp>

  before(async () => {
    root = makeRepository()
    const config = parseConfig({ MODEL_REPOSITORY: root, DEFAULT_MODEL: 'spam', WORKERS: '2', CACHE_SIZE: '0', LOG_LEVEL: 'silent' })
    ;({ pool, repository } = await openRepository(config))
    app = createApp({ config, pool, repository, logger: createLogger('silent') })
  })
  after(async () => {
    await pool.close()
    rmSync(root, { recursive: true, force: true })
  })

  it('lists every model with its state; the hostile one is UNAVAILABLE with its one-line reason and the others serve', async () => {
    const body = (await request(app).get('/models').expect(200)).body as { default: string, models: Array<{ name: string, state: string, reason: string, version: string | null, versions: string[], classes: string[] | null }> }
    expect(body.default).to.equal('spam')
    expect(body.models.map(m => [m.name, m.state, m.version])).to.deep.equal([['hostile', 'UNAVAILABLE', null], ['mlserver', 'READY', 'v1'], ['sentiment', 'READY', '1'], ['spam', 'READY', '1']])
    expect(body.models[0]!.reason).to.match(/^a list of 1 item contains itself in .*model\.pkl$/)
    expect(body.models[1]!.classes).to.deep.equal(['negative', 'positive'])
  })

  it('serves the default model on the spec routes and any model under /models/{name}, as its app answered', async () => {
    const lines = expected('sms-porter').slice(0, 30)
    const spec = (await request(app).post('/predict').send({ texts: lines.map(l => l.text) }).expect(200)).body as { predictions: Array<{ prediction: string, confidence: number }> }
    expect(spec.predictions.map(p => p.prediction)).to.deep.equal(lines.map(l => display(l.label)))
    const named = (await request(app).post('/models/spam/batch_predict').send({ texts: lines.map(l => l.text) }).expect(200)).body as { predictions: Array<{ prediction: string, confidence: number }> }
    expect(named.predictions.map(p => [p.prediction, p.confidence])).to.deep.equal(spec.predictions.map(p => [p.prediction, p.confidence]))
    const ml = expected('label-map').slice(0, 20)
    const mlserver = (await request(app).post('/models/mlserver/predict').send({ texts: ml.map(l => l.text) }).expect(200)).body as { predictions: Array<{ prediction: string }> }
    expect(mlserver.predictions.map(p => p.prediction)).to.deep.equal(ml.map(l => display(l.label)))
    expect((await request(app).post('/models/nope/predict').send({ text: 'x' }).expect(404)).body).to.deep.equal({ detail: 'no model named "nope" (models: hostile, mlserver, sentiment, spam)' })
    expect((await request(app).post('/models/hostile/predict').send({ text: 'x' }).expect(503)).body.detail).to.match(/^model hostile is UNAVAILABLE: a list of 1 item contains itself/)
  })

  context('the Open Inference Protocol V2', () => {
    it('answers health, server metadata with the extensions it implements, model metadata and readiness', async () => {
      expect((await request(app).get('/v2/health/live').expect(200).expect('content-type', 'application/json')).body).to.deep.equal({ live: true })
      expect((await request(app).get('/v2/health/ready').expect(200)).body).to.deep.equal({ ready: true })
      expect((await request(app).get('/v2').expect(200)).body).to.deep.equal({ name: 'tfidf-serve', version: '1.0.0', extensions: ['model_repository', 'binary_tensor_data', 'classification'] })
      const meta = (await request(app).get('/v2/models/spam').expect(200)).body as Record<string, unknown>
      expect(meta).to.deep.include({ name: 'spam', versions: ['1'], platform: 'sklearn', inputs: [{ name: 'text', datatype: 'BYTES', shape: [-1] }], classes: ['ham', 'spam'] })
      expect((meta.outputs as Array<{ name: string }>).map(o => o.name)).to.deep.equal(['predict', 'predict_proba', 'decision_function', 'confidence'])
      expect((await request(app).get('/v2/models/spam/versions/1/ready').expect(200)).body).to.deep.equal({ name: 'spam', ready: true })
      expect((await request(app).get('/v2/models/hostile/ready').expect(503)).body).to.deep.equal({ name: 'hostile', ready: false })
      const missing = await request(app).get('/v2/models/nope').expect(404)
      expect(missing.headers['content-type']).to.equal('application/json')
      expect(missing.body).to.deep.equal({ error: 'no model named "nope" (models: hostile, mlserver, sentiment, spam)' })
    })

    it('infers from JSON, [N] or [N, 1], flat or nested, with no Content-Type, the same as /predict', async () => {
      const lines = expected('sms-porter').slice(0, 12)
      const texts = lines.map(l => l.text)
      for (const [shape, data] of [[[12], texts], [[12, 1], texts.map(t => [t])], [[12, 1], texts]] as const) {
        const res = await request(app).post('/v2/models/spam/infer').set('content-type', '').send(JSON.stringify({ id: 'r1', inputs: [{ name: 'text', shape, datatype: 'BYTES', data }] })).expect(200)
        const body = JSON.parse(res.text) as { model_name: string, model_version: string, id: string, outputs: Array<{ name: string, datatype: string, shape: number[], data: unknown[] }> }
        expect([body.model_name, body.model_version, body.id]).to.deep.equal(['spam', '1', 'r1'])
        const byName = Object.fromEntries(body.outputs.map(o => [o.name, o]))
        expect(byName.predict!.data).to.deep.equal(lines.map(l => l.label))
        expect(byName.predict_proba!.shape).to.deep.equal([12, 2])
        ;(byName.predict_proba!.data as number[]).forEach((p, i) => expect(Math.abs(p - lines[Math.floor(i / 2)]!.proba![i % 2]!)).to.be.at.most(1e-9))
      }
    })

    it('reads and writes the binary tensor extension byte for byte, and picks outputs by name with classification', async () => {
      const texts = ['free entry: win a prize now', 'see you at lunch, café?']
      const tensor = writeBinaryStrings(texts)
      // As the extension defines it: a 4-byte little-endian length, then the UTF-8 bytes.
      expect(tensor).to.deep.equal(Buffer.concat(texts.flatMap(t => { const b = Buffer.from(t); const n = Buffer.alloc(4); n.writeUInt32LE(b.length); return [n, b] })))
      const header = Buffer.from(JSON.stringify({ inputs: [{ name: 'text', shape: [2], datatype: 'BYTES', parameters: { binary_data_size: tensor.length } }], outputs: [{ name: 'predict', parameters: { binary_data: true } }, { name: 'predict_proba', parameters: { binary_data: true } }, { name: 'predict_proba', parameters: { classification: 1 } }] }))
      const res = await request(app).post('/v2/models/spam/infer').set('inference-header-content-length', String(header.length)).set('content-type', 'application/octet-stream').send(Buffer.concat([header, tensor])).buffer(true).parse((r, cb) => { const chunks: Buffer[] = []; r.on('data', (c: Buffer) => chunks.push(c)); r.on('end', () => cb(null, Buffer.concat(chunks))) }).expect(200)
      expect(res.headers['content-type']).to.equal('application/octet-stream')
      const body = res.body as Buffer
      const n = Number(res.headers['inference-header-content-length'])
      const json = JSON.parse(body.subarray(0, n).toString()) as { outputs: Array<{ name: string, shape: number[], parameters?: { binary_data_size: number }, data?: string[] }> }
      const [predict, proba, top] = json.outputs
      const labels = body.subarray(n, n + predict!.parameters!.binary_data_size)
      const probs = body.subarray(n + predict!.parameters!.binary_data_size)
      expect(labels).to.deep.equal(writeBinaryStrings(['spam', 'ham']))
      expect(probs.length).to.equal(proba!.parameters!.binary_data_size)
      const fromJson = JSON.parse((await request(app).post('/v2/models/spam/infer').send({ inputs: [{ name: 'text', shape: [2], datatype: 'BYTES', data: texts }], outputs: [{ name: 'predict_proba' }] }).expect(200)).text) as { outputs: Array<{ data: number[] }> }
      expect(Array.from({ length: 4 }, (_, i) => probs.readDoubleLE(i * 8))).to.deep.equal(fromJson.outputs[0]!.data)
      expect(top!.shape).to.deep.equal([2, 1])
      expect(top!.data!.map(s => s.split(':').slice(1).join(':'))).to.deep.equal(['1:spam', '0:ham'])
    })

    it('refuses bad input with 400 {error}, under exactly application/json', async () => {
      const cases: Array<[unknown, RegExp]> = [
        [{ inputs: [{ name: 'text', shape: [1], datatype: 'FP32', data: [1] }] }, /datatype must be BYTES/],
        [{ inputs: [{ name: 'text', shape: [2], datatype: 'BYTES', data: ['one'] }] }, /holds 1 texts, not the 2 its shape says/],
        [{ inputs: [{ name: 'text', shape: [1], datatype: 'BYTES', data: [''] }] }, /text 0 is empty/],
        [{ inputs: [{ name: 'text', shape: [1], datatype: 'BYTES', data: ['x'] }], outputs: [{ name: 'transform' }] }, /unknown output 'transform'/],
        [{ inputs: [{ name: 'text', shape: [51], datatype: 'BYTES', data: new Array(51).fill('x') }] }, /at most 50 per request/]
      ]
      for (const [body, error] of cases) {
        const res = await request(app).post('/v2/models/spam/infer').send(body as object).expect(400)
        expect(res.headers['content-type']).to.equal('application/json')
        expect((res.body as { error: string }).error).to.match(error)
      }
    })
  })

  context('the repository extension and reloads', () => {
    it('indexes, unloads (503 after) and loads a model again', async () => {
      const index = (await request(app).post('/v2/repository/index').set('content-type', '').send('').expect(200)).body as Array<{ name: string, state: string }>
      expect(index.map(e => [e.name, e.state])).to.deep.equal([['hostile', 'UNAVAILABLE'], ['mlserver', 'READY'], ['sentiment', 'READY'], ['spam', 'READY']])
      expect((await request(app).post('/v2/repository/models/mlserver/unload').expect(200)).body).to.deep.equal({})
      expect((await request(app).get('/v2/models/mlserver/ready').expect(503)).body).to.deep.equal({ name: 'mlserver', ready: false })
      expect((await request(app).post('/v2/models/mlserver/infer').send({ inputs: [{ name: 'text', shape: [1], datatype: 'BYTES', data: ['x'] }] }).expect(503)).body.error).to.match(/UNAVAILABLE: unloaded/)
      await request(app).post('/v2/repository/models/mlserver/load').expect(200)
      expect((await request(app).get('/v2/models/mlserver/ready').expect(200)).body).to.deep.equal({ name: 'mlserver', ready: true })
      expect((await request(app).post('/v2/repository/models/nope/load').expect(404)).body).to.deep.equal({ error: 'no model named "nope" in the repository (models: hostile, mlserver, sentiment, spam)' })
    })

    it('keeps the old version serving when a new one fails to load, and says why', async () => {
      mkdirSync(path.join(root, 'sentiment', '5'))
      copyFileSync(path.join(FIXTURES, 'hostile', 'deep-list.pkl'), path.join(root, 'sentiment', '5', 'model.pkl'))
      const res = await request(app).post('/v2/repository/models/sentiment/load').expect(503)
      expect((res.body as { error: string }).error).to.match(/^model sentiment failed to load: values nested more than 100 deep/)
      const entry = repository.entry('sentiment')!
      expect([entry.state, entry.served?.version]).to.deep.equal(['READY', '1'])
      await request(app).post('/models/sentiment/predict').send({ text: 'a wonderful film' }).expect(200)
      rmSync(path.join(root, 'sentiment', '5'), { recursive: true })
    })

    it('reloads to a new version while 8 clients send requests: none fails, each answer is right for the version that gave it', async () => {
      const texts = expected('label-map').slice(0, 10).map(l => l.text)
      // Version 1 is the default rt-polarity model; version 2 the label-map app (same corpus, other labels' source).
      const v1 = (JSON.parse((await request(app).post('/v2/models/sentiment/infer').send({ inputs: [{ name: 'text', shape: [10], datatype: 'BYTES', data: texts }], outputs: [{ name: 'predict_proba' }] })).text) as { outputs: Array<{ data: number[] }> }).outputs[0]!.data
      mkdirSync(path.join(root, 'sentiment', '2'))
      copyFileSync(path.join(APPS, 'label-map', 'pipeline.joblib'), path.join(root, 'sentiment', '2', 'pipeline.joblib'))
      writeFileSync(path.join(root, 'sentiment', '2', 'model-settings.json'), JSON.stringify({ parameters: { extra: { tfidf_serve: { labels: { 0: 'negative', 1: 'positive' } } } } }))
      const v2Expected = expected('label-map').slice(0, 10)
      const seen: Record<string, number> = {}
      let failures = 0
      let wrong = 0
      let running = true
      const client = async (): Promise<void> => {
        while (running) {
          const res = await request(app).post('/v2/models/sentiment/infer').send({ inputs: [{ name: 'text', shape: [10], datatype: 'BYTES', data: texts }], outputs: [{ name: 'predict_proba' }] })
          if (res.status !== 200) { failures++; continue }
          const body = JSON.parse(res.text) as { model_version: string, outputs: Array<{ data: number[] }> }
          seen[body.model_version] = (seen[body.model_version] ?? 0) + 1
          const want = body.model_version === '1' ? v1 : v2Expected.flatMap(l => l.proba!)
          if (body.outputs[0]!.data.some((p, i) => Math.abs(p - want[i]!) > 1e-9)) wrong++
        }
      }
      const clients = Array.from({ length: 8 }, client)
      await new Promise(resolve => setTimeout(resolve, 300))
      await request(app).post('/v2/repository/models/sentiment/load').expect(200)
      await new Promise(resolve => setTimeout(resolve, 300))
      running = false
      await Promise.all(clients)
      expect({ failures, wrong }).to.deep.equal({ failures: 0, wrong: 0 })
      expect(Object.keys(seen).sort()).to.deep.equal(['1', '2'])
      expect(repository.entry('sentiment')!.served!.version).to.equal('2')
    })
  })
})
