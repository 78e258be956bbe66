/**
 * Ensembles served for real: the fixture repository of test/fixtures/ensembles (made by
 * make.py with scikit-learn 1.2.1) behind a real HTTP server and a real gRPC server on
 * 127.0.0.1. Each ensemble answers each of 3,111 texts as its app's Python did: labels equal,
 * confidences and probabilities within 1e-9 (V2 REST and gRPC carry them unrounded; the
 * spec's routes round them as DECISIONS.md 17 says); `/explain` shows each member's answer as
 * it gives it alone. Declarations that cannot be served are UNAVAILABLE with their reason.
 * The poem ensembles leave out the 98 texts whose k-NN member has rows at equal distances on
 * either side of its 5th neighbour: which one scikit-learn keeps differs between Python
 * processes (make.py marks them `knn_tie`).
 */
import type { Client } from '@grpc/grpc-js'
import { expect } from 'chai'
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import type http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseConfig } from '../../src/config.js'
import { loadServices } from '../../src/grpc/protos.js'
import { startGrpcServer, type ListeningGrpcServer } from '../../src/grpc/server.js'
import { createApp, createContext } from '../../src/http/app.js'
import { createServer } from '../../src/http/server.js'
import { createLogger } from '../../src/logger.js'
import type { ClassifierPool } from '../../src/pool/classifier-pool.js'
import { readBinaryTexts, writeBinaryStrings } from '../../src/protocol/v2/infer.js'
import { openRepository } from '../../src/repository/open.js'
import type { ModelRepository } from '../../src/repository/model-repository.js'
import { clientOf, unary } from '../helpers/grpc-client.js'
import { FIXTURES } from '../helpers/paths.js'
import { readyPort, start } from '../helpers/processes.js'

const HERE = path.join(FIXTURES, 'ensembles')
const TEXTS = (JSON.parse(readFileSync(path.join(HERE, 'texts.json'), 'utf8')) as { texts: string[] }).texts
interface Member { label: string, confidence: number }
interface Row { label: string, confidence: number, proba?: number[], members: Member[], knn_tie?: boolean }
const expected = (model: string): { ties: number, rows: Row[] } => JSON.parse(readFileSync(path.join(HERE, 'expected', `${model}.json`), 'utf8')) as { ties: number, rows: Row[] }
const ENSEMBLES = ['poem-vote', 'poem-int', 'poem-weighted', 'hybrid', 'mbti'] as const
const display = (label: string): string => label.toLowerCase()
const BATCH = 50
const chunks = (): number[] => Array.from({ length: Math.ceil(TEXTS.length / BATCH) }, (_, i) => i * BATCH)
/** Whether a row is the model's own answer (not one a k-NN tie leaves to the process). */
const decided = (row: Row): boolean => row.knn_tie !== true
const near = (actual: number, wanted: number, what: string): void => { expect(Math.abs(actual - wanted), `${what}: ${actual} against ${wanted}`).to.be.at.most(1e-9) }

const settings = (tfidfServe: object): string => JSON.stringify({ parameters: { extra: { tfidf_serve: tfidfServe } } })

/** The fixture repository, plus folders whose declarations cannot be served. */
function makeRepository (): string {
  const root = mkdtempSync(path.join(tmpdir(), 'tfidf-ensembles-'))
  cpSync(path.join(HERE, 'repository'), root, { recursive: true })
  const folder = (name: string, tfidfServe: object): void => {
    mkdirSync(path.join(root, name))
    writeFileSync(path.join(root, name, 'model-settings.json'), settings(tfidfServe))
  }
  folder('unknown-member', { ensemble: { combine: 'mean', members: [{ model: 'spam-lr' }, { model: 'nope' }] } })
  folder('self', { ensemble: { combine: 'vote', ties: 'first', members: [{ model: 'self' }, { model: 'spam-lr' }] } })
  folder('nested', { ensemble: { combine: 'vote', ties: 'first', members: [{ model: 'hybrid' }, { model: 'spam-lr' }] } })
  folder('mean-classes', { vectorizer: '../poem-vote/tfidf_vectorizer.pkl', ensemble: { combine: 'mean', members: [{ file: '../poem-vote/nb.pkl' }, { model: 'spam-lr' }] } })
  folder('mean-no-proba', { vectorizer: '../mbti/tfidf_vectorizer.pkl', ensemble: { combine: 'mean', members: [{ file: '../mbti/jp.pkl' }, { file: '../mbti/tf.pkl' }] } })
  folder('broken-member', { ensemble: { combine: 'vote', ties: 'first', members: [{ model: 'spam-lr' }, { file: 'bad.pkl' }] } })
  copyFileSync(path.join(FIXTURES, 'hostile', 'self-list.pkl'), path.join(root, 'broken-member', 'bad.pkl'))
  folder('no-ties', { ensemble: { combine: 'vote', members: [{ model: 'spam-lr' }, { model: 'spam-nb' }] } })
  return root
}

interface V2Output { name: string, datatype: string, shape: number[], data: Array<string | number> }
interface OutputTensor { name: string, datatype: string, shape: number[] }
interface InferResponse { model_name: string, outputs: OutputTensor[], raw_output_contents: Buffer[] }

describe('ensembles served through every route', function () {
  this.timeout(300000)
  let root: string
  let pool: ClassifierPool
  let repository: ModelRepository
  let server: http.Server
  let base: string
  let grpc: ListeningGrpcServer
  let inference: Client

  before(async () => {
    root = makeRepository()
    const config = parseConfig({ MODEL_REPOSITORY: root, DEFAULT_MODEL: 'poem-vote', WORKERS: '2', CACHE_SIZE: '0', LOG_LEVEL: 'silent' })
    ;({ pool, repository } = await openRepository(config))
    const context = createContext({ config, pool, repository, logger: createLogger('silent') })
    server = createServer(createApp({ config, pool, context }), config)
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    grpc = await startGrpcServer(context, 0, '127.0.0.1')
    inference = clientOf(loadServices().inference, grpc.port)
  })
  after(async () => {
    inference?.close()
    await grpc?.close()
    await new Promise(resolve => server?.close(resolve))
    await pool?.close()
    rmSync(root, { recursive: true, force: true })
  })

  const post = async (route: string, body: object): Promise<{ status: number, body: Record<string, unknown> }> => {
    const response = await fetch(base + route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    return { status: response.status, body: await response.json() as Record<string, unknown> }
  }
  const get = async (route: string): Promise<Record<string, unknown>> => await (await fetch(base + route)).json() as Record<string, unknown>

  it('lists each ensemble READY with its classes, and each declaration that cannot be served UNAVAILABLE with its one-line reason', async () => {
    const body = await get('/models') as { models: Array<{ name: string, state: string, reason: string, classes: string[] | null }> }
    const by = new Map(body.models.map(m => [m.name, m]))
    for (const name of [...ENSEMBLES, 'spam-lr', 'spam-nb']) expect(by.get(name)?.state, name).to.equal('READY')
    expect(by.get('poem-int')!.classes).to.deep.equal(['negative', 'neutral', 'positive', 'mixed'])
    expect(by.get('mbti')!.classes).to.have.length(16)
    expect(by.get('mbti')!.classes!.slice(0, 2)).to.deep.equal(['enfj', 'enfp'])
    const reason = (name: string): string => by.get(name)!.reason.replaceAll(root, '<root>')
    expect(Object.fromEntries(['unknown-member', 'self', 'nested', 'mean-classes', 'mean-no-proba', 'broken-member', 'no-ties'].map(n => [n, [by.get(n)!.state, reason(n)]]))).to.deep.equal({
      'unknown-member': ['UNAVAILABLE', 'ensemble member nope: no model named "nope" in the repository (broken-member, hybrid, mbti, mean-classes, mean-no-proba, nested, no-ties, poem-int, poem-vote, poem-weighted, self, spam-lr, spam-nb)'],
      self: ['UNAVAILABLE', 'ensemble member self is this ensemble itself'],
      nested: ['UNAVAILABLE', 'ensemble member hybrid: hybrid is itself an ensemble, and an ensemble of ensembles is not served (name its members here instead)'],
      'mean-classes': ['UNAVAILABLE', 'a mean adds the members\' probabilities class by class, so every member needs the same classes in the same order: nb has mixed, negative, neutral, positive, spam-lr has ham, spam in <root>/mean-classes/model-settings.json'],
      'mean-no-proba': ['UNAVAILABLE', 'a mean averages the members\' predict_proba, and member tf (LinearSVC) has none: combine it by "vote" instead in <root>/mean-no-proba/model-settings.json'],
      'broken-member': ['UNAVAILABLE', 'ensemble member bad: a list of 1 item contains itself in <root>/broken-member/bad.pkl'],
      'no-ties': ['UNAVAILABLE', 'invalid model settings: ensemble: a vote must say how a tie is broken: "ties": "first" (the first member\'s vote among the tied, as Counter(votes).most_common(1)) or "lowest" (the first tied class in class order) in <root>/no-ties/model-settings.json']
    })
    const refused = await post('/models/broken-member/predict', { text: 'hello' })
    expect(refused.status).to.equal(503)
    expect(String(refused.body.detail).replaceAll(root, '<root>')).to.equal('model broken-member is UNAVAILABLE: ensemble member bad: a list of 1 item contains itself in <root>/broken-member/bad.pkl')
  })

  it('describes each ensemble: its rule and members as the classifier, its confidence, and the outputs it has (predict_proba for a mean only)', async () => {
    const info = await get('/') as { model_info: { type: string, vectorizer: string, confidence: string } }
    expect(info.model_info).to.deep.include({ type: 'vote(KNeighborsClassifier, MultinomialNB, RandomForestClassifier)', vectorizer: 'TfidfVectorizer', confidence: 'votes' })
    const outputs = async (m: string): Promise<unknown> => ((await get(`/v2/models/${m}`)) as { outputs: Array<{ name: string, shape: number[] }> }).outputs.map(o => [o.name, o.shape])
    expect(await outputs('poem-vote')).to.deep.equal([['predict', [-1]], ['confidence', [-1]]])
    expect(await outputs('hybrid')).to.deep.equal([['predict', [-1]], ['predict_proba', [-1, 2]], ['confidence', [-1]]])
    expect(await outputs('mbti')).to.deep.equal([['predict', [-1]], ['confidence', [-1]]])
    const meta = await get('/v2/models/mbti') as { parameters?: unknown, properties?: unknown }
    expect(JSON.stringify(meta)).to.include('join(LogisticRegression, MultinomialNB, LinearSVC, LogisticRegression)')
  })

  for (const name of ENSEMBLES) {
    it(`${name}: V2 REST answers each of the 3,111 texts as the app did (labels equal, confidence${name === 'hybrid' ? ' and probabilities' : ''} within 1e-9)`, async () => {
      const { rows, ties } = expected(name)
      expect(rows.length).to.equal(TEXTS.length)
      expect(rows.filter(r => !decided(r)).length).to.equal(name.startsWith('poem') ? 98 : 0)
      if (name.startsWith('poem')) expect(ties, 'texts whose vote ties').to.be.at.least(20)
      for (const at of chunks()) {
        const texts = TEXTS.slice(at, at + BATCH)
        const outputs = name === 'hybrid' ? [{ name: 'predict' }, { name: 'confidence' }, { name: 'predict_proba' }] : [{ name: 'predict' }, { name: 'confidence' }]
        const { status, body } = await post(`/v2/models/${name}/infer`, { inputs: [{ name: 'text', shape: [texts.length], datatype: 'BYTES', data: texts }], outputs })
        expect(status, JSON.stringify(body)).to.equal(200)
        const out = Object.fromEntries((body.outputs as V2Output[]).map(o => [o.name, o.data]))
        texts.forEach((_, i) => {
          const row = rows[at + i]!
          if (!decided(row)) return
          expect(out.predict![i], `text ${at + i}`).to.equal(display(row.label))
          near(out.confidence![i] as number, row.confidence, `confidence of text ${at + i}`)
          if (row.proba !== undefined) row.proba.forEach((p, j) => { near(out.predict_proba![i * row.proba!.length + j] as number, p, `predict_proba of text ${at + i}`) })
        })
      }
    })
  }

  it('answers the spec\'s routes as the apps did: /predict (the default model, a vote), /models/{m}/batch_predict for every ensemble (confidence rounded as DECISIONS.md 17 says)', async () => {
    const vote = expected('poem-vote').rows
    const tie = vote.findIndex(r => decided(r) && new Set(r.members.map(m => m.label)).size === 3)
    const single = await post('/predict', { text: TEXTS[tie] })
    expect(single.body).to.deep.include({ sentiment: display(vote[tie]!.label), confidence: Math.round(vote[tie]!.confidence * 1e4) / 1e4 })
    for (const name of ENSEMBLES) {
      const { rows } = expected(name)
      for (const at of chunks()) {
        const texts = TEXTS.slice(at, at + BATCH)
        const { body } = await post(`/models/${name}/batch_predict`, { texts })
        const predictions = body.predictions as Array<{ prediction: string, confidence: number }>
        const kept = rows.slice(at, at + BATCH).map((r, i) => [r, i] as const).filter(([r]) => decided(r))
        expect(kept.map(([, i]) => predictions[i]!.prediction), `${name} at ${at}`).to.deep.equal(kept.map(([r]) => display(r.label)))
        expect(kept.map(([, i]) => predictions[i]!.confidence), `${name} at ${at}`).to.deep.equal(kept.map(([r]) => Math.round(r.confidence * 100) / 100))
      }
    }
  })

  it('answers gRPC ModelInfer (texts in raw_input_contents) as the apps did, within 1e-9, predict_proba included for the mean', async () => {
    for (const name of ['hybrid', 'mbti', 'poem-weighted']) {
      const { rows } = expected(name)
      for (const at of chunks()) {
        const texts = TEXTS.slice(at, at + BATCH)
        const response = await unary<InferResponse>(inference, 'ModelInfer', { model_name: name, inputs: [{ name: 'text', datatype: 'BYTES', shape: [texts.length, 1] }], raw_input_contents: [writeBinaryStrings(texts)] })
        const values = Object.fromEntries(response.outputs.map((o, k) => {
          const raw = response.raw_output_contents[k]!
          return [o.name, o.datatype === 'BYTES' ? readBinaryTexts(raw, texts.length) : Array.from({ length: raw.length / 8 }, (_, j) => raw.readDoubleLE(j * 8))]
        }))
        expect(Object.keys(values)).to.deep.equal(name === 'hybrid' ? ['predict', 'predict_proba', 'confidence'] : ['predict', 'confidence'])
        texts.forEach((_, i) => {
          const row = rows[at + i]!
          if (!decided(row)) return
          expect(values.predict![i], `${name} text ${at + i}`).to.equal(display(row.label))
          near(values.confidence![i] as number, row.confidence, `${name} confidence of text ${at + i}`)
          row.proba?.forEach((p, j) => { near(values.predict_proba![i * 2 + j] as number, p, `${name} predict_proba of text ${at + i}`) })
        })
      }
    }
  })

  it('shows each member\'s own answer in /explain (label and confidence as it answers alone, its explanation where it has one), ties included', async () => {
    for (const name of ENSEMBLES) {
      const { rows } = expected(name)
      // Every text whose members disagree, and the first 100.
      const picked = rows.map((_, i) => i).filter(i => decided(rows[i]!) && (i < 100 || new Set(rows[i]!.members.map(m => m.label)).size > 1)).slice(0, 400)
      for (let at = 0; at < picked.length; at += BATCH) {
        const ids = picked.slice(at, at + BATCH)
        const { status, body } = await post(`/models/${name}/explain`, { texts: ids.map(i => TEXTS[i]), top_k: 3 })
        expect(status, JSON.stringify(body)).to.equal(200)
        const explanations = body.explanations as Array<{ prediction: string, confidence: number, combine: string, members: Array<{ name: string, prediction: string, confidence: number, explanation: { prediction: string, features: unknown[] } | null, explain_refusal?: string }> }>
        explanations.forEach((e, k) => {
          const row = rows[ids[k]!]!
          expect(e.prediction).to.equal(display(row.label))
          near(e.confidence, row.confidence, `${name} confidence of text ${ids[k]!}`)
          expect(e.members.map(m => m.prediction)).to.deep.equal(row.members.map(m => display(m.label)))
          e.members.forEach((m, j) => { near(m.confidence, row.members[j]!.confidence, `${name} member ${m.name} of text ${ids[k]!}`) })
          for (const m of e.members) {
            if (m.explanation !== null) expect(m.explanation.prediction).to.equal(m.prediction)
          }
        })
      }
    }
    const one = (await post('/explain', { text: 'o the sweet sorrow', top_k: 2 })).body as { combine: string, members: Array<{ name: string, weight: number, explanation: unknown, explain_refusal?: string }> }
    expect(one.combine).to.equal('vote')
    expect(one.members.map(m => [m.name, m.weight, m.explanation === null, m.explain_refusal ?? null])).to.deep.equal([
      ['knn', 1, true, 'KNeighborsClassifier: its answer comes from distances to stored texts, not from per-word shares; explanations are defined for linear models, naive Bayes and tree models (TreeSHAP)'],
      ['nb', 1, false, null],
      ['rf', 1, false, null]
    ])
  })

  it('gives a member from the repository the very explanation that model gives when asked alone', async () => {
    const texts = TEXTS.slice(1100, 1130)
    const alone = ((await post('/models/spam-lr/explain', { texts, top_k: 4 })).body as { explanations: Array<Record<string, unknown>> }).explanations
    const inside = ((await post('/models/hybrid/explain', { texts, top_k: 4 })).body as { explanations: Array<{ members: Array<{ name: string, explanation: Record<string, unknown> }> }> }).explanations
    expect(inside.map(e => e.members[0]!.name)).to.deep.equal(texts.map(() => 'spam-lr'))
    expect(inside.map(e => e.members[0]!.explanation)).to.deep.equal(alone.map(({ text: _, ...rest }) => rest))
  })

  it('reloads an ensemble like any model, its members read again', async () => {
    const before = repository.serving('hybrid').key
    const outcome = await repository.loadOutcome('hybrid')
    expect(outcome).to.deep.equal({ loaded: true, name: 'hybrid', version: '1' })
    expect(repository.serving('hybrid').key).to.not.equal(before)
    const { body } = await post('/models/hybrid/predict', { text: TEXTS[3000] })
    expect(body.sentiment).to.equal(display(expected('hybrid').rows[3000]!.label))
  })
})

describe('an ensemble as the service process serves it (node dist/src/main.bundle.js)', function () {
  this.timeout(120000)

  const cases: Array<[string, Record<string, string>, string]> = [
    ['MODEL_SETTINGS naming an ensemble of files', { MODEL_SETTINGS: path.join(HERE, 'repository', 'mbti', 'model-settings.json') }, 'mbti'],
    ['MODEL_DIR holding one', { MODEL_DIR: path.join(HERE, 'repository', 'poem-int') }, 'poem-int'],
    ['MODEL_REPOSITORY with the ensemble as DEFAULT_MODEL (members by name)', { MODEL_REPOSITORY: path.join(HERE, 'repository'), DEFAULT_MODEL: 'hybrid' }, 'hybrid']
  ]
  for (const [what, env, model] of cases) {
    it(`starts with ${what}, and answers /batch_predict and V2 as the app did`, async () => {
      const run = start({ LOG_LEVEL: 'info', CACHE_SIZE: '0', ...env })
      try {
        const port = await readyPort(run)
        const rows = expected(model).rows
        const ids = rows.map((_, i) => i).filter(i => rows[i]!.knn_tie !== true).filter(i => i % 31 === 0).slice(0, 50)
        const texts = ids.map(i => TEXTS[i]!)
        const batch = await (await fetch(`http://127.0.0.1:${port}/batch_predict`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ texts }) })).json() as { predictions: Array<{ prediction: string }> }
        expect(batch.predictions.map(p => p.prediction)).to.deep.equal(ids.map(i => display(rows[i]!.label)))
        // Served under the settings' name (no MODEL_NAME), the repository's folder name likewise.
        const v2 = await (await fetch(`http://127.0.0.1:${port}/v2/models/${model}/infer`, { method: 'POST', body: JSON.stringify({ inputs: [{ name: 'text', shape: [texts.length], datatype: 'BYTES', data: texts }], outputs: [{ name: 'confidence' }] }) })).json() as { outputs: V2Output[] }
        v2.outputs[0]!.data.forEach((c, k) => { near(c as number, rows[ids[k]!]!.confidence, `text ${ids[k]!}`) })
      } finally {
        run.child.kill('SIGTERM')
        await run.exit
      }
    })
  }
})
