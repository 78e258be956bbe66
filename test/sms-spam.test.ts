/**
 * The sms-spam app of docs/preprocessing.md as a newcomer serves it (test/fixtures/sms-spam,
 * made by its generate.py): the CLI and the service give the app's own answers, `inspect` shows
 * the settings as read, the service is known by the settings' name, and a wrong name or a
 * bundle with no classifier is refused in a line that says what to do.
 */
import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { runCli } from './helpers/cli.js'
import { FIXTURES, ROOT } from './helpers/paths.js'
import { readyPort, start, type Run } from './helpers/processes.js'

const DIR = path.join(FIXTURES, 'sms-spam')
const SETTINGS = path.join(DIR, 'model-settings.json')
interface Expected { texts: string[], cleaned: string[], predict: number[], predict_proba: number[][] }
const EXPECTED = JSON.parse(readFileSync(path.join(DIR, 'expected.json'), 'utf8')) as Expected
const NAMES = ['ham', 'spam']

async function served (env: Record<string, string>, use: (port: number) => Promise<void>): Promise<void> {
  const run: Run = start({ CACHE_SIZE: '0', ...env })
  try {
    await use(await readyPort(run))
  } finally {
    run.child.kill('SIGTERM')
    await run.exit
  }
}

async function infer (port: number, model: string): Promise<{ status: number, body: Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${port}/v2/models/${model}/infer`, {
    method: 'POST',
    body: JSON.stringify({ inputs: [{ name: 'text', shape: [EXPECTED.texts.length], datatype: 'BYTES', data: EXPECTED.texts }], outputs: [{ name: 'predict' }, { name: 'predict_proba' }] })
  })
  return { status: res.status, body: await res.json() as Record<string, unknown> }
}

describe('the sms-spam app of docs/preprocessing.md', function () {
  this.timeout(120000)

  it('answers on the command line as the app did: its labels by name, probabilities within 1e-9', async () => {
    const { stdout, stderr, code } = await runCli(['predict', '--settings', SETTINGS], EXPECTED.texts.join('\n') + '\n')
    expect([code, stderr]).to.deep.equal([0, ''])
    const lines = stdout.trimEnd().split('\n').map(l => JSON.parse(l) as { label: string, proba: number[] })
    expect(lines.map(l => l.label)).to.deep.equal(EXPECTED.predict.map(c => NAMES[c]))
    lines.forEach((l, i) => l.proba.forEach((p, k) => expect(Math.abs(p - EXPECTED.predict_proba[i]![k]!), `text ${i}`).to.be.below(1e-9)))
  })

  it('inspect --settings shows the declared steps, functions module and labels as read', async () => {
    const { stdout, code } = await runCli(['inspect', '--settings', SETTINGS])
    expect(code).to.equal(0)
    const shown = JSON.parse(stdout) as Record<string, unknown>
    const declared = (JSON.parse(readFileSync(SETTINGS, 'utf8')) as { parameters: { extra: { tfidf_serve: { preprocess: unknown[] } } } }).parameters.extra.tfidf_serve
    expect(shown.preprocess).to.deep.equal(declared.preprocess)
    expect((shown.preprocess as unknown[]).length).to.equal(4)
    expect(shown.labels).to.deep.equal({ 0: 'ham', 1: 'spam' })
    expect(shown.functions).to.equal(null)
    expect(shown.classes).to.deep.equal(NAMES)
    expect(shown.settings).to.equal(SETTINGS)
  })

  it("is served under the settings' name with MODEL_DIR, V2 giving the whole probability vector; an unknown name lists the models", async () => {
    await served({ MODEL_DIR: DIR }, async port => {
      const { status, body } = await infer(port, 'sms-spam')
      expect(status).to.equal(200)
      expect(body.model_name).to.equal('sms-spam')
      const [labels, proba] = body.outputs as Array<{ data: unknown[], shape: number[] }>
      expect(labels!.data).to.deep.equal(EXPECTED.predict.map(c => NAMES[c]))
      expect(proba!.shape).to.deep.equal([EXPECTED.texts.length, 2])
      ;(proba!.data as number[]).forEach((p, j) => expect(Math.abs(p - EXPECTED.predict_proba[Math.floor(j / 2)]![j % 2]!)).to.be.below(1e-9))
      expect(await infer(port, 'default')).to.deep.equal({ status: 404, body: { error: 'no model named "default" (models: sms-spam)' } })
      const single = await fetch(`http://127.0.0.1:${port}/models/nope/predict`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'hi' }) })
      expect([single.status, await single.json()]).to.deep.equal([404, { detail: 'no model named "nope" (models: sms-spam)' }])
    })
  })

  it('is served under MODEL_NAME when that is set too: MODEL_NAME wins', async () => {
    await served({ MODEL_DIR: DIR, MODEL_NAME: 'spam-filter' }, async port => {
      expect((await infer(port, 'spam-filter')).body.model_name).to.equal('spam-filter')
      expect((await infer(port, 'sms-spam')).body).to.deep.equal({ error: 'no model named "sms-spam" (models: spam-filter)' })
    })
  })

  it('a pickled dict holding no classifier is refused in the line troubleshooting.md shows', async () => {
    const file = path.join(DIR, 'vectorizer-and-classes.pkl')
    const { stderr, code } = await runCli(['inspect', '--model', file])
    const line = 'no classifier found (the file holds a dict of 2 items)'
    expect([code, stderr]).to.deep.equal([1, `tfidf-serve: ${line} in ${file}\n`])
    expect(readFileSync(path.join(ROOT, 'docs', 'troubleshooting.md'), 'utf8')).to.include(line)
  })
})
