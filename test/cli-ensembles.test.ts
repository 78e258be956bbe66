/**
 * The command line with an ensemble's settings (`--settings`, no `--model`): `predict` on the
 * worker pool and `explain` in-thread answer as the app's Python did (fixtures of
 * test/fixtures/ensembles); members named by repository name are found in the repository that
 * holds the settings' folder (test/joined-labels.test.ts has `verify` and `--repository`).
 */
import { expect } from 'chai'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { runCli } from './helpers/cli.js'
import { FIXTURES } from './helpers/paths.js'

const HERE = path.join(FIXTURES, 'ensembles')
const REPO = path.join(HERE, 'repository')
const TEXTS = (JSON.parse(readFileSync(path.join(HERE, 'texts.json'), 'utf8')) as { texts: string[] }).texts
interface Row { label: string, confidence: number, members: Array<{ label: string, confidence: number }>, knn_tie?: boolean }
const rows = (model: string): Row[] => (JSON.parse(readFileSync(path.join(HERE, 'expected', `${model}.json`), 'utf8')) as { rows: Row[] }).rows
const settings = (model: string): string => path.join(REPO, model, 'model-settings.json')

describe('the command line with an ensemble', function () {
  this.timeout(120000)

  it('predict: the MBTI join answers each of the 3,111 texts as the app did (labels equal, confidence within 1e-9)', async () => {
    const run = await runCli(['predict', '--settings', settings('mbti'), '--format', 'jsonl', '--workers', '2'], TEXTS.map(text => JSON.stringify({ text })).join('\n') + '\n')
    expect(run.stderr).to.equal('')
    const out = run.stdout.trim().split('\n').map(l => JSON.parse(l) as { label: string, confidence: number })
    const expected = rows('mbti')
    expect(out.map(o => o.label)).to.deep.equal(expected.map(r => r.label))
    out.forEach((o, i) => { expect(Math.abs(o.confidence - expected[i]!.confidence), `text ${i}`).to.be.at.most(1e-9) })
  })

  it('explain: the vote and each member\'s own answer, in-thread', async () => {
    const expected = rows('poem-weighted')
    const picked = expected.map((_, i) => i).filter(i => expected[i]!.knn_tie !== true).slice(0, 200)
    const run = await runCli(['explain', '--settings', settings('poem-weighted'), '--format', 'jsonl', '--top-k', '2'], picked.map(i => JSON.stringify({ text: TEXTS[i] })).join('\n') + '\n')
    expect(run.stderr).to.equal('')
    const out = run.stdout.trim().split('\n').map(l => JSON.parse(l) as { prediction: string, confidence: number, members: Array<{ name: string, weight: number, prediction: string, confidence: number }> })
    out.forEach((o, k) => {
      const row = expected[picked[k]!]!
      expect(o.prediction).to.equal(row.label)
      expect(Math.abs(o.confidence - row.confidence)).to.be.at.most(1e-9)
      expect(o.members.map(m => [m.name, m.weight, m.prediction])).to.deep.equal([['knn', 1.5, row.members[0]!.label], ['nb', 1, row.members[1]!.label], ['rf', 0.5, row.members[2]!.label]])
    })
  })

  it('finds members named by repository name in the repository that holds the settings\' folder, and names one it lacks', async () => {
    const named = await runCli(['predict', '--settings', settings('hybrid'), '--format', 'jsonl', '--workers', '1'], JSON.stringify({ text: TEXTS[0] }) + '\n')
    expect([named.code, named.stderr]).to.deep.equal([0, ''])
    const answer = JSON.parse(named.stdout) as { label: string, confidence: number }
    expect(answer.label).to.equal(rows('hybrid')[0]!.label)
    expect(Math.abs(answer.confidence - rows('hybrid')[0]!.confidence)).to.be.at.most(1e-9)
    const root = mkdtempSync(path.join(tmpdir(), 'tfidf-cli-lacking-'))
    mkdirSync(path.join(root, 'lacking'))
    writeFileSync(path.join(root, 'lacking', 'model-settings.json'), JSON.stringify({ parameters: { extra: { tfidf_serve: { ensemble: { combine: 'mean', members: [{ model: 'spam-lr' }, { model: 'spam-nb' }] } } } } }))
    try {
      const lacking = await runCli(['predict', '--settings', path.join(root, 'lacking', 'model-settings.json')], 'hello\n')
      expect([lacking.code, lacking.stderr.split('\n')[0]]).to.deep.equal([1, `tfidf-serve: invalid model settings: ensemble member spam-lr: no model named "spam-lr" in the repository (none) in ${path.join(root, 'lacking', 'model-settings.json')}`])
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
