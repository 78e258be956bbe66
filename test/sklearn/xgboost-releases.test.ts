import { expect } from 'chai'
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { BoosterRow, boosterLeaves, boosterMargins, type BoosterState } from '../../src/sklearn/classifiers/xgboost.js'
import { createPredictor, decodeModel, loadModel } from '../../src/sklearn/load-model.js'
import { shareState } from '../../src/sklearn/shared-state.js'
import { buildEstimator, createEstimator } from '../../src/sklearn/registry.js'
import { readPickleFile } from '../../src/pickle/read-pickle-file.js'
import { serviceErrorOf } from '../helpers/errors.js'
import { expectParity, modelPathsOf, readExpected, type ExpectedCase } from '../helpers/parity.js'
import { FIXTURES, SHARED } from '../helpers/paths.js'

// xgboost 2.x and 3.x built from their public source (test/fixtures/xgboost/README.md).
const DIR = path.join(FIXTURES, 'xgboost')
const RELEASES = ['2.0.3', '2.1.1', '3.0.0', '3.2.0']
const readTexts = (file: string): string[] => (JSON.parse(readFileSync(file, 'utf8')) as { texts: string[] }).texts
// The estimators' texts (hard cases, long texts), then 300 corpus texts.
const TEXTS = [
  ...readTexts(path.join(FIXTURES, 'estimators', 'texts.json')),
  ...readTexts(path.join(DIR, 'texts.json')),
  ...readTexts(path.join(DIR, 'texts-more.json'))
]

interface XgbExpected extends ExpectedCase {
  xgboost: string
  margin: number[][]
  apply: number[][]
  n_trees: number
  objective: string
  stored_base_score: string
  wrapper_base_score: number | null
}

const casesOf = (dir: string): string[] => !existsSync(dir) ? [] : readdirSync(dir).filter(name => name !== 'refused' && statSync(path.join(dir, name)).isDirectory()).sort()
const boosterOf = (state: unknown): BoosterState => (state as { booster: BoosterState }).booster

/** The stored base_score as numbers: "5E-1" (up to 3.0) or "[a,b,...]" (3.1+). */
const storedValues = (text: string): number[] => text.startsWith('[') ? text.slice(1, -1).split(',').map(Number) : [Number(text)]

for (const release of RELEASES) {
  const versionDir = path.join(DIR, release)

  describe(`XGBClassifier as xgboost ${release} (built from source) pickles and runs it`, () => {
    const cases = casesOf(versionDir)

    it('has the fixture cases, made by that release, evaluated on 397 texts', () => {
      expect(cases).to.deep.equal(['binary-base-score', 'binary-estimated', 'early-stopping', 'multi-softmax', 'multi-softprob', 'parallel-trees', 'pipeline-languages'])
      expect(TEXTS).to.have.length(397)
      for (const name of cases) expect((readExpected(path.join(versionDir, name)) as XgbExpected).xgboost).to.equal(release)
    })

    for (const name of cases) {
      const dir = path.join(versionDir, name)
      const expected = readExpected(dir) as XgbExpected

      context(name, () => {
        it(`labels equal, predict_proba within 1e-9 (${expected.note})`, async () => {
          const { predictor } = await loadModel(modelPathsOf(dir, expected))
          expect(predictor.info.classifier).to.equal('XGBClassifier')
          expect(predictor.info.confidence).to.equal('predict_proba')
          expectParity(predictor, expected, TEXTS)
        })

        it("gives xgboost's float32 probabilities and margins bit for bit, every tree reaching the same leaf", async () => {
          const { state } = await decodeModel(modelPathsOf(dir, expected))
          const predictor = createPredictor(state)
          const booster = boosterOf(state.classifier)
          expect(booster.treeGroup.length).to.equal(expected.apply[0]!.length)
          const row = new BoosterRow(booster)
          TEXTS.forEach((text, i) => {
            const where = `text ${i}`
            expect(Array.from(predictor.predict(text).proba!), where).to.deep.equal(expected.predict_proba![i])
            row.load(predictor.transform(text))
            if (i < expected.apply.length) expect(Array.from(boosterLeaves(booster, row)), where).to.deep.equal(expected.apply[i])
            expect(Array.from(boosterMargins(booster, row)), where).to.deep.equal(expected.margin[i])
            row.clear()
          })
        })

        it(`reads base_score as stored (${expected.stored_base_score}, the wrapper's ${String(expected.wrapper_base_score)})`, async () => {
          const { state } = await decodeModel(modelPathsOf(dir, expected))
          const params = (state.classifier as unknown as { params: Record<string, unknown> }).params
          const values = storedValues(expected.stored_base_score)
          expect(params.xgboost).to.equal(release)
          expect(params.base_score).to.equal(values.length === 1 ? Math.fround(values[0]!) : `[${values.map(Math.fround).join(', ')}]`)
          // 2.0+ estimate it when the wrapper leaves it unset; a given one is kept.
          if (expected.wrapper_base_score !== null) expect(values).to.deep.equal([expected.wrapper_base_score])
        })
      })
    }

    it('estimates base_score from the labels when it is not given', () => {
      const stored = storedValues((readExpected(path.join(versionDir, 'binary-estimated')) as XgbExpected).stored_base_score)
      expect(stored).to.have.length(1)
      expect(stored[0]).to.be.within(0.05, 0.3).and.not.equal(0.5)
    })

    it('uses only the rounds up to best_iteration after early stopping (kept in the learner\'s attributes)', async () => {
      const dir = path.join(versionDir, 'early-stopping')
      const expected = readExpected(dir) as XgbExpected
      const { state } = await decodeModel(modelPathsOf(dir, expected))
      expect(boosterOf(state.classifier).treeGroup.length).to.be.below(expected.n_trees)
      expect((state.classifier as unknown as { params: Record<string, unknown> }).params.best_iteration).to.equal(expected.apply[0]!.length / 3 - 1)
    })

    it('predicts the same from state moved into shared memory, as worker threads hold it', async () => {
      const dir = path.join(versionDir, 'multi-softprob')
      const expected = readExpected(dir) as XgbExpected
      const { state } = await decodeModel(modelPathsOf(dir, expected))
      expectParity(createPredictor(shareState(state).state), expected, TEXTS)
    })

    it('refuses categorical splits (word counts told feature_types "c"; xgboost will not train them on TF-IDF values), in one line', async () => {
      const model = path.join(versionDir, 'refused', 'categorical-counts.pkl')
      const err = await serviceErrorOf(async () => await loadModel({ model, vectorizers: [path.join(versionDir, 'refused', 'count_vectorizer.pkl')] }))
      expect(err.code).to.equal('ERR_MODEL_UNSUPPORTED')
      expect(err.file).to.equal(model)
      expect(err.message).to.match(/^trees\[\d+\] has categorical splits, which are not supported: fitted with feature_types 'c' on word counts .*; fit without feature_types to split on the counts as numbers in /)
      expect(err.message).to.not.contain('\n')
    })

    it('refuses trees with one leaf vector for all classes (multi_strategy="multi_output_tree"), in one line naming the file', async () => {
      const model = path.join(versionDir, 'refused', 'multi-output-tree.pkl')
      const err = await serviceErrorOf(async () => await loadModel({ model, vectorizers: [path.join(versionDir, 'refused', 'tfidf_vectorizer.pkl')] }))
      expect(err.code).to.equal('ERR_MODEL_UNSUPPORTED')
      expect(err.file).to.equal(model)
      expect(err.message).to.match(/vector leaves, which are not supported/)
      expect(err.message).to.not.contain('\n')
    })
  })
}

describe('xgboost 3.1+ multi-class intercepts', () => {
  it('3.2 stores one estimated margin per class, 2.x and 3.0 one value for all', () => {
    for (const release of RELEASES) {
      const stored = (readExpected(path.join(DIR, release, 'multi-softprob')) as XgbExpected).stored_base_score
      if (release === '3.2.0') {
        const values = storedValues(stored)
        expect(values).to.have.length(4)
        // ln(share) less the mean of those logs: they sum to 0 (in float32).
        expect(Math.abs(values.reduce((a, b) => a + b, 0))).to.be.below(1e-5)
      } else {
        expect(stored).to.equal('5E-1')
      }
    }
  })
})

describe('a real-world XGBClassifier written by xgboost 3.0.0 (../shared/wild)', () => {
  const pair = '01-019akash-Fraudulent-Job-Posting-Detection'
  const dir = path.join(SHARED, 'wild', pair)
  const run = existsSync(dir) ? it : it.skip
  interface WildExpected { n_features: number, classes: string[], predict: string[], predict_proba: number[][], margin: number[][], rows: Array<{ dense: number[] } | { indices: number[], values: number[] }> }

  run('reads its booster and answers what xgboost 3.0.0 answers, bit for bit, on dense and sparse rows of its 482 columns', async () => {
    const expected = JSON.parse(readFileSync(path.join(DIR, 'wild', `${pair}.json`), 'utf8')) as WildExpected
    const state = buildEstimator('classifier', await readPickleFile(path.join(dir, 'xgb_fraud_detection_model.pkl')))
    const classifier = createEstimator('classifier', state)
    expect(classifier.params.xgboost).to.equal('3.0.0')
    expect(classifier.nFeatures).to.equal(expected.n_features)
    expect(classifier.classes).to.deep.equal(expected.classes)
    expect(new Set(expected.predict)).to.deep.equal(new Set(['0', '1']))
    expected.rows.forEach((r, i) => {
      // A dense row holds every column, zeros too (present, not missing); a sparse one only its entries.
      const row = 'dense' in r
        ? { indices: Int32Array.from(r.dense, (_, k) => k), values: Float64Array.from(r.dense), float32: false }
        : { indices: Int32Array.from(r.indices), values: Float64Array.from(r.values), float32: false }
      const scores = classifier.score(row)
      expect(expected.classes[scores.classIndex], `row ${i}`).to.equal(expected.predict[i])
      expect(Array.from(scores.proba!), `row ${i}`).to.deep.equal(expected.predict_proba[i])
      const booster = boosterOf(state)
      const x = new BoosterRow(booster)
      x.load(row)
      expect(Array.from(boosterMargins(booster, x)), `row ${i}`).to.deep.equal(expected.margin[i])
    })
  })

  run('as a pair is refused at load: the app built its own 482 columns, not the vectorizer\'s 8,000', async () => {
    const model = path.join(dir, 'xgb_fraud_detection_model.pkl')
    const err = await serviceErrorOf(async () => await loadModel({ model, vectorizers: [path.join(dir, 'tfidf_vectorizer.pkl')] }))
    expect(err.code).to.equal('ERR_MODEL_SHAPE')
    expect(err.message).to.equal(`the vectorizer (TfidfVectorizer) has 8000 features but the classifier expects 482 in ${model}`)
  })
})
