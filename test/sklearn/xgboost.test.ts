import { expect } from 'chai'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { ServiceError } from '../../src/errors.js'
import { readPickleFile } from '../../src/pickle/read-pickle-file.js'
import { readUbjson, type UbjValue } from '../../src/pickle/ubjson.js'
import { PyByteArray, PyObject } from '../../src/pickle/values.js'
import { BoosterRow, boosterLeaves, boosterMargins, readBooster, type BoosterState } from '../../src/sklearn/classifiers/xgboost.js'
import { glibcLogf } from '../../src/sklearn/float32.js'
import { createPredictor, decodeModel, loadModel } from '../../src/sklearn/load-model.js'
import { buildEstimator } from '../../src/sklearn/registry.js'
import { shareState } from '../../src/sklearn/shared-state.js'
import { serviceErrorOf } from '../helpers/errors.js'
import { expectParity, modelPathsOf, readExpected, type ExpectedCase } from '../helpers/parity.js'
import { FIXTURES } from '../helpers/paths.js'

const DIR = path.join(FIXTURES, 'xgboost')
const VERSION_DIR = path.join(DIR, '1.7.4')
const readTexts = (file: string): string[] => (JSON.parse(readFileSync(file, 'utf8')) as { texts: string[] }).texts
// The estimators' texts (hard cases, long texts), then 100 corpus texts.
const TEXTS = [...readTexts(path.join(FIXTURES, 'estimators', 'texts.json')), ...readTexts(path.join(DIR, 'texts.json'))]
const CASES = readdirSync(VERSION_DIR).filter(name => name !== 'refused' && statSync(path.join(VERSION_DIR, name)).isDirectory()).sort()

interface XgbExpected extends ExpectedCase {
  margin: number[][]
  apply: number[][]
  n_trees: number
}

function boosterOf (state: unknown): BoosterState {
  return (state as { booster: BoosterState }).booster
}

/** The UBJSON bytes inside a fixture's pickled Booster. */
async function handleOf (name: string): Promise<Uint8Array> {
  const model = await readPickleFile(path.join(VERSION_DIR, name, 'final_best_model.pkl')) as PyObject
  return ((model.get('_Booster') as PyObject).get('handle') as PyByteArray).bytes
}

describe('XGBClassifier as xgboost 1.7.4 pickles and runs it', () => {
  it('has the fixture cases, evaluated on hard cases, long texts and corpus texts', () => {
    expect(CASES).to.have.length(7)
    expect(TEXTS).to.have.length(197)
    expect(TEXTS.some(t => [...t].length === 10000)).to.equal(true)
  })

  for (const name of CASES) {
    const dir = path.join(VERSION_DIR, name)
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
          expect(Array.from(boosterLeaves(booster, row)), where).to.deep.equal(expected.apply[i])
          expect(Array.from(boosterMargins(booster, row)), where).to.deep.equal(expected.margin[i])
          row.clear()
        })
      })
    })
  }

  it('predicts the same from state moved into shared memory, as worker threads hold it', async () => {
    const dir = path.join(VERSION_DIR, 'multi-softprob')
    const expected = readExpected(dir) as XgbExpected
    const { state } = await decodeModel(modelPathsOf(dir, expected))
    const shared = shareState(state)
    expect(shared.bytes).to.be.greaterThan(0)
    expectParity(createPredictor(shared.state), expected, TEXTS)
  })

  it('uses only the rounds up to best_iteration after early stopping', async () => {
    const expected = readExpected(path.join(VERSION_DIR, 'early-stopping')) as XgbExpected
    const { state } = await decodeModel(modelPathsOf(path.join(VERSION_DIR, 'early-stopping'), expected))
    expect(boosterOf(state.classifier).treeGroup.length).to.be.below(expected.n_trees)
  })

  it("computes the base margin with glibc's logf, bit for bit (600 inputs, 300 where a correctly rounded log differs)", () => {
    const { x, logf } = JSON.parse(readFileSync(path.join(DIR, 'glibc-logf.json'), 'utf8')) as { x: number[], logf: number[] }
    expect(x).to.have.length(600)
    expect(x.map(glibcLogf)).to.deep.equal(logf)
    expect(x.filter((v, i) => Math.fround(Math.log(v)) !== logf[i])).to.have.length(300)
  })
})

describe('XGBClassifier models that are refused at load, in one line naming the file', () => {
  const refusedDir = path.join(VERSION_DIR, 'refused')
  const cases: Array<[string, RegExp]> = [
    ['dart.pkl', /booster 'dart' is not supported/],
    ['gblinear.pkl', /booster 'gblinear' is not supported/],
    ['logitraw.pkl', /objective 'binary:logitraw' is not supported/]
  ]
  for (const [file, message] of cases) {
    it(file, async () => {
      const model = path.join(refusedDir, file)
      const err = await serviceErrorOf(async () => await loadModel({ model, vectorizers: [path.join(refusedDir, 'tfidf_vectorizer.pkl')] }))
      expect(err.code).to.equal('ERR_MODEL_UNSUPPORTED')
      expect(err.file).to.equal(model)
      expect(err.message).to.match(message)
      expect(err.message).to.not.contain('\n')
    })
  }
})

describe('reading a Booster document', () => {
  /** A fresh decoded copy of a fixture's booster, changed by `edit`, then read. */
  async function readEdited (name: string, edit: (model: Map<string, UbjValue>) => void, best?: number): Promise<ServiceError | BoosterState> {
    const doc = readUbjson(await handleOf(name)) as Map<string, UbjValue>
    edit(doc.get('Model') as Map<string, UbjValue>)
    try {
      return readBooster(doc, best, Number.NaN).booster
    } catch (err) {
      if (err instanceof ServiceError) return err
      throw err
    }
  }
  const learner = (model: Map<string, UbjValue>): Map<string, UbjValue> => model.get('learner') as Map<string, UbjValue>
  const gbModel = (model: Map<string, UbjValue>): Map<string, UbjValue> => (learner(model).get('gradient_booster') as Map<string, UbjValue>).get('model') as Map<string, UbjValue>
  const tree0 = (model: Map<string, UbjValue>): Map<string, UbjValue> => (gbModel(model).get('trees') as Array<Map<string, UbjValue>>)[0]!

  async function expectRefused (edit: (model: Map<string, UbjValue>) => void, code: string, message: RegExp, best?: number): Promise<void> {
    const out = await readEdited('binary-logistic', edit, best)
    expect(out).to.be.instanceOf(ServiceError)
    expect((out as ServiceError).code).to.equal(code)
    expect((out as ServiceError).message).to.match(message)
  }

  it('reads the untouched document', async () => {
    const booster = await readEdited('binary-logistic', () => {})
    expect(booster).to.not.be.instanceOf(ServiceError)
    expect((booster as BoosterState).treeGroup.length).to.equal(40)
  })

  it('refuses other xgboost versions, naming the version', async () => {
    await expectRefused(model => { model.set('version', [3, 1, 2]) }, 'ERR_MODEL_UNSUPPORTED', /written by xgboost 3\.1\.2 is not supported: tfidf-serve reproduces xgboost 1\.7, 2\.0, 2\.1, 3\.0 and 3\.2 exactly .*; save the model with one of those, e\.g\. train it, or load it and pickle it again, under pip install .xgboost==3\.2\.\*.$/)
  })

  it('refuses categorical splits', async () => {
    await expectRefused(model => { (tree0(model).get('split_type') as Uint8Array)[0] = 1 }, 'ERR_MODEL_UNSUPPORTED', /trees\[0\] has categorical splits/)
  })

  it('refuses feature names, as xgboost refuses TF-IDF rows for such a model', async () => {
    await expectRefused(model => { learner(model).set('feature_names', ['a']) }, 'ERR_MODEL_UNSUPPORTED', /feature names/)
  })

  it('refuses a right child that is not the left child + 1', async () => {
    await expectRefused(model => {
      const right = tree0(model).get('right_children') as Int32Array
      right[0] = right[0]! + 1
    }, 'ERR_MODEL_SHAPE', /trees\[0\]: node 0 has children/)
  })

  it('refuses a split on a feature the model lacks', async () => {
    await expectRefused(model => { (tree0(model).get('split_indices') as Int32Array)[0] = 300 }, 'ERR_MODEL_SHAPE', /node 0 splits on feature 300, outside 0\.\.299/)
  })

  it('refuses a node reached twice (a cycle)', async () => {
    await expectRefused(model => {
      const tree = tree0(model)
      const left = tree.get('left_children') as Int32Array
      const right = tree.get('right_children') as Int32Array
      const leaf = left.findIndex((l, i) => l === -1 && i > 2)
      left[leaf] = 1
      right[leaf] = 2
    }, 'ERR_MODEL_SHAPE', /is reached twice/)
  })

  it('refuses a best_iteration past the trees', async () => {
    await expectRefused(() => {}, 'ERR_MODEL_SHAPE', /best_iteration asks for 41 trees, the booster has 40/, 40)
  })

  it('refuses a tree array whose length differs from num_nodes', async () => {
    await expectRefused(model => { tree0(model).set('split_conditions', new Float32Array(2)) }, 'ERR_MODEL_SHAPE', /split_conditions has 2 items/)
  })

  it('meets 3,000 mutations of real booster bytes with a value or a ServiceError', async () => {
    const bytes = await handleOf('multi-softmax')
    let state = 12345
    const rand = (n: number): number => { state = (state * 1103515245 + 12345) % 2 ** 31; return state % n }
    let errors = 0
    for (let i = 0; i < 3000; i++) {
      const mutated = bytes.slice()
      const kind = rand(3)
      if (kind === 0) for (let k = 0; k < 4; k++) mutated[rand(mutated.length)] = rand(256)
      const input = kind === 1 ? mutated.subarray(0, rand(mutated.length)) : kind === 2 ? mutated.subarray(rand(64)) : mutated
      try {
        const doc = readUbjson(input)
        if (doc instanceof Map) readBooster(doc, undefined, Number.NaN)
      } catch (err) {
        if (!(err instanceof ServiceError)) throw new Error(`mutation ${i}: ${err instanceof Error ? err.stack ?? err.message : String(err)}`)
        errors++
      }
    }
    expect(errors).to.be.greaterThan(1000)
  })
})

describe('XGBClassifier records that are refused', () => {
  it('an unfitted classifier, or one whose Booster lost its model', async () => {
    const file = path.join(VERSION_DIR, 'binary-logistic', 'final_best_model.pkl')
    const model = await readPickleFile(file) as PyObject
    ;(model.get('_Booster') as PyObject).setState(new Map([['handle', null]]))
    expect(() => buildEstimator('classifier', model)).to.throw(/XGBClassifier\._Booster\.handle is None: is it fitted\?/)
    ;(model.state as Map<string, unknown>).delete('_Booster')
    expect(() => buildEstimator('classifier', model)).to.throw(/XGBClassifier has no '_Booster': is it fitted\?/)
  })
})
