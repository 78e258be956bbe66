/**
 * The personality-type app of issue #38: four models trained on 0/1, each member's `labels`
 * mapping its answer to a letter, the letters joined ("ENTJ"). Served as a join of file
 * members (test/fixtures/joined-labels/repository/personality) and as a join of the
 * repository's models by name (personality-models), each answers the 407 texts as the app's
 * Python did (test/fixtures/joined-labels/generate.py, scikit-learn 1.2.1): through the
 * command line's predict and verify, and through V2 REST and the spec's /predict on a real
 * server on 127.0.0.1.
 */
import { expect } from 'chai'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { runCli } from './helpers/cli.js'
import { FIXTURES } from './helpers/paths.js'
import { serveRepository, type RepositoryServer } from './helpers/service.js'

const HERE = path.join(FIXTURES, 'joined-labels')
const REPO = path.join(HERE, 'repository')
const EXPECTED = path.join(HERE, 'expected.jsonl')
interface Member { label: string, proba: number[], decision: number[] }
interface Row { text: string, label: string, confidence: number, members: Record<string, Member> }
const ROWS = readFileSync(EXPECTED, 'utf8').split('\n').filter(l => l !== '').map(l => JSON.parse(l) as Row)
const SETTINGS = path.join(REPO, 'personality', 'model-settings.json')
/** The two forms of the app, as the command line names each. */
const FORMS: ReadonlyArray<readonly [string, string[]]> = [
  ['file members with their own labels', ['--settings', SETTINGS]],
  ['repository models by name', ['--repository', REPO, '--model-name', 'personality-models']]
]
const near = (actual: number, wanted: number, what: string): void => { expect(Math.abs(actual - wanted), `${what}: ${actual} against ${wanted}`).to.be.at.most(1e-9) }

describe('an app that joins four 0/1 models\' letters (issue #38)', function () {
  this.timeout(180000)

  it('has the app\'s answers to check: 407 texts, at least 8 types, every letter from a 0/1 model', () => {
    expect(ROWS).to.have.length(407)
    expect(new Set(ROWS.map(r => r.label)).size).to.be.at.least(8)
    expect(ROWS.every(r => /^[IE][NS][TF][JP]$/.test(r.label))).to.equal(true)
  })

  for (const [form, flags] of FORMS) {
    context(`on the command line (${form})`, () => {
      it('predict answers each text\'s joined letters, confidence within 1e-9', async () => {
        const run = await runCli(['predict', ...flags, '--format', 'jsonl', '--workers', '2'], ROWS.map(r => JSON.stringify({ text: r.text })).join('\n') + '\n')
        expect(run.stderr).to.equal('')
        const out = run.stdout.trim().split('\n').map(l => JSON.parse(l) as { label: string, confidence: number })
        expect(out.map(o => o.label)).to.deep.equal(ROWS.map(r => r.label))
        out.forEach((o, i) => { near(o.confidence, ROWS[i]!.confidence, `text ${i}`) })
      })

      it('verify agrees on every text: the joined label and confidence, and each member\'s letter, predict_proba and decision_function', async () => {
        const run = await runCli(['verify', ...flags, EXPECTED])
        expect([run.code, run.stderr]).to.deep.equal([0, ''])
        const report = JSON.parse(run.stdout) as Record<string, unknown>
        expect(report).to.deep.include({ texts: 407, agree: 407, disagree: 0, labels_equal: 407, fed_differs: 0, decision_not_comparable: 0, notes: [], first_differences: [] })
        for (const key of ['max_proba_difference', 'max_decision_difference', 'max_confidence_difference']) expect(report[key], key).to.be.within(0, 1e-9)
      })
    })
  }

  context('verify finding differences', () => {
    let dir: string
    before(() => { dir = mkdtempSync(path.join(tmpdir(), 'tfidf-joined-verify-')) })
    after(() => { rmSync(dir, { recursive: true, force: true }) })
    const written = (rows: readonly object[]): string => {
      const file = path.join(dir, `${Math.random().toString(36).slice(2)}.jsonl`)
      writeFileSync(file, rows.map(r => JSON.stringify(r)).join('\n') + '\n')
      return file
    }

    it('names the ensemble\'s label and a member\'s probabilities that differ, with both answers', async () => {
      const rows: Row[] = ROWS.slice(0, 5).map(r => structuredClone(r))
      const wrong = rows[1]!.label.replace(/^./, c => c === 'I' ? 'E' : 'I')
      rows[1]!.label = wrong
      rows[3]!.members.ie!.proba = rows[3]!.members.ie!.proba.map(p => p + 1e-6)
      const run = await runCli(['verify', '--settings', SETTINGS, written(rows)])
      expect(run.code).to.equal(1)
      const report = JSON.parse(run.stdout) as { disagree: number, first_differences: Array<{ line: number, differs: string[], ours: { label: string, members: Record<string, { label: string }> } }> }
      expect(report.disagree).to.equal(2)
      expect(report.first_differences.map(d => [d.line, d.differs])).to.deep.equal([[2, ['label']], [4, ['members.ie.proba']]])
      expect(report.first_differences[0]!.ours.label).to.equal(ROWS[1]!.label)
      expect(report.first_differences[0]!.ours.members.jp!.label).to.equal(ROWS[1]!.members.jp!.label)
    })

    it("compares an ensemble's fed text with the one its members share: equal is no difference, and one that differs is counted", async () => {
      // The app fed each member the text as it came (the settings declare no preprocessing).
      const rows = ROWS.slice(0, 40).map(r => ({ ...structuredClone(r), fed: r.text }))
      const same = JSON.parse((await runCli(['verify', '--settings', SETTINGS, written(rows)])).stdout) as Record<string, unknown>
      expect(same).to.deep.include({ texts: 40, agree: 40, fed_differs: 0, notes: [], first_differences: [] })
      rows[7]!.fed = rows[7]!.text.toLowerCase() + ' cleaned'
      const one = JSON.parse((await runCli(['verify', '--settings', SETTINGS, written(rows)])).stdout) as Record<string, unknown>
      expect(one).to.deep.include({ texts: 40, fed_differs: 1, notes: [] })
    })

    it('refuses a line naming a member the ensemble has not, and members for a single model', async () => {
      const unknown = await runCli(['verify', '--settings', SETTINGS, written([{ text: 'x', label: 'INTJ', members: { xy: { label: 'I' } } }])])
      expect(unknown.code).to.equal(1)
      expect(unknown.stderr).to.match(/^tfidf-serve: line 1 gives member "xy", which the ensemble has not \(its members: ie, ns, tf, jp\) in \S+\.jsonl\n$/)
      const single = await runCli(['verify', '--repository', REPO, '--model-name', 'axis-ie', written([{ text: 'x', label: 'I', members: { ie: { label: 'I' } } }])])
      expect(single.code).to.equal(1)
      expect(single.stderr).to.match(/^tfidf-serve: line 1 gives "members", but the model is not an ensemble in /)
    })
  })

  context('served on 127.0.0.1', () => {
    let server: RepositoryServer
    before(async () => { server = await serveRepository(REPO, { DEFAULT_MODEL: 'personality', CACHE_SIZE: '0' }) })
    after(async () => { await server?.close() })
    const post = async (route: string, body: object): Promise<{ status: number, body: Record<string, unknown> }> => {
      const response = await fetch(server.base + route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      return { status: response.status, body: await response.json() as Record<string, unknown> }
    }

    for (const model of ['personality', 'personality-models']) {
      it(`${model}: V2 REST answers each text's letters (as the spec's routes show labels, lowercased) and confidence within 1e-9`, async () => {
        for (let at = 0; at < ROWS.length; at += 50) {
          const rows = ROWS.slice(at, at + 50)
          const { status, body } = await post(`/v2/models/${model}/infer`, { inputs: [{ name: 'text', shape: [rows.length], datatype: 'BYTES', data: rows.map(r => r.text) }], outputs: [{ name: 'predict' }, { name: 'confidence' }] })
          expect(status, JSON.stringify(body)).to.equal(200)
          const out = Object.fromEntries((body.outputs as Array<{ name: string, data: Array<string | number> }>).map(o => [o.name, o.data]))
          expect(out.predict).to.deep.equal(rows.map(r => r.label.toLowerCase()))
          rows.forEach((r, i) => { near(out.confidence![i] as number, r.confidence, `text ${at + i}`) })
        }
      })
    }

    it('answers the spec\'s /predict with the joined letters, and each axis model alone with its letter', async () => {
      const row = ROWS[0]!
      const single = await post('/predict', { text: row.text })
      expect(single.body).to.deep.include({ sentiment: row.label.toLowerCase(), confidence: Math.round(row.confidence * 1e4) / 1e4 })
      const axis = await post('/models/axis-ie/predict', { text: row.text })
      expect(axis.body).to.deep.include({ sentiment: row.members.ie!.label.toLowerCase() })
    })
  })
})
