import { expect } from 'chai'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { loadModel } from '../../src/sklearn/load-model.js'
import { FIXTURES } from '../helpers/paths.js'
import { expectParity, modelPathsOf, readExpected } from '../helpers/parity.js'

const DIR = path.join(FIXTURES, 'estimators')
const TEXTS = (JSON.parse(readFileSync(path.join(DIR, 'texts.json'), 'utf8')) as { texts: string[] }).texts
const VERSIONS = readdirSync(DIR).filter(name => /^\d+\.\d+\.\d+$/.test(name)).sort()

const casesOf = (version: string): string[] =>
  readdirSync(path.join(DIR, version)).filter(name => !name.startsWith('_') && statSync(path.join(DIR, version, name)).isDirectory()).sort()

describe('parity with every estimator as scikit-learn 1.2.1, 1.6.1 and 1.9.1 wrote and ran it', () => {
  it('has fixtures from the three versions, on hard cases and long texts', () => {
    expect(VERSIONS).to.deep.equal(['1.2.1', '1.6.1', '1.9.1'])
    expect(TEXTS.some(t => [...t].length === 10000)).to.equal(true)
    expect(TEXTS.some(t => t.trim() === '')).to.equal(true)
  })

  for (const version of VERSIONS) {
    describe(`scikit-learn ${version}`, () => {
      for (const name of casesOf(version)) {
        const dir = path.join(DIR, version, name)
        const expected = readExpected(dir)
        it(`${name}: labels equal, probabilities and decisions within 1e-9 (${expected.note})`, async () => {
          const { predictor } = await loadModel(modelPathsOf(dir, expected))
          expect(predictor.info.classifier).to.equal(expected.estimator)
          expectParity(predictor, expected, TEXTS)
        })
      }
    })
  }
})
