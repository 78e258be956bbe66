import { expect } from 'chai'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { loadModel } from '../../src/sklearn/load-model.js'
import { serviceErrorOf } from '../helpers/errors.js'
import { hasShared, needShared } from '../helpers/shared-data.js'
import { expectClose } from '../helpers/close.js'


interface Expected {
  files: Record<string, string>
  reference: boolean | null
  status: string
  estimator?: string
  texts?: string[]
  classes?: unknown[]
  predict?: unknown[]
  predict_proba?: number[][] | null
  decision_function?: Array<number[] | number> | null
  static_scan?: Record<string, { root_class: string }>
}

/** Search objects whose best_estimator_ is served (search.ts), whatever the reference tool could load. */
const SEARCH = /^sklearn\.model_selection\._search(_successive_halving)?\.(Grid|Randomized|HalvingGrid|HalvingRandom)SearchCV$/

/** Python's str() of a JSON label. */
const pyLabel = (v: unknown): string => typeof v === 'boolean' ? (v ? 'True' : 'False') : String(v)


describe('parity on real model files from public repositories (../shared/wild)', () => {
  const WILD = needShared('wild')
  const dirs = hasShared('wild') ? readdirSync(WILD).filter(d => existsSync(path.join(WILD, d, 'expected.json'))).sort() : []

  it('finds the wild pairs beside the clone', () => {
    expect(dirs.length).to.be.greaterThan(30)
  })

  for (const dir of dirs) {
    const expected = JSON.parse(readFileSync(path.join(WILD, dir, 'expected.json'), 'utf8')) as Expected
    const files = expected.files
    const model = path.join(WILD, dir, files.model ?? files.pipeline ?? files.bundle ?? '')
    const vectorizers = [files.vectorizer, files.transformer].filter((f): f is string => f !== undefined).map(f => path.join(WILD, dir, f))
    // Every pair scikit-learn could run is served; the others (refused globals, no reference) fail at load.
    if (expected.reference === true) {
      it(`${dir}: same labels, probabilities and decisions as scikit-learn (${expected.estimator ?? ''})`, async () => {
        const { predictor } = await loadModel({ model, vectorizers })
        expect(predictor.classes).to.deep.equal(expected.classes!.map(pyLabel))
        expected.texts!.forEach((text, i) => {
          const p = predictor.predict(text)
          const where = `text ${i} ${JSON.stringify(text.slice(0, 40))}`
          expect(p.label, where).to.equal(pyLabel(expected.predict![i]))
          if (expected.predict_proba != null) expectClose(p.proba!, expected.predict_proba[i]!, 1e-9, where)
          if (expected.decision_function != null) {
            const d = expected.decision_function[i]!
            expectClose(p.decision!, Array.isArray(d) ? d : [d], 1e-9, where)
          }
        })
      })
    } else if (SEARCH.test(expected.static_scan?.[path.basename(model)]?.root_class ?? '')) {
      // The reference tool could not load these (its own unpickler); a reference made with the
      // scikit-learn that wrote the file gives the same labels and decisions (issue 18).
      it(`${dir}: serves the search object's best_estimator_ (${expected.status})`, async () => {
        const { predictor } = await loadModel({ model, vectorizers })
        expect(predictor.info.search?.wrappedBy).to.match(/SearchCV$/)
      })
    } else {
      it(`${dir}: fails at load with an error naming what is unsupported (${expected.status})`, async () => {
        const err = await serviceErrorOf(async () => await loadModel({ model, vectorizers }))
        expect(err.code).to.be.oneOf(['ERR_PICKLE_GLOBAL_NOT_ALLOWED', 'ERR_MODEL_UNSUPPORTED', 'ERR_MODEL_SHAPE'])
        expect(err.message).to.match(/unsupported object '|is not a supported|is not supported|features but the classifier expects/)
        expect(err.file).to.be.a('string')
      })
    }
  }
})
