import { expect } from 'chai'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { loadModel } from '../../src/sklearn/load-model.js'
import { FIXTURES } from '../helpers/paths.js'
import { expectClose } from '../helpers/close.js'

const DIR = path.join(FIXTURES, 'sklearn')

interface Expected {
  case: string
  note: string
  files: string[]
  estimator: string
  classes: string[]
  predict: string[]
  predict_proba: number[][] | null
  decision_function: number[][] | null
}

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
    const expected = JSON.parse(readFileSync(path.join(DIR, name, 'expected.json'), 'utf8')) as Expected
    it(`${name}: labels equal, probabilities and decisions within 1e-9 (${expected.estimator}; ${expected.note})`, async () => {
      const files = expected.files.map(f => path.join(DIR, name, f))
      const { predictor } = await loadModel({ model: files[files.length - 1]!, vectorizers: files.slice(0, -1) })
      expect(predictor.classes).to.deep.equal(expected.classes)
      expect(predictor.info.confidence).to.equal(expected.predict_proba === null ? 'decision_function' : 'predict_proba')
      TEXTS.forEach((text, i) => {
        const p = predictor.predict(text)
        const where = `text ${i} ${JSON.stringify(text.slice(0, 40))}`
        expect(p.label, where).to.equal(expected.predict[i])
        if (expected.predict_proba === null) expect(p.proba, where).to.equal(undefined)
        else expectClose(p.proba!, expected.predict_proba[i]!, 1e-9, where)
        if (expected.decision_function === null) expect(p.decision, where).to.equal(undefined)
        else expectClose(p.decision!, expected.decision_function[i]!, 1e-9, where)
      })
    })
  }
})
