import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { Predictor } from '../../src/sklearn/predictor.js'
import { expectClose } from './close.js'

/** What test/fixtures/*\/generate.py records for one case. */
export interface ExpectedCase {
  case: string
  note: string
  files: string[]
  sklearn: string
  estimator: string
  classes: string[]
  predict: string[]
  predict_proba: number[][] | null
  decision_function: number[][] | null
  /** Leaf ids per text, one per tree (tree models only). */
  apply?: number[][] | null
}

export function readExpected (dir: string): ExpectedCase {
  return JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as ExpectedCase
}

/** The case's files as loadModel takes them: the last is the model, the others its vectorizer files. */
export function modelPathsOf (dir: string, expected: ExpectedCase): { model: string, vectorizers: string[] } {
  const files = expected.files.map(f => path.join(dir, f))
  return { model: files[files.length - 1]!, vectorizers: files.slice(0, -1) }
}

/** Labels equal, probabilities and decision values within 1e-9, on every text. */
export function expectParity (predictor: Predictor, expected: ExpectedCase, texts: readonly string[]): void {
  expect(predictor.classes).to.deep.equal(expected.classes)
  if (expected.predict_proba !== null) expect(predictor.info.confidence).to.equal('predict_proba')
  texts.forEach((text, i) => {
    const p = predictor.predict(text)
    const where = `text ${i} ${JSON.stringify(text.slice(0, 40))}`
    expect(p.label, where).to.equal(expected.predict[i])
    if (expected.predict_proba === null) expect(p.proba, where).to.equal(undefined)
    else expectClose(p.proba!, expected.predict_proba[i]!, 1e-9, where)
    if (expected.decision_function === null) expect(p.decision, where).to.equal(undefined)
    else expectClose(p.decision!, expected.decision_function[i]!, 1e-9, where)
  })
}
