/**
 * `verify` where the app recorded its answers with a later version of the model's library
 * than the one that wrote the file: an LGBMClassifier written before lightgbm 4.7.0 (no
 * decision_function then) recorded by lightgbm 4.7 with the script of docs/preprocessing.md, which writes
 * `decision` (test/fixtures/verify/lightgbm-before-4.7/generate.py). Its decision values are
 * compared with lightgbm 4.7's raw scores; a recorded field no version gives is not comparable,
 * never a disagreement.
 */
import { expect } from 'chai'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { loadServedModel } from '../src/model/served-model.js'
import { verify } from '../src/verify.js'
import { runCli } from './helpers/cli.js'
import { FIXTURES } from './helpers/paths.js'

const DIR = path.join(FIXTURES, 'verify', 'lightgbm-before-4.7')
const TMP = mkdtempSync(path.join(tmpdir(), 'tfidf-verify-later-'))
const CASES = [
  { name: 'binary', model: 'final_best_model.pkl', vectorizer: 'tfidf_vectorizer.pkl', expected: 'expected.jsonl', width: 1 },
  { name: 'three classes', model: 'multiclass.pkl', vectorizer: 'multiclass_vectorizer.pkl', expected: 'multiclass.jsonl', width: 3 }
]
const LATER_NOTE = "decision: the model file predates lightgbm 4.7.0, which added decision_function; compared with lightgbm 4.7.0's (not served)"

interface Line { text: string, label: string, proba?: number[], decision?: number[], fed?: string }
const linesOf = (file: string): Line[] => readFileSync(file, 'utf8').split('\n').filter(l => l !== '').map(l => JSON.parse(l) as Line)
function written (lines: readonly Line[]): string {
  const file = path.join(TMP, `${Math.random().toString(36).slice(2)}.jsonl`)
  writeFileSync(file, lines.map(l => JSON.stringify(l)).join('\n') + '\n')
  return file
}

describe('verify with answers recorded by a later version of the library', function () {
  this.timeout(60000)

  for (const c of CASES) {
    context(`an LGBMClassifier written before lightgbm 4.7 (${c.name}), recorded by lightgbm 4.7`, () => {
      const paths = { model: path.join(DIR, c.model), vectorizers: [path.join(DIR, c.vectorizer)] }

      it('is served without decision_function, as its version has none', async () => {
        const { predictor } = await loadServedModel({ paths, settingsFile: null })
        expect(predictor.predict('free entry now').decision).to.equal(undefined)
        expect(predictor.laterDecision('free entry now')?.decision).to.have.length(c.width)
      })

      it("agrees on every text: the recorded decision values are lightgbm 4.7's raw scores, exactly", async () => {
        const { predictor } = await loadServedModel({ paths, settingsFile: null })
        const report = await verify(predictor, path.join(DIR, c.expected))
        expect(linesOf(path.join(DIR, c.expected)).every(l => l.decision?.length === c.width)).to.equal(true)
        expect(report).to.deep.include({ texts: 157, agree: 157, disagree: 0, labels_equal: 157, max_decision_difference: 0, decision_not_comparable: 0, notes: [LATER_NOTE], first_differences: [] })
        expect(report.max_proba_difference).to.be.at.most(1e-15)
      })

      it('still finds a decision value that differs', async () => {
        const { predictor } = await loadServedModel({ paths, settingsFile: null })
        const lines = linesOf(path.join(DIR, c.expected))
        lines[4] = { ...lines[4]!, decision: lines[4]!.decision!.map(d => d + 1e-6) }
        const report = await verify(predictor, written(lines))
        expect(report.disagree).to.equal(1)
        expect(report.first_differences.map(d => [d.line, d.differs])).to.deep.equal([[5, ['decision']]])
        expect(report.first_differences[0]!.ours.decision).to.have.length(c.width)
      })
    })
  }

  it('the CLI exits 0 on the binary file (it counted 157 disagreements before)', async () => {
    const run = await runCli(['verify', '--model', path.join(DIR, 'final_best_model.pkl'), '--vectorizer', path.join(DIR, 'tfidf_vectorizer.pkl'), path.join(DIR, 'expected.jsonl')])
    expect(run.code, run.stderr).to.equal(0)
    expect(JSON.parse(run.stdout)).to.deep.include({ texts: 157, agree: 157, disagree: 0, notes: [LATER_NOTE] })
  })

  context('a recorded decision that no version of the model gives', () => {
    it('is reported as not comparable, never as a disagreement (labels and probabilities still compared)', async () => {
      const app = path.join(FIXTURES, 'apps', '1.2.1', 'label-map')
      const { predictor } = await loadServedModel({ paths: { model: path.join(app, 'pipeline.joblib') }, settingsFile: path.join(app, 'model-settings.json') })
      const lines = linesOf(path.join(app, 'expected.jsonl')).slice(0, 20).map(l => ({ ...l, decision: [0.5] }))
      const report = await verify(predictor, written(lines))
      expect(report).to.deep.include({
        texts: 20,
        agree: 20,
        disagree: 0,
        max_decision_difference: null,
        decision_not_comparable: 20,
        notes: ['decision: the model as served has no decision_function, so 20 recorded decisions were not compared (labels and probabilities were)']
      })
      lines[3] = { ...lines[3]!, proba: lines[3]!.proba!.map(p => 1 - p) }
      expect((await verify(predictor, written(lines))).first_differences.map(d => d.differs)).to.deep.equal([['proba']])
    })
  })
})
