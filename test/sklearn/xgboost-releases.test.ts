import { expect } from 'chai'
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { readUbjson, type UbjValue } from '../../src/pickle/ubjson.js'
import { type PyByteArray, PyObject } from '../../src/pickle/values.js'
import { BoosterRow, boosterLeaves, boosterMargins, readBooster, type BoosterState } from '../../src/sklearn/classifiers/xgboost.js'
import { baseMarginsOf, releaseOf } from '../../src/sklearn/classifiers/xgboost-releases.js'
import { glibcLogf } from '../../src/sklearn/float32.js'
import { createPredictor, decodeModel, loadModel } from '../../src/sklearn/load-model.js'
import { shareState } from '../../src/sklearn/shared-state.js'
import { buildEstimator, createEstimator } from '../../src/sklearn/registry.js'
import { readPickleFile } from '../../src/pickle/read-pickle-file.js'
import { serviceErrorOf } from '../helpers/errors.js'
import { expectParity, modelPathsOf, readExpected, type ExpectedCase } from '../helpers/parity.js'
import { FIXTURES } from '../helpers/paths.js'
import { needShared } from '../helpers/shared-data.js'

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
  const dir = needShared(`wild/${pair}`)
  interface WildExpected { n_features: number, classes: string[], predict: string[], predict_proba: number[][], margin: number[][], rows: Array<{ dense: number[] } | { indices: number[], values: number[] }> }

  it('reads its booster and answers what xgboost 3.0.0 answers, bit for bit, on dense and sparse rows of its 482 columns', async () => {
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

  it('as a pair is refused at load: the app built its own 482 columns, not the vectorizer\'s 8,000', async () => {
    const model = path.join(dir, 'xgb_fraud_detection_model.pkl')
    const err = await serviceErrorOf(async () => await loadModel({ model, vectorizers: [path.join(dir, 'tfidf_vectorizer.pkl')] }))
    expect(err.code).to.equal('ERR_MODEL_SHAPE')
    expect(err.message).to.equal(`the vectorizer (TfidfVectorizer) has 8000 features but the classifier expects 482 in ${model}`)
  })
})

describe('base_score by release (xgboost-releases.ts)', () => {
  const logit = (b: number): number => -glibcLogf(Math.fround(Math.fround(1 / Math.fround(b)) - 1))

  it('admits the release lines with fixtures, patch releases alike, and refuses the others saying what to do', () => {
    expect(['1.7.6', '2.0.0', '2.1.4', '3.0.5', '3.2.0'].map(v => releaseOf(v).checked)).to.deep.equal(['1.7.4', '2.0.3', '2.1.1', '3.0.0', '3.2.0'])
    for (const version of ['1.6.2', '3.1.0', '3.3.0', '3.4.1', '4.0.0']) {
      expect(() => releaseOf(version)).to.throw(new RegExp(`^XGBClassifier written by xgboost ${version.replace(/\./g, '\\.')} is not supported: .* under pip install 'xgboost==3\\.2\\.\\*'$`))
    }
  })

  it('up to 3.0: one float; binary takes its logit and must lie in (0, 1), the softmax objectives start every class at it', () => {
    const r = releaseOf('3.0.0')
    expect(Array.from(baseMarginsOf(r, '1.842221E-1', true, 1).margins)).to.deep.equal([Math.fround(logit(0.1842221))])
    expect(Array.from(baseMarginsOf(r, '5E-1', false, 3).margins)).to.deep.equal([0.5, 0.5, 0.5])
    expect(() => baseMarginsOf(r, '1E0', true, 1)).to.throw(/base_score 1E0 is outside \(0, 1\)/)
    expect(() => baseMarginsOf(r, '[5E-1]', true, 1)).to.throw(/not a finite number/)
  })

  it('3.2: a vector, one value standing for every class, binary clamped into [1e-6, 1 - 1e-6] before the logit', () => {
    const r = releaseOf('3.2.0')
    expect(Array.from(baseMarginsOf(r, '[-1.5E-1,2.5E-1,-1E-1]', false, 3).margins)).to.deep.equal([-0.15, 0.25, -0.1].map(Math.fround))
    expect(Array.from(baseMarginsOf(r, '[5E-1]', false, 3).margins)).to.deep.equal([0.5, 0.5, 0.5])
    expect(baseMarginsOf(r, '[0E0]', true, 1).margins[0]).to.equal(Math.fround(logit(1e-6)))
    expect(baseMarginsOf(r, '[1E0]', true, 1).margins[0]).to.equal(Math.fround(logit(Math.fround(1 - Math.fround(1e-6)))))
    expect(() => baseMarginsOf(r, '[1E-1,2E-1]', false, 3)).to.throw(/has 2 values for 3 margins/)
    expect(() => baseMarginsOf(r, '5E-1', true, 1)).to.throw(/not the array xgboost 3\.2 writes/)
    expect(() => baseMarginsOf(r, '[1.5E0]', true, 1)).to.throw(/outside \[0, 1\]/)
  })
})

describe('XGBClassifier 2.x/3.x records that are refused', () => {
  const file = path.join(DIR, '3.0.0', 'binary-estimated', 'final_best_model.pkl')

  it("a wrapper set to predict on a GPU (device 'cuda')", async () => {
    const model = await readPickleFile(file) as PyObject
    ;(model.state as Map<string, unknown>).set('device', 'cuda')
    expect(() => buildEstimator('classifier', model)).to.throw(/^XGBClassifier\.device is 'cuda': predictions on a GPU are not checked here; call set_params\(device='cpu'\) and save the model again$/)
  })

  it("best_iteration from the learner's attributes: past the rounds refused; rounds that do not add up to the trees refused", async () => {
    const model = await readPickleFile(file) as PyObject
    const booster = model.get('_Booster') as PyObject
    const doc = readUbjson((booster.get('handle') as PyByteArray).bytes) as Map<string, UbjValue>
    const learner = (doc.get('Model') as Map<string, UbjValue>).get('learner') as Map<string, UbjValue>
    const attributes = learner.get('attributes') as Map<string, UbjValue>
    attributes.set('best_iteration', '30')
    expect(() => readBooster(doc, undefined, Number.NaN)).to.throw(/best_iteration 30 asks for 31 rounds, the booster has 30/)
    attributes.set('best_iteration', '4')
    expect(readBooster(doc, undefined, Number.NaN).booster.treeGroup.length).to.equal(5)
    // A Python attribute is 1.7's, never read for a 2.0+ file.
    expect(readBooster(doc, 29, Number.NaN).booster.treeGroup.length).to.equal(5)
    const gbModel = (learner.get('gradient_booster') as Map<string, UbjValue>).get('model') as Map<string, UbjValue>
    ;(gbModel.get('iteration_indptr') as Int32Array)[30] = 29
    expect(() => readBooster(doc, undefined, Number.NaN)).to.throw(/iteration_indptr is not 0, \.\.\., 30 rising/)
  })
})
