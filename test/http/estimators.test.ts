import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import request from 'supertest'
import { pyRound } from '../../src/http/rounding.js'
import { displayLabel } from '../../src/labels.js'
import { loadModel } from '../../src/sklearn/load-model.js'
import { FIXTURES } from '../helpers/paths.js'
import { modelPathsOf, readExpected } from '../helpers/parity.js'
import { startService } from '../helpers/service.js'

const DIR = path.join(FIXTURES, 'estimators')
const TEXTS = (JSON.parse(readFileSync(path.join(DIR, 'texts.json'), 'utf8')) as { texts: string[] }).texts.slice(0, 50)

/** One model of each family, served over HTTP as scikit-learn's files. */
const CASES: Array<[string, string]> = [
  ['1.9.1', 'svc-rbf-proba'], ['1.6.1', 'gb-multi'], ['1.2.1', 'adaboost-samme-r'], ['1.9.1', 'forest'],
  ['1.9.1', 'voting-hard'], ['1.6.1', 'stacking'], ['1.9.1', 'mlp-relu'], ['1.6.1', 'calibrated-isotonic'],
  ['1.9.1', 'union-word-char'], ['1.6.1', 'hashing-tfidf-pipeline'], ['1.9.1', 'svd-svc-rbf'], ['1.9.1', 'logreg-float32']
]

describe('the HTTP service serves every estimator family', function () {
  this.timeout(60000)
  for (const [version, name] of CASES) {
    it(`${name} (scikit-learn ${version}): scikit-learn's labels, the model's confidence, and GET / describing it`, async () => {
      const dir = path.join(DIR, version, name)
      const expected = readExpected(dir)
      const paths = modelPathsOf(dir, expected)
      const env: Record<string, string> = { MODEL_PATH: paths.model, WORKERS: '1', CACHE_SIZE: '0' }
      if (paths.vectorizers.length > 0) env.VECTORIZER_PATH = paths.vectorizers.join(path.delimiter)
      const service = await startService(env)
      try {
        const { predictor } = await loadModel(paths)
        const res = await request(service.app).post('/predict').send({ texts: TEXTS, batch_size: 16 }).expect(200)
        const predictions = (res.body as { predictions: Array<{ prediction: string, confidence: number }> }).predictions
        expect(predictions.map(p => p.prediction)).to.deep.equal(expected.predict.slice(0, TEXTS.length).map(displayLabel))
        expect(predictions.map(p => p.confidence)).to.deep.equal(TEXTS.map(t => pyRound(predictor.predict(t).confidence, 2)))
        const info = (await request(service.app).get('/').expect(200)).body as { model_info: { type: string, confidence: string, classes: string[] } }
        expect(info.model_info.type).to.equal(expected.estimator)
        expect(info.model_info.classes).to.deep.equal(expected.classes.map(displayLabel))
        expect(info.model_info.confidence).to.equal(expected.predict_proba !== null ? 'predict_proba' : expected.decision_function !== null ? 'decision_function' : 'votes')
      } finally {
        await service.close()
      }
    })
  }
})
