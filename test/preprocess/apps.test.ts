/**
 * Real apps, played by real Python (test/fixtures/apps/generate.py): each cleaned its texts
 * in Python before the vectorizer, pickled its own functions, or named its classes; their
 * model-settings.json declares it. Every answer must be the app's own: labels equal,
 * probabilities and decision values within 1e-9, and the text fed to the vectorizer equal.
 */
import { expect } from 'chai'
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import request from 'supertest'
import { loadServedModel } from '../../src/model/served-model.js'
import { readModelSettings } from '../../src/settings/model-settings.js'
import { verify } from '../../src/verify.js'
import { runCli } from '../helpers/cli.js'
import { FIXTURES } from '../helpers/paths.js'
import { startService } from '../helpers/service.js'

const APPS = path.join(FIXTURES, 'apps')
const VERSIONS = readdirSync(APPS).filter(v => /^\d+\.\d+\.\d+$/.test(v)).sort()

interface Line { text: string, fed: string, label: string, raw_label?: string, proba?: number[], decision?: number[] }

const linesOf = (dir: string): Line[] => readFileSync(path.join(dir, 'expected.jsonl'), 'utf8').split('\n').filter(l => l !== '').map(l => JSON.parse(l) as Line)

describe('apps that clean text, pickle their own functions or name their classes', function () {
  this.timeout(120000)

  for (const version of VERSIONS) {
    context(`made by scikit-learn ${version}`, () => {
      for (const app of readdirSync(path.join(APPS, version)).sort()) {
        const dir = path.join(APPS, version, app)
        it(`${app}: answers as the app did on every text, fed the same text`, async () => {
          const settings = readModelSettings(path.join(dir, 'model-settings.json'))
          const { predictor } = await loadServedModel({ paths: { model: settings.model!, vectorizers: settings.vectorizers }, settingsFile: settings.file })
          const report = await verify(predictor, path.join(dir, 'expected.jsonl'), 3)
          expect(report.texts).to.equal(linesOf(dir).length)
          expect({ disagree: report.disagree, fed_differs: report.fed_differs, first: report.first_differences }).to.deep.equal({ disagree: 0, fed_differs: 0, first: [] })
        })
      }
    })
  }

  context('served over HTTP with MODEL_SETTINGS', () => {
    for (const app of ['label-encoder', 'tokenizer-main', 'step-class-main']) {
      it(`${app}: workers load the settings and the functions module, and /predict answers the app's labels`, async () => {
        const dir = path.join(APPS, '1.2.1', app)
        const service = await startService({ MODEL_SETTINGS: path.join(dir, 'model-settings.json'), WORKERS: '2', CACHE_SIZE: '0' })
        try {
          const lines = linesOf(dir).slice(0, 50)
          const res = await request(service.app).post('/predict').send({ texts: lines.map(l => l.text), batch_size: 7 }).expect(200)
          const body = res.body as { predictions: Array<{ prediction: string }> }
          expect(body.predictions.map(p => p.prediction)).to.deep.equal(lines.map(l => l.label.toLowerCase().replace(/\s+/g, '_')))
          const info = (await request(service.app).get('/').expect(200)).body as { model_info: { classes: string[] } }
          if (app === 'label-encoder') expect(info.model_info.classes).to.deep.equal(['ham', 'spam'])
        } finally {
          await service.close()
        }
      })
    }
  })

  context('the CLI', () => {
    const dir = path.join(APPS, '1.2.1', 'sms-porter')
    const settings = path.join(dir, 'model-settings.json')

    it('verify exits 0 on an agreeing file and reports every text agreeing', async () => {
      const run = await runCli(['verify', '--settings', settings, path.join(dir, 'expected.jsonl')])
      expect(run.code, run.stderr).to.equal(0)
      const report = JSON.parse(run.stdout) as { texts: number, agree: number, disagree: number, fed_differs: number }
      expect(report).to.include({ texts: 197, agree: 197, disagree: 0, fed_differs: 0 })
    })

    it('verify exits 1 on a disagreeing file and shows both answers and both fed texts', async () => {
      const lines = linesOf(dir)
      // What a port that forgot the stop words would have recorded: another fed text, another label.
      lines[2] = { ...lines[2]!, label: lines[2]!.label === 'ham' ? 'spam' : 'ham', fed: `${lines[2]!.fed} the` }
      lines[5] = { ...lines[5]!, proba: lines[5]!.proba!.map((p, i) => i === 0 ? p + 1e-6 : p - 1e-6) }
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'tfidf-verify-')), 'expected.jsonl')
      writeFileSync(file, lines.map(l => JSON.stringify(l)).join('\n') + '\n')
      const run = await runCli(['verify', '--settings', settings, file])
      expect(run.code).to.equal(1)
      const report = JSON.parse(run.stdout) as { disagree: number, first_differences: Array<{ line: number, differs: string[], expected: Line, ours: Line }> }
      expect(report.disagree).to.equal(2)
      expect(report.first_differences.map(d => [d.line, d.differs])).to.deep.equal([[3, ['label', 'fed']], [6, ['proba']]])
      expect(report.first_differences[0]!.ours.fed).to.equal(linesOf(dir)[2]!.fed)
    })

    it('predict with --settings runs the declared cleaning in the workers', async () => {
      const lines = linesOf(dir).slice(0, 40).filter(l => !/[\r\n\u0085\u2028\u2029]/.test(l.text))
      const run = await runCli(['predict', '--workers', '2', '--settings', settings], lines.map(l => l.text).join('\n') + '\n')
      expect(run.code, run.stderr).to.equal(0)
      const out = run.stdout.split('\n').filter(l => l !== '').map(l => JSON.parse(l) as { label: string, proba: number[] })
      expect(out.map(o => o.label)).to.deep.equal(lines.map(l => l.label))
      out.forEach((o, i) => o.proba.forEach((p, k) => expect(Math.abs(p - lines[i]!.proba![k]!)).to.be.at.most(1e-9)))
    })

    it('--labels names the classes from a LabelEncoder file, replacing the settings', async () => {
      const app = path.join(APPS, '1.2.1', 'label-encoder')
      const run = await runCli(['predict', '--model', path.join(app, 'final_best_model.pkl'), '--vectorizer', path.join(app, 'tfidf_vectorizer.pkl'), '--labels', path.join(app, 'label_encoder.pkl')], 'free entry win a prize now\nsee you at lunch\n')
      expect(run.code, run.stderr).to.equal(0)
      expect(run.stdout.split('\n').filter(l => l !== '').map(l => (JSON.parse(l) as { label: string }).label)).to.deep.equal(['spam', 'ham'])
    })

    it('inspect names the settings file and shows the renamed classes', async () => {
      const app = path.join(APPS, '1.2.1', 'label-map')
      const run = await runCli(['inspect', '--settings', path.join(app, 'model-settings.json')])
      expect(run.code, run.stderr).to.equal(0)
      const info = JSON.parse(run.stdout) as { classes: string[], settings: string }
      expect(info.classes).to.deep.equal(['negative', 'positive'])
      expect(info.settings).to.equal(path.join(app, 'model-settings.json'))
    })
  })
})
