import { expect } from 'chai'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { ServiceError } from '../../src/errors.js'
import { kneighbors, type KNeighborsState } from '../../src/sklearn/classifiers/k-neighbors.js'
import { argpartition, argsort } from '../../src/sklearn/neighbors/numpy-argpartition.js'
import { decodeModel, loadModel } from '../../src/sklearn/load-model.js'
import { createEstimator } from '../../src/sklearn/registry.js'
import { expectClose } from '../helpers/close.js'
import { FIXTURES } from '../helpers/paths.js'

const DIR = path.join(FIXTURES, 'knn')
const TEXTS = (JSON.parse(readFileSync(path.join(DIR, 'texts.json'), 'utf8')) as { texts: string[] }).texts
const VERSIONS = readdirSync(DIR).filter(name => /^\d+\.\d+\.\d+$/.test(name)).sort()

/** One text's answers, as test/fixtures/knn/generate.py records them. */
interface Answer {
  predict: string
  predict_proba: number[]
  indices: number[]
  distances: number[]
}

interface KnnCase {
  case: string
  files: string[]
  classes: string[]
  text_indices: number[]
  /** scikit-learn's own error on predict, for a model it cannot run. */
  sklearn_error?: string
  /** Why scikit-learn's answers are not a function of the text (so tfidf-serve refuses the model). */
  refused?: string
  threads1?: Answer[]
  /** The answers on two OpenMP threads where they differ from one thread's. */
  threads2?: Record<string, Answer>
}

const casesOf = (version: string): string[] =>
  readdirSync(path.join(DIR, version)).filter(name => !name.startsWith('_') && statSync(path.join(DIR, version, name)).isDirectory()).sort()

function pathsOf (dir: string, expected: KnnCase): { model: string, vectorizers: string[] } {
  const files = expected.files.map(f => path.join(dir, f))
  return { model: files[files.length - 1]!, vectorizers: files.slice(0, -1) }
}

describe('numpy argpartition and argsort (portable introselect and introsort)', () => {
  it('leaves every index where numpy 1.24 leaves it, ties included', () => {
    const { cases } = JSON.parse(readFileSync(path.join(DIR, 'numpy-selection.json'), 'utf8')) as {
      cases: Array<{ values: number[], argpartition: Record<string, number[]>, argsort: number[] }>
    }
    expect(cases.length).to.be.greaterThan(50)
    for (const c of cases) {
      for (const [kth, want] of Object.entries(c.argpartition)) {
        expect([...argpartition(c.values, Number(kth))], `n=${c.values.length} kth=${kth}`).to.deep.equal(want)
      }
      expect([...argsort(c.values)], `argsort n=${c.values.length}`).to.deep.equal(c.argsort)
    }
  })
})

describe('KNeighborsClassifier on sparse rows, as scikit-learn 1.2.1, 1.6.1 and 1.9.1 compute it', () => {
  it('has fixtures from the three versions', () => {
    expect(VERSIONS).to.deep.equal(['1.2.1', '1.6.1', '1.9.1'])
  })

  for (const version of VERSIONS) {
    describe(`scikit-learn ${version}`, () => {
      for (const name of casesOf(version)) {
        const dir = path.join(DIR, version, name)
        const expected = JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as KnnCase
        if (expected.sklearn_error !== undefined || expected.refused !== undefined) {
          const why = expected.sklearn_error !== undefined ? "scikit-learn's own predict fails" : `scikit-learn's answers change during a session (${expected.refused!})`
          it(`${name}: is refused at load, as ${why}`, async () => {
            const err = await loadModel(pathsOf(dir, expected)).then(() => undefined, (e: unknown) => e)
            expect(err).to.be.instanceOf(ServiceError)
            expect((err as ServiceError).code).to.equal('ERR_MODEL_UNSUPPORTED')
          })
          continue
        }
        for (const threads of [1, 2]) {
          it(`${name}: labels, probabilities, neighbours and distances equal on ${threads} thread${threads === 1 ? '' : 's'}`, async () => {
            const paths = pathsOf(dir, expected)
            const { predictor } = await loadModel(paths)
            const { state } = await decodeModel(paths)
            const knn = { ...(state.classifier as KNeighborsState), threads }
            const classifier = createEstimator('classifier', knn)
            expect(predictor.classes).to.deep.equal(expected.classes)
            expected.text_indices.forEach((t, i) => {
              const want = (threads === 2 ? expected.threads2![String(i)] : undefined) ?? expected.threads1![i]!
              const where = `text ${t} ${JSON.stringify(TEXTS[t]!.slice(0, 40))}`
              const row = predictor.transform(TEXTS[t]!)
              const neighbors = kneighbors(knn, row)
              expect([...neighbors.indices], where).to.deep.equal(want.indices)
              expectClose(neighbors.distances, want.distances, 1e-9, where)
              const scores = classifier.score(predictor.transform(TEXTS[t]!))
              expect(expected.classes[scores.classIndex], where).to.equal(want.predict)
              expectClose(scores.proba!, want.predict_proba, 1e-9, where)
              if (threads === 1) {
                const p = predictor.predict(TEXTS[t]!)
                expect(p.label, where).to.equal(want.predict)
                expectClose(p.proba!, want.predict_proba, 1e-9, where)
              }
            })
          })
        }
      }
    })
  }
})

describe("CountVectorizer's counts in its dtype, as k-NN reads them", () => {
  interface Counts { texts: string[], vectorizers: Record<string, { dtype: string, rows: Array<{ indices: number[], values: number[] }> }> }
  const dir = path.join(DIR, '1.2.1')
  const counts = JSON.parse(readFileSync(path.join(dir, '_vectorizers', 'counts.json'), 'utf8')) as Counts
  /** A k-NN case fitted on each vectorizer file's rows. */
  const caseOf = (file: string): string => casesOf('1.2.1').find(name => {
    const expected = JSON.parse(readFileSync(path.join(dir, name, 'expected.json'), 'utf8')) as KnnCase
    return expected.files[0] === `../_vectorizers/${file}`
  })!

  it('covers int64, int32, uint8 and bool', () => {
    expect(Object.values(counts.vectorizers).map(v => v.dtype).sort()).to.deep.equal(['bool', 'int32', 'int64', 'int64', 'uint8'])
  })

  for (const [file, { dtype, rows }] of Object.entries(counts.vectorizers)) {
    it(`${file} (${dtype}): counts past the dtype's range wrap as numpy's cast does, zeros kept`, async () => {
      const name = caseOf(file)
      const { predictor } = await loadModel(pathsOf(path.join(dir, name), JSON.parse(readFileSync(path.join(dir, name, 'expected.json'), 'utf8')) as KnnCase))
      counts.texts.forEach((text, i) => {
        const row = predictor.transform(text)
        expect({ indices: [...row.indices], values: [...row.values] }, `${file} text ${i}`).to.deep.equal(rows[i])
      })
    })
  }
})
