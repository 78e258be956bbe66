/**
 * The families issue 18 added, through every way a user meets them: `inspect`, `predict` and
 * `explain` on the command line and POST /predict on a real service. Their exactness against
 * the libraries is tested family by family (xgboost, lightgbm, k-neighbors,
 * search-and-imblearn tests); here the answers must equal the in-process model's.
 */
import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import request from 'supertest'
import { loadModel } from '../../src/sklearn/load-model.js'
import { displayLabel } from '../../src/labels.js'
import { runCli } from '../helpers/cli.js'
import { FIXTURES } from '../helpers/paths.js'
import { startService } from '../helpers/service.js'

const TEXTS = ['free entry: win a prize now', 'a wonderful, moving film', 'dull and lifeless', 'see you at lunch tomorrow', 'ok']

/** [name, folder, whether /explain is defined for it] */
const CASES: ReadonlyArray<readonly [string, string, boolean]> = [
  ['XGBClassifier', path.join('xgboost', '1.7.4', 'binary-logistic'), true],
  ['LGBMClassifier', path.join('lightgbm', 'lgbm-binary'), true],
  ['KNeighborsClassifier', path.join('knn', '1.2.1', 'a-cosine-uniform-k5'), false],
  ['GridSearchCV (best_estimator_)', path.join('search', '1.2.1', 'grid-logreg'), true],
  ['imblearn Pipeline with SMOTE', path.join('search', '1.2.1', 'imblearn-smote'), true],
  ['joblib < 0.10 with .npy side files', path.join('search', '1.2.1', 'old-joblib-npy'), true]
]

function filesOf (folder: string): { model: string, vectorizers: string[] } {
  const dir = path.join(FIXTURES, folder)
  const files = (JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as { files: string[] }).files.map(f => path.join(dir, f))
  return { model: files[files.length - 1]!, vectorizers: files.slice(0, -1) }
}

describe('the families of issue 18 through the CLI and the service', function () {
  this.timeout(120000)

  for (const [name, folder, explainable] of CASES) {
    context(name, () => {
      const paths = filesOf(folder)
      const args = ['--model', paths.model, ...paths.vectorizers.flatMap(v => ['--vectorizer', v])]

      it('inspect describes it, predict answers as the model in process, and explain answers or refuses in one line', async () => {
        const { predictor } = await loadModel(paths)
        const expected = TEXTS.map(t => predictor.predict(t))
        const inspect = await runCli(['inspect', ...args])
        expect(inspect.code, inspect.stderr).to.equal(0)
        expect((JSON.parse(inspect.stdout) as { classifier: string }).classifier).to.equal(predictor.info.classifier)
        const predict = await runCli(['predict', '--workers', '1', ...args], TEXTS.join('\n') + '\n')
        expect(predict.code, predict.stderr).to.equal(0)
        const lines = predict.stdout.split('\n').filter(l => l !== '').map(l => JSON.parse(l) as { label: string, confidence: number })
        expect(lines.map(l => [l.label, l.confidence])).to.deep.equal(expected.map(p => [p.label, p.confidence]))
        const explain = await runCli(['explain', ...args], TEXTS[0] + '\n')
        if (explainable) {
          expect(explain.code, explain.stderr).to.equal(0)
          expect((JSON.parse(explain.stdout) as { prediction: string }).prediction).to.equal(expected[0]!.label)
        } else {
          expect(explain.code).to.equal(1)
          expect(explain.stderr).to.match(/^tfidf-serve: .*; explanations are defined for linear models, naive Bayes and tree models \(TreeSHAP\)\n$/)
        }
      })

      it('POST /predict on a real service answers the same labels', async () => {
        const { predictor } = await loadModel(paths)
        const service = await startService({ MODEL_PATH: paths.model, VECTORIZER_PATH: paths.vectorizers.join(path.delimiter), WORKERS: '1' })
        try {
          const res = await request(service.app).post('/predict').send({ texts: TEXTS }).expect(200)
          expect((res.body as { predictions: Array<{ prediction: string }> }).predictions.map(p => p.prediction)).to.deep.equal(TEXTS.map(t => displayLabel(predictor.predict(t).label)))
        } finally {
          await service.close()
        }
      })
    })
  }
})
