import { expect } from 'chai'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { loadModel } from '../../src/sklearn/load-model.js'
import { FIXTURES } from '../helpers/paths.js'
import { expectParity, modelPathsOf, readExpected } from '../helpers/parity.js'

const DIR = path.join(FIXTURES, 'sklearn')

const TEXTS = (JSON.parse(readFileSync(path.join(DIR, 'texts.json'), 'utf8')) as { texts: string[] }).texts
const CASES = readdirSync(DIR).filter(name => statSync(path.join(DIR, name)).isDirectory()).sort()

describe('parity with scikit-learn on fixtures it trained', () => {
  it(`evaluates ${TEXTS.length} texts, hard cases included`, () => {
    expect(TEXTS.length).to.be.at.least(300)
    expect(TEXTS.some(t => [...t].length === 10000)).to.equal(true)
    expect(TEXTS.some(t => [...t].length === 5000)).to.equal(true)
    expect(CASES.length).to.be.at.least(30)
  })

  for (const name of CASES) {
    const dir = path.join(DIR, name)
    const expected = readExpected(dir)
    it(`${name}: labels equal, probabilities and decisions within 1e-9 (${expected.estimator}; ${expected.note})`, async () => {
      const { predictor } = await loadModel(modelPathsOf(dir, expected))
      expect(predictor.info.confidence).to.equal(expected.predict_proba === null ? 'decision_function' : 'predict_proba')
      expectParity(predictor, expected, TEXTS)
    })
  }
})
