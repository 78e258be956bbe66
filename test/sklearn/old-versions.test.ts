import { expect } from 'chai'
import path from 'node:path'
import { NdArray } from '../../src/pickle/numpy.js'
import { readPickleFile } from '../../src/pickle/read-pickle-file.js'
import { PyObject } from '../../src/pickle/values.js'
import { buildEstimator, createEstimator } from '../../src/sklearn/registry.js'
import { FIXTURES } from '../helpers/paths.js'
import { expectClose } from '../helpers/close.js'

const CASES = path.join(FIXTURES, 'estimators', '1.2.1')

/** Rows of a few nonzero features, enough to reach many leaves. */
function rows (nFeatures: number): Array<{ indices: Int32Array, values: Float64Array, float32: boolean }> {
  return Array.from({ length: 50 }, (_, i) => {
    const indices = Int32Array.from({ length: 6 }, (_, k) => (i * 37 + k * 61) % nFeatures).sort()
    return { indices, values: Float64Array.from(indices, (_, k) => ((i + k) % 5) / 10 + 0.05), float32: false }
  })
}

describe('files from scikit-learn before 0.21, whose GradientBoosting keeps its initial scores as an estimator of its own', () => {
  for (const [name, initClass] of [['gb-binary', 'LogOddsEstimator'], ['gb-multi', 'PriorProbabilityEstimator']] as const) {
    it(`a ${initClass} init_ starts from its stored scores (${name} rewritten the 0.20 way)`, async () => {
      const gb = await readPickleFile(path.join(CASES, name, 'final_best_model.pkl')) as PyObject
      const reference = createEstimator('classifier', buildEstimator('classifier', gb))
      const prior = (gb.get('init_') as PyObject).get('class_prior_') as NdArray
      const p = prior.data as Float64Array
      // What 0.20 stored: the log-odds (binary) or, for more classes, the priors themselves...
      const old = new PyObject('sklearn.ensemble.gradient_boosting', initClass)
      old.setState(new Map<string, unknown>([initClass === 'LogOddsEstimator' ? ['prior', Math.log(p[1]! / p[0]!)] : ['priors', prior]]))
      ;(gb.state as Map<string, unknown>).set('init_', old)
      const rewritten = createEstimator('classifier', buildEstimator('classifier', gb))
      for (const row of rows(reference.nFeatures)) {
        const a = reference.score(row)
        const b = rewritten.score(row)
        if (initClass === 'LogOddsEstimator') {
          // ...which for two classes is the same start as log(p / (1 - p)).
          expect(b.classIndex).to.equal(a.classIndex)
          expectClose(b.decision!, a.decision!, 1e-12, 'decision')
        } else {
          // ...and for more classes the raw priors, not their logarithms: every score moves by log p - p.
          const shift = Float64Array.from(p, v => v - Math.log(v))
          expectClose(b.decision!, a.decision!.map((d, k) => d + shift[k]!), 1e-12, 'decision')
        }
      }
    })
  }
})
