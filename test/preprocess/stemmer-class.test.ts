/**
 * Apps whose Pipeline step class holds an NLTK stemmer or lemmatizer, played by real Python,
 * scikit-learn 1.2.1 and NLTK 3.8 (test/fixtures/stemmer-class/generate.py): the port is handed
 * the built-in object the pickled state describes, and calls it as the Python does.
 */
import { expect } from 'chai'
import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import request from 'supertest'
import { loadServedModel } from '../../src/model/served-model.js'
import { reviveNltkObjects } from '../../src/preprocess/nltk-objects.js'
import { readPickleFile } from '../../src/pickle/read-pickle-file.js'
import { PyObject, type PyValue } from '../../src/pickle/values.js'
import { readModelSettings } from '../../src/settings/model-settings.js'
import { pipelineSteps } from '../../src/sklearn/pipeline.js'
import { describeNltkObject } from '../../src/sklearn/text/nltk-state.js'
import { verify } from '../../src/verify.js'
import { FIXTURES } from '../helpers/paths.js'
import { startService } from '../helpers/service.js'

const DIR = path.join(FIXTURES, 'stemmer-class')
const APPS = readdirSync(DIR).filter(name => !name.endsWith('.py')).sort()

interface Line { text: string, label: string, functions: Record<string, string> }
interface Words { pos: string | null, stems: Record<string, string> }
type Factory = (state: unknown) => (text: string) => string

/** The StemClean record of an app's pipeline.pkl. */
async function stepRecord (dir: string): Promise<PyObject> {
  const pipeline = await readPickleFile(path.join(dir, 'pipeline.pkl'), { userGlobals: new Set(['__main__.StemClean']), onRefusedGlobal: () => {} })
  const step = pipelineSteps(pipeline as PyObject)[0]
  expect(step).to.be.instanceOf(PyObject)
  return step as PyObject
}

/** The live stemmer the port is handed for the record's `stemmer`. */
function liveStemmer (step: PyObject): { stem?: (w: string) => string, lemmatize?: (w: string, pos?: string) => string } {
  const description = describeNltkObject((step.state as Map<PyValue, PyValue>).get('stemmer'), 'StemClean')
  expect(description).to.not.equal(undefined)
  return reviveNltkObjects(description) as ReturnType<typeof liveStemmer>
}

describe('a Pipeline step class that holds an NLTK stemmer', function () {
  this.timeout(120000)

  it('has an app for every stemmer kind', () => {
    expect(APPS).to.deep.equal(['lancaster-strip-prefix', 'porter', 'porter-original', 'snowball-danish', 'snowball-english-stopwords', 'wordnet-verbs'])
  })

  for (const app of APPS) {
    const dir = path.join(DIR, app)

    it(`${app}: answers as the app did on every text (labels equal, numbers within 1e-9)`, async () => {
      const settings = readModelSettings(path.join(dir, 'model-settings.json'))
      const { predictor } = await loadServedModel({ paths: { model: settings.model!, vectorizers: settings.vectorizers }, settingsFile: settings.file })
      const report = await verify(predictor, path.join(dir, 'expected.jsonl'), 3)
      expect(report.texts).to.be.greaterThan(200)
      expect({ disagree: report.disagree, first: report.first_differences }).to.deep.equal({ disagree: 0, first: [] })
    })

    it(`${app}: the handed stemmer gives NLTK's answer for every word of the corpus`, async () => {
      const { pos, stems } = JSON.parse(readFileSync(path.join(dir, 'words.json'), 'utf8')) as Words
      const stemmer = liveStemmer(await stepRecord(dir))
      const ours = Object.fromEntries(Object.keys(stems).map(w => [w, pos === null ? stemmer.stem!(w) : stemmer.lemmatize!(w, pos)]))
      expect(Object.keys(stems).length).to.be.greaterThan(4000)
      expect(ours).to.deep.equal(stems)
    })

    it(`${app}: the port cleans every text as StemClean.transform did`, async () => {
      const step = await stepRecord(dir)
      const { functions } = await import(pathToFileURL(path.join(dir, 'functions.mjs')).href) as { functions: Record<string, Factory> }
      const pos = (step.state as Map<PyValue, PyValue>).get('pos') ?? null
      const clean = functions['__main__.StemClean']!({ stemmer: liveStemmer(step), pos })
      const lines = readFileSync(path.join(dir, 'expected.jsonl'), 'utf8').split('\n').filter(l => l !== '').map(l => JSON.parse(l) as Line)
      const differing = lines.filter(l => clean(l.text) !== l.functions['__main__.StemClean'])
      expect(differing.map(l => l.text)).to.deep.equal([])
    })
  }

  it('served over HTTP: the workers hand the port its stemmer too, and /predict answers the app\'s labels', async () => {
    const dir = path.join(DIR, 'snowball-english-stopwords')
    const service = await startService({ MODEL_SETTINGS: path.join(dir, 'model-settings.json'), WORKERS: '2', CACHE_SIZE: '0' })
    try {
      const lines = readFileSync(path.join(dir, 'expected.jsonl'), 'utf8').split('\n').filter(l => l !== '').slice(0, 50).map(l => JSON.parse(l) as Line)
      const res = await request(service.app).post('/predict').send({ texts: lines.map(l => l.text), batch_size: 7 }).expect(200)
      const body = res.body as { predictions: Array<{ prediction: string }> }
      expect(body.predictions.map(p => p.prediction)).to.deep.equal(lines.map(l => l.label))
    } finally {
      await service.close()
    }
  })

  it('the description keeps what decides the stems: mode, language and stop words, prefix flag', async () => {
    const describe = async (app: string): Promise<unknown> => describeNltkObject(((await stepRecord(path.join(DIR, app))).state as Map<PyValue, PyValue>).get('stemmer'), 'StemClean')
    expect(await describe('porter-original')).to.deep.equal({ __class__: 'nltk.stem.porter.PorterStemmer', mode: 'ORIGINAL_ALGORITHM' })
    const snowball = await describe('snowball-english-stopwords') as { language: string, stopwords: string[] }
    expect(snowball.language).to.equal('english')
    expect(snowball.stopwords).to.include.members(['the', 'and', "don't"])
    expect(snowball.stopwords.length).to.equal(179)
    expect(await describe('snowball-danish')).to.deep.equal({ __class__: 'nltk.stem.snowball.SnowballStemmer', language: 'danish', stopwords: [] })
    expect(await describe('lancaster-strip-prefix')).to.include({ __class__: 'nltk.stem.lancaster.LancasterStemmer', strip_prefix: true })
  })

  it('a stemmer whose state asks for what is not reproduced is refused, saying what', () => {
    expect(() => reviveNltkObjects({ s: { __class__: 'nltk.stem.lancaster.LancasterStemmer', strip_prefix: false, rules: ['ai*2.'] } }))
      .to.throw("LancasterStemmer with rules of its own (rule_tuple) is not reproduced: only NLTK's default rules are")
    expect(() => reviveNltkObjects({ __class__: 'nltk.stem.snowball.SnowballStemmer', language: 'arabic', stopwords: ['في'] }))
      .to.throw("SnowballStemmer('arabic', ignore_stopwords=True) is not reproduced")
  })

  it('ignore_stopwords: a stop word comes back lowercased and unstemmed, as NLTK gives it', () => {
    const stemmer = reviveNltkObjects({ __class__: 'nltk.stem.snowball.SnowballStemmer', language: 'english', stopwords: ['having', 'doing'] }) as { stem: (w: string) => string }
    expect(['Having', 'doing', 'running', 'Runs'].map(w => stemmer.stem(w))).to.deep.equal(['having', 'doing', 'run', 'run'])
  })
})
