import { expect } from 'chai'
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createServedPredictor, decodeServedModel, loadServedModel } from '../../src/model/served-model.js'
import { readModelSettings } from '../../src/settings/model-settings.js'
import { BoosterRow, boosterMargins, denseBooster, denseRowsHint, denseRowsState, type BoosterState } from '../../src/sklearn/classifiers/xgboost.js'
import { createPredictor, decodeModel, loadModel } from '../../src/sklearn/load-model.js'
import { readPickleFile } from '../../src/pickle/read-pickle-file.js'
import { buildEstimator, createEstimator } from '../../src/sklearn/registry.js'
import { runCli } from '../helpers/cli.js'
import { serviceErrorOf } from '../helpers/errors.js'
import { expectParity, modelPathsOf, readExpected, type ExpectedCase } from '../helpers/parity.js'
import { FIXTURES } from '../helpers/paths.js'
import { needShared } from '../helpers/shared-data.js'

const DIR = path.join(FIXTURES, 'xgboost')
const DENSE_DIR = path.join(DIR, 'dense', '1.7.4')
const readTexts = (file: string): string[] => (JSON.parse(readFileSync(file, 'utf8')) as { texts: string[] }).texts
const TEXTS = [...readTexts(path.join(FIXTURES, 'estimators', 'texts.json')), ...readTexts(path.join(DIR, 'texts.json'))]
const CASES = readdirSync(DENSE_DIR).sort()
// The models whose splits all send a missing value right (hist, approx fitted on .toarray() rows).
const HINTED = ['dense-binary-approx', 'dense-binary-hist', 'dense-multi-softprob']

interface Answers { predict: string[], predict_proba: number[][], margin: number[][] }
interface DenseExpected extends ExpectedCase {
  margin: number[][]
  fit_on: 'dense' | 'sparse'
  sparse: Answers
  splits: number
  default_left: number
}

const boosterOf = (state: unknown): BoosterState => (state as { booster: BoosterState }).booster

/** A folder with a model-settings.json naming the case's files and the given keys of ours. */
function settingsFor (dir: string, ours: Record<string, unknown>): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'dense-rows-'))
  const file = path.join(folder, 'model-settings.json')
  const extra = { model: path.join(dir, 'final_best_model.pkl'), vectorizer: path.join(dir, 'tfidf_vectorizer.pkl'), ...ours }
  writeFileSync(file, JSON.stringify({ name: 'dense', parameters: { extra: { tfidf_serve: extra } } }))
  return file
}

describe('XGBClassifier fed dense rows (dense_rows), as xgboost 1.7.4 answers', () => {
  it('has models fitted on dense and sparse rows, binary and multi-class', () => {
    expect(CASES).to.deep.equal(['dense-binary-approx', 'dense-binary-exact', 'dense-binary-hist', 'dense-missing-one', 'dense-missing-zero', 'dense-multi-softmax', 'dense-multi-softprob', 'sparse-binary-approx', 'sparse-binary-exact', 'sparse-binary-hist'])
    expect(TEXTS).to.have.length(197)
  })

  for (const name of CASES) {
    const dir = path.join(DENSE_DIR, name)
    const expected = readExpected(dir) as DenseExpected
    const paths = modelPathsOf(dir, expected)

    context(name, () => {
      it(`with dense_rows, answers as xgboost on .toarray() rows: labels equal, predict_proba within 1e-9 (${expected.note})`, async () => {
        const { predictor } = await loadModel(paths, { denseRows: true })
        expectParity(predictor, expected, TEXTS)
      })

      it('with dense_rows, gives the float32 margins of the dense rows bit for bit', async () => {
        const { state } = await decodeModel(paths, { denseRows: true })
        const predictor = createPredictor(state, { denseRows: true })
        const booster = denseBooster(boosterOf(state.classifier))
        const row = new BoosterRow(booster)
        TEXTS.forEach((text, i) => {
          row.load(predictor.transform(text))
          expect(Array.from(boosterMargins(booster, row)), `text ${i}`).to.deep.equal(expected.margin[i])
          row.clear()
        })
      })

      it('without it, answers as xgboost on the CSR rows', async () => {
        const { predictor } = await loadModel(paths)
        expectParity(predictor, { ...expected, ...expected.sparse }, TEXTS)
      })

      const hinted = HINTED.includes(name)
      it(hinted ? 'says at load, in one line naming dense_rows, that it never saw a missing value' : 'says nothing at load about dense rows', async () => {
        const { notes } = await decodeModel(paths)
        if (!hinted) return void expect(notes).to.deep.equal([])
        expect(expected.default_left).to.equal(0)
        expect(notes).to.have.length(1)
        expect(notes[0]).to.match(new RegExp(`^XGBClassifier: all ${expected.splits} splits send a missing value right, .*"dense_rows": true`))
        expect(notes[0]).to.not.include('\n')
        expect((await decodeModel(paths, { denseRows: true })).notes).to.deep.equal([])
      })
    })
  }

  it('changes no answer where dense and sparse rows go the same way (exact: missing left, thresholds above 0; missing=0)', () => {
    for (const name of ['dense-binary-exact', 'dense-multi-softmax', 'dense-missing-zero']) {
      const expected = readExpected(path.join(DENSE_DIR, name)) as DenseExpected
      expect(expected.predict_proba, name).to.deep.equal(expected.sparse.predict_proba)
    }
  })

  it('says nothing at load for the models of every release fitted on sparse rows', async () => {
    for (const release of ['1.7.4', '2.0.3', '2.1.1', '3.0.0', '3.2.0']) {
      const versionDir = path.join(DIR, release)
      for (const name of readdirSync(versionDir).filter(n => n !== 'refused')) {
        const dir = path.join(versionDir, name)
        const { notes } = await decodeModel(modelPathsOf(dir, readExpected(dir)))
        expect(notes, `${release}/${name}`).to.deep.equal([])
      }
    }
  })

  context('the settings key', () => {
    const dir = path.join(DENSE_DIR, 'dense-binary-hist')
    const expected = readExpected(dir) as DenseExpected

    it('is read from model-settings.json and reaches the decoded model and its workers', async () => {
      const file = settingsFor(dir, { dense_rows: true })
      expect(readModelSettings(file).denseRows).to.equal(true)
      const { state, notes, app } = await decodeServedModel({ paths: modelPathsOf(dir, expected), settingsFile: file })
      expect(notes).to.deep.equal([])
      expectParity(await createServedPredictor(state, app), expected, TEXTS)
      const { predictor } = await loadServedModel({ paths: modelPathsOf(dir, expected), settingsFile: file })
      expectParity(predictor, expected, TEXTS)
    })

    it('is false when absent, and must be a boolean', async () => {
      expect(readModelSettings(settingsFor(dir, {})).denseRows).to.equal(false)
      const err = await serviceErrorOf(async () => readModelSettings(settingsFor(dir, { dense_rows: 'yes' })))
      expect(err.code).to.equal('ERR_CONFIG_INVALID')
      expect(err.message).to.include('dense_rows must be boolean')
    })

    it('is refused for a classifier that is not XGBoost', async () => {
      const logreg = path.join(FIXTURES, 'sklearn', 'logreg-binary')
      const paths = { model: path.join(logreg, 'final_best_model.pkl'), vectorizers: [path.join(logreg, 'tfidf_vectorizer.pkl')] }
      const err = await serviceErrorOf(async () => await decodeServedModel({ paths, settingsFile: settingsFor(logreg, { dense_rows: true }) }))
      expect(err.code).to.equal('ERR_CONFIG_INVALID')
      expect(err.message).to.match(/dense_rows is for an XGBClassifier.*LogisticRegression/)
    })
  })

  it('`inspect` shows the hint without the setting, and not with it', async () => {
    const dir = path.join(DENSE_DIR, 'dense-binary-hist')
    const args = ['inspect', '--model', path.join(dir, 'final_best_model.pkl'), '--vectorizer', path.join(dir, 'tfidf_vectorizer.pkl')]
    const without = JSON.parse((await runCli(args)).stdout) as { notes: string[] }
    expect(without.notes).to.have.length(1)
    expect(without.notes[0]).to.include('"dense_rows": true')
    const withIt = JSON.parse((await runCli(['inspect', '--settings', settingsFor(dir, { dense_rows: true })])).stdout) as { notes: string[] }
    expect(withIt.notes).to.deep.equal([])
  })
})

describe('dense_rows on a real-world XGBClassifier written by xgboost 3.0.0 (../shared/wild)', () => {
  const pair = '01-019akash-Fraudulent-Job-Posting-Detection'
  const file = path.join(needShared(`wild/${pair}`), 'xgb_fraud_detection_model.pkl')
  interface WildExpected { classes: string[], predict: string[], predict_proba: number[][], margin: number[][], rows: Array<{ dense: number[] } | { indices: number[], values: number[] }> }

  it("is hinted at load, and answers xgboost 3.0.0's dense rows bit for bit from their nonzero entries alone", async () => {
    const expected = JSON.parse(readFileSync(path.join(DIR, 'wild', `${pair}.json`), 'utf8')) as WildExpected
    const sparseState = buildEstimator('classifier', await readPickleFile(file))
    // Fitted on dense rows: every split sends a missing value right, so the hint fires.
    expect(denseRowsHint(sparseState)).to.match(/^XGBClassifier: all 1862 splits send a missing value right, .* at 1023 splits: if the app feeds dense rows, set "dense_rows": true/)
    const asSparse = createEstimator('classifier', sparseState)
    const state = denseRowsState(sparseState)!
    const classifier = createEstimator('classifier', state)
    const booster = denseBooster(boosterOf(state))
    let dense = 0
    expected.rows.forEach((r, i) => {
      if (!('dense' in r)) return
      dense++
      // What a sparse row of the same values holds: the nonzero entries; the setting makes the rest 0.0f.
      const indices = r.dense.flatMap((v, k) => v === 0 ? [] : [k])
      const row = { indices: Int32Array.from(indices), values: Float64Array.from(indices, k => r.dense[k]!), float32: false }
      const scores = classifier.score(row)
      // Read as a sparse row (absent = missing), not one of them gives xgboost's answer.
      expect(asSparse.score(row).proba![1], `row ${i}`).to.not.equal(expected.predict_proba[i]![1])
      expect(expected.classes[scores.classIndex], `row ${i}`).to.equal(expected.predict[i])
      expect(Array.from(scores.proba!), `row ${i}`).to.deep.equal(expected.predict_proba[i])
      const x = new BoosterRow(booster)
      x.load(row)
      expect(Array.from(boosterMargins(booster, x)), `row ${i}`).to.deep.equal(expected.margin[i])
    })
    expect(dense).to.be.greaterThan(0)
  })
})
