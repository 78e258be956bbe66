/**
 * Apps that append columns of their own to the TF-IDF row (scipy hstack) before the
 * classifier, played by real Python (test/fixtures/columns/generate.py): with the columns
 * declared in the settings and ported in the functions module, every answer is the app's;
 * a declared width that does not make the classifier's is refused at load with both numbers.
 */
import { expect } from 'chai'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import request from 'supertest'
import { loadServedModel } from '../../src/model/served-model.js'
import { readModelSettings } from '../../src/settings/model-settings.js'
import { UserFunctionError } from '../../src/sklearn/text/user-callables.js'
import { verify } from '../../src/verify.js'
import { serviceErrorOf } from '../helpers/errors.js'
import { FIXTURES } from '../helpers/paths.js'
import { requireShared } from '../helpers/shared-data.js'
import { startService } from '../helpers/service.js'

const COLUMNS = path.join(FIXTURES, 'columns')
const APPS = ['lr-hstack', 'forest-hstack', 'scaled-hstack']
const DIR = mkdtempSync(path.join(tmpdir(), 'tfidf-columns-'))

interface Line { text: string, fed: string, label: string, proba: number[], decision?: number[], columns: number[][] }
interface Settings { name: string, parameters: { extra: { tfidf_serve: Record<string, unknown> } } }

const linesOf = (app: string): Line[] => readFileSync(path.join(COLUMNS, app, 'expected.jsonl'), 'utf8').split('\n').filter(l => l !== '').map(l => JSON.parse(l) as Line)
const settingsOf = (app: string): Settings => JSON.parse(readFileSync(path.join(COLUMNS, app, 'model-settings.json'), 'utf8')) as Settings

/** The app's settings with `change` made to tfidf-serve's keys, written to the temp folder (paths absolute). */
function changedSettings (app: string, change: Record<string, unknown>): string {
  const settings = settingsOf(app)
  const ours = settings.parameters.extra.tfidf_serve
  for (const key of ['model', 'vectorizer', 'functions']) ours[key] = path.join(COLUMNS, app, ours[key] as string)
  Object.assign(ours, change)
  const file = path.join(DIR, `${app}-${Object.keys(change).join('-')}-${Math.random().toString(36).slice(2)}.json`)
  writeFileSync(file, JSON.stringify(settings))
  return file
}

async function load (settingsFile: string): ReturnType<typeof loadServedModel> {
  const settings = readModelSettings(settingsFile)
  return await loadServedModel({ paths: { model: settings.model!, vectorizers: settings.vectorizers }, settingsFile })
}

describe("columns the app appended to the vectorizer's row", function () {
  this.timeout(60000)

  for (const app of APPS) {
    it(`${app}: answers as the app did on every text (labels, probabilities and decisions within 1e-9)`, async () => {
      const { predictor } = await load(path.join(COLUMNS, app, 'model-settings.json'))
      const fixture = JSON.parse(readFileSync(path.join(COLUMNS, app, 'fixture.json'), 'utf8')) as { n_features_in: number }
      expect(predictor.rowWidth).to.equal(fixture.n_features_in)
      const report = await verify(predictor, path.join(COLUMNS, app, 'expected.jsonl'), 3)
      expect({ texts: report.texts, disagree: report.disagree, fed_differs: report.fed_differs, first: report.first_differences }).to.deep.equal({ texts: 197, disagree: 0, fed_differs: 0, first: [] })
      expect(report.max_proba_difference).to.be.at.most(1e-9)
    })
  }

  it("the ports give the numbers the app's Python gave, exactly", async () => {
    const { functions } = await import(path.join(COLUMNS, 'functions.mjs')) as { functions: Record<string, (text: string, fed: string) => number[]> }
    for (const app of APPS) {
      const declared = settingsOf(app).parameters.extra.tfidf_serve.columns as Array<{ function: string }>
      for (const line of linesOf(app)) {
        expect(declared.map(c => functions[c.function]!(line.text, line.fed)), `${app}: ${line.text.slice(0, 40)}`).to.deep.equal(line.columns)
      }
    }
  })

  it('puts the columns before the Pipeline steps the model file holds (scaled-hstack: MaxAbsScaler reads them)', async () => {
    const err = await serviceErrorOf(async () => await load(changedSettings('scaled-hstack', { columns: [{ function: '__main__.extra_features', width: 4 }, { function: '__main__.negation_count', width: 1 }] })))
    expect(err.code).to.equal('ERR_MODEL_SHAPE')
    expect(err.detail).to.equal('the vectorizer (TfidfVectorizer + __main__.extra_features (4) + __main__.negation_count (1)) has 5237 features but MaxAbsScaler expects 5236')
  })

  it('names the columns in explanations', async () => {
    const { predictor } = await load(path.join(COLUMNS, 'lr-hstack', 'model-settings.json'))
    const explanation = predictor.explain('WINNER!! Claim your FREE prize now at www.example.com !!!', 3000)
    const terms = explanation.features.map(f => f.term)
    expect(terms).to.include.members(['__main__.extra_features[0]', '__main__.extra_features[1]', '__main__.extra_features[2]', '__main__.extra_features[3]'])
  })

  context('served over HTTP with MODEL_SETTINGS', () => {
    it("forest-hstack: the workers append the columns, and /predict answers the app's labels", async () => {
      const service = await startService({ MODEL_SETTINGS: path.join(COLUMNS, 'forest-hstack', 'model-settings.json'), WORKERS: '2', CACHE_SIZE: '0' })
      try {
        const lines = linesOf('forest-hstack').slice(0, 50)
        const res = await request(service.app).post('/predict').send({ texts: lines.map(l => l.text), batch_size: 7 }).expect(200)
        const body = res.body as { predictions: Array<{ prediction: string, confidence: number }> }
        expect(body.predictions.map(p => p.prediction)).to.deep.equal(lines.map(l => l.label))
        // /predict rounds the confidence to two decimals (SPEC).
        expect(body.predictions.map(p => p.confidence)).to.deep.equal(lines.map(l => Math.round(Math.max(...l.proba) * 100) / 100))
      } finally {
        await service.close()
      }
    })
  })

  context('refused at load, naming both widths', () => {
    it('a declared width that does not make the classifier’s', async () => {
      const err = await serviceErrorOf(async () => await load(changedSettings('lr-hstack', { columns: [{ function: '__main__.extra_features', width: 3 }] })))
      expect(err.code).to.equal('ERR_MODEL_SHAPE')
      expect(err.detail).to.equal("the vectorizer (TfidfVectorizer) has 3000 features and the settings declare 3 columns of the app's own (3003 in all) but the classifier expects 3004")
    })

    it('columns the app appended but the settings do not declare', async () => {
      const err = await serviceErrorOf(async () => await load(changedSettings('lr-hstack', { columns: [] })))
      expect(err.detail).to.equal('the vectorizer (TfidfVectorizer) has 3000 features but the classifier expects 3004; if the app appended 4 columns of its own to the vectorizer\'s row (scipy hstack), declare them in the settings ("columns")')
    })

    it('a real app from the wild whose classifier reads two columns more than its vectorizer (13-Abhay-hack-Spam-Mail)', async () => {
      const dir = requireShared('wild/13-Abhay-hack-Spam-Mail')
      const functions = path.join(DIR, 'two-columns.mjs')
      writeFileSync(functions, "export const functions = { '__main__.features': (text) => [text.length, 0] }\n")
      const file = (columns: unknown[]): string => {
        const f = path.join(DIR, `wild-${columns.length}.json`)
        writeFileSync(f, JSON.stringify({ parameters: { extra: { tfidf_serve: { model: path.join(dir, 'spam_classifier.joblib'), vectorizer: path.join(dir, 'tfidf_vectorizer.joblib'), functions, columns } } } }))
        return f
      }
      const err = await serviceErrorOf(async () => await load(file([])))
      expect(err.detail).to.match(/^the vectorizer \(TfidfVectorizer\) has 6000 features but the classifier expects 6002; if the app appended 2 columns/)
      const { predictor } = await load(file([{ function: '__main__.features', width: 2 }]))
      expect(predictor.rowWidth).to.equal(6002)
      expect(predictor.classes).to.have.length(2)
    })

    it('columns with no functions module, a function the module lacks, and a bad declaration', async () => {
      const noModule = path.join(DIR, 'no-module.json')
      writeFileSync(noModule, JSON.stringify({ parameters: { extra: { tfidf_serve: { model: 'x.pkl', columns: [{ function: '__main__.f', width: 1 }] } } } }))
      expect(() => readModelSettings(noModule)).to.throw(/columns name functions of the app, but the settings name no functions module/)
      const missing = await serviceErrorOf(async () => await load(changedSettings('lr-hstack', { columns: [{ function: '__main__.absent', width: 4 }] })))
      expect(missing.detail).to.equal('a columns block is the Python function __main__.absent, which the functions module does not export')
      expect(() => readModelSettings(changedSettings('lr-hstack', { columns: [{ function: '__main__.extra_features', width: 0 }] }))).to.throw(/columns\.0\.width must be >= 1/)
      expect(() => readModelSettings(changedSettings('lr-hstack', { columns: [{ function: '__main__.extra_features', size: 4 }] }))).to.throw(/must have required property 'width'/)
    })
  })

  context('a port that returns the wrong numbers on a text', () => {
    it('fails that text with an error naming the function, and the next text is answered', async () => {
      const functions = path.join(DIR, 'bad-columns.mjs')
      writeFileSync(functions, "export const functions = { '__main__.extra_features': (text) => text === 'nan' ? [NaN, 0, 0, 0] : text === 'short' ? [1, 2] : [1, 0, 0, 0] }\n")
      const { predictor } = await load(changedSettings('lr-hstack', { functions }))
      expect(() => predictor.predict('nan')).to.throw(UserFunctionError, 'user function __main__.extra_features returned NaN among its numbers: each must be a finite number')
      expect(() => predictor.predict('short')).to.throw(UserFunctionError, 'user function __main__.extra_features returned 2 values, not the 4 numbers the settings declare')
      expect(predictor.predict('hello').label).to.be.oneOf(['ham', 'spam'])
    })
  })
})
