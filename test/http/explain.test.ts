import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import request from 'supertest'
import { loadModel } from '../../src/sklearn/load-model.js'
import { FIXTURES, ROOT } from '../helpers/paths.js'
import { expectClose } from '../helpers/close.js'
import { startService, type Service } from '../helpers/service.js'

const CASE = path.join(FIXTURES, 'sklearn', 'logreg-binary')
const expected = JSON.parse(readFileSync(path.join(CASE, 'expected.json'), 'utf8')) as { predict: string[], decision_function: number[][] }
const texts = (JSON.parse(readFileSync(path.join(FIXTURES, 'sklearn', 'texts.json'), 'utf8')) as { texts: string[] }).texts

interface ExplanationBody {
  text: string
  prediction: string
  score: string
  score_classes: string[]
  intercept: number[]
  scores: number[]
  features: Array<{ feature: number, term: string, value: number, weight: number[], contribution: number[] }>
  other_features: { count: number, contribution: number[] }
}

describe('POST /explain', function () {
  this.timeout(60000)

  context('a linear model', () => {
    let service: Service
    before(async () => { service = await startService({ MODEL_PATH: path.join(CASE, 'final_best_model.pkl'), VECTORIZER_PATH: path.join(CASE, 'tfidf_vectorizer.pkl') }) })
    after(async () => { await service.close() })

    it('explains a batch: labels as /predict gives them, and parts that add up to scikit-learn\'s decision_function', async () => {
      const batch = texts.slice(0, 50)
      const res = await request(service.app).post('/explain').send({ texts: batch, top_k: 100 }).expect(200)
      const body = res.body as { explanations: ExplanationBody[] }
      expect(body.explanations).to.have.length(batch.length)
      body.explanations.forEach((e, i) => {
        expect(e.text).to.equal(batch[i])
        expect(e.prediction).to.equal(expected.predict[i]!.toLowerCase())
        expect(e.score).to.equal('decision_function')
        expect(e.score_classes).to.deep.equal(['positive'])
        expectClose(e.scores, expected.decision_function[i]!, 1e-9, `text ${i}`)
        const total = e.intercept[0]! + e.other_features.contribution[0]! + e.features.reduce((s, f) => s + f.contribution[0]!, 0)
        expectClose([total], e.scores, 1e-12, `text ${i}`)
      })
    })

    it('answers the single form with one explanation, top_k features, the strongest first', async () => {
      const res = await request(service.app).post('/explain').send({ text: 'a wonderful, moving film that I loved', top_k: 3 }).expect(200)
      const e = res.body as ExplanationBody
      expect(e.prediction).to.equal('positive')
      expect(e.features).to.have.length(3)
      expect(e.features.map(f => f.term)).to.include('wonderful')
      const sizes = e.features.map(f => Math.abs(f.contribution[0]!))
      expect(sizes).to.deep.equal([...sizes].sort((a, b) => b - a))
      expect(e.other_features.count).to.be.above(0)
    })

    it('holds /predict\'s body rules and top_k\'s, with FastAPI\'s 422 details', async () => {
      const res = await request(service.app).post('/explain').send({ texts: [''], top_k: 0 }).expect(422)
      const types = (res.body as { detail: Array<{ loc: Array<string | number>, type: string }> }).detail.map(d => [d.loc.join('.'), d.type])
      expect(types).to.deep.equal([['body.texts.0', 'string_too_short'], ['body.top_k', 'greater_than_equal']])
      await request(service.app).post('/explain').send({ text: 'x', extra: 1 }).expect(422)
      await request(service.app).get('/explain').expect(405)
    })
  })

  context('a tree model', () => {
    const dir = path.join(FIXTURES, 'treeshap', 'sklearn-1.6.1', 'forest-multi')
    const paths = { model: path.join(dir, 'final_best_model.pkl'), vectorizers: [path.join(dir, 'tfidf_vectorizer.pkl')] }
    let service: Service
    before(async () => { service = await startService({ MODEL_PATH: paths.model, VECTORIZER_PATH: paths.vectorizers[0]! }) })
    after(async () => { await service.close() })

    it('answers shap\'s values from the workers, the same as the model explains in process, absent words marked', async () => {
      const { predictor } = await loadModel(paths)
      const batch = texts.slice(0, 20)
      const res = await request(service.app).post('/explain').send({ texts: batch, top_k: 5 }).expect(200)
      const body = res.body as { explanations: Array<Omit<ExplanationBody, 'features'> & { method: string, space: string, features: Array<ExplanationBody['features'][number] & { absent?: boolean }> }> }
      body.explanations.forEach((e, i) => {
        const local = predictor.explain(batch[i]!, 5)
        expect([e.method, e.space, e.score]).to.deep.equal(['tree_shap', 'probability', 'predict_proba'])
        expect(e.score_classes).to.deep.equal(['mixed', 'negative', 'neutral', 'positive'])
        expectClose(e.intercept, local.intercept, 0, `text ${i} intercept`)
        expectClose(e.scores, local.scores, 0, `text ${i} scores`)
        expect(e.features.map(f => [f.feature, f.term, f.value, f.contribution, f.absent ?? false, 'weight' in f])).to.deep.equal(local.features.map(f => [f.feature, f.term, f.value, Array.from(f.contribution), f.absent ?? false, false]))
      })
      expect(body.explanations.some(e => e.features.some(f => f.absent === true))).to.equal(true)
    })
  })

  context('a tree model past the prediction timeout', () => {
    const dir = path.join(ROOT, 'bench', 'fixtures', 'treeshap', 'forest-100')
    let service: Service
    before(async () => { service = await startService({ MODEL_PATH: path.join(dir, 'final_best_model.pkl'), VECTORIZER_PATH: path.join(dir, 'tfidf_vectorizer.pkl'), PREDICTION_TIMEOUT_MS: '20' }) })
    after(async () => { await service.close() })

    it('answers 503 for explanations that outlast PREDICTION_TIMEOUT_MS, as predictions do, and keeps serving', async () => {
      const treeTexts = (JSON.parse(readFileSync(path.join(FIXTURES, 'treeshap', 'texts.json'), 'utf8')) as { texts: string[] }).texts.slice(0, 50)
      const res = await request(service.app).post('/explain').send({ texts: treeTexts, top_k: 5 }).expect(503)
      expect((res.body as { detail: string }).detail).to.equal('prediction took longer than 20 ms')
      await request(service.app).post('/predict').send({ text: 'a wonderful film' }).expect(200)
    })
  })

  context('a model with no explanation', () => {
    let service: Service
    const mlp = path.join(FIXTURES, 'estimators', '1.9.1', 'mlp-relu')
    before(async () => { service = await startService({ MODEL_PATH: path.join(mlp, 'final_best_model.pkl'), VECTORIZER_PATH: path.join(mlp, '..', '_vectorizers', 'poem.pkl') }) })
    after(async () => { await service.close() })

    it('answers 422 with a detail naming the estimator, and keeps serving /predict', async () => {
      const res = await request(service.app).post('/explain').send({ text: 'a wonderful film' }).expect(422)
      expect(res.body).to.deep.equal({ detail: "MLPClassifier: a neural network's hidden layers mix the words; explanations are defined for linear models, naive Bayes and tree models (TreeSHAP)" })
      await request(service.app).post('/predict').send({ text: 'a wonderful film' }).expect(200)
    })
  })
})
