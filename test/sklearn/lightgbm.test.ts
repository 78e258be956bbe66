import { expect } from 'chai'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { ServiceError } from '../../src/errors.js'
import { readPickleFile } from '../../src/pickle/read-pickle-file.js'
import { PyObject } from '../../src/pickle/values.js'
import { rawScores } from '../../src/sklearn/classifiers/lightgbm.js'
import { clearRow, loadRow, treeLeaf } from '../../src/sklearn/classifiers/lightgbm-trees.js'
import { lightgbmAtof, parseModelText, type LightGbmModel } from '../../src/sklearn/classifiers/lightgbm-model-text.js'
import { createPredictor, decodeModel, loadModel } from '../../src/sklearn/load-model.js'
import { buildEstimator, createEstimator } from '../../src/sklearn/registry.js'
import { shareState } from '../../src/sklearn/shared-state.js'
import { denseRow, type SparseRow } from '../../src/sklearn/sparse-row.js'
import { expectClose } from '../helpers/close.js'
import { serviceErrorOf } from '../helpers/errors.js'
import { FIXTURES } from '../helpers/paths.js'
import { errorOf, stateOf } from '../helpers/records.js'

const DIR = path.join(FIXTURES, 'lightgbm')
const TEXTS = (JSON.parse(readFileSync(path.join(FIXTURES, 'estimators', 'texts.json'), 'utf8')) as { texts: string[] }).texts

/** A row fed straight to the classifier by generate.py, and what LightGBM answered. */
interface Probe {
  dense: boolean
  indices: number[]
  /** Doubles as strings (repr, 'NaN', 'Infinity'), so JSON carries every value. */
  values: string[]
  raw: string[]
  leaves: number[]
}

/** What test/fixtures/lightgbm/generate.py records for one case. */
interface LightGbmCase {
  case: string
  note: string
  files: string[]
  lightgbm: string
  estimator: string
  corpus_texts: string[]
  classes: string[]
  predict: string[]
  predict_proba: number[][]
  /** Raw scores (a Booster's raw_score, LGBMClassifier's decision_function); an ensemble's own, or null. */
  decision_function: number[][] | null
  /** LightGBM's own outputs only: null for a scikit-learn ensemble holding LGBMClassifiers. */
  apply: number[][] | null
  best_iteration?: number
  num_trees?: number
  probes: Probe[] | null
}

const CASES = readdirSync(DIR).filter(n => n !== 'refused' && statSync(path.join(DIR, n)).isDirectory()).sort()

function readCase (name: string): LightGbmCase {
  return JSON.parse(readFileSync(path.join(DIR, name, 'expected.json'), 'utf8')) as LightGbmCase
}

function pathsOf (c: LightGbmCase): { model: string, vectorizers: string[] } {
  const files = c.files.map(f => path.join(DIR, c.case, f))
  return { model: files[files.length - 1]!, vectorizers: files.slice(0, -1) }
}

/** The model inside a decoded classifier state. */
function modelOf (state: unknown): LightGbmModel {
  return (state as { model: LightGbmModel }).model
}

/** Leaf per tree and raw scores for one row, as the classifier computes them. */
function walk (model: LightGbmModel, row: SparseRow): { leaves: number[], raw: number[] } {
  const x = new Float64Array(model.nFeatures)
  const set = loadRow(x, row)
  const leaves = Array.from({ length: model.iterations * model.outputs }, (_, t) => treeLeaf(model, t, x))
  const raw = Array.from(rawScores(model, x))
  clearRow(x, set)
  expect(x.every(v => v === 0)).to.equal(true)
  return { leaves, raw }
}

/** The evaluation texts of a case: the estimator fixtures' texts, then 100 of its corpus. */
function allTexts (c: LightGbmCase): string[] {
  return [...TEXTS, ...c.corpus_texts]
}

function probeRow (probe: Probe, nFeatures: number): SparseRow {
  const values = probe.values.map(Number)
  if (!probe.dense) return { indices: Int32Array.from(probe.indices), values: Float64Array.from(values), float32: false }
  const dense = new Float64Array(nFeatures)
  probe.indices.forEach((j, e) => { dense[j] = values[e]! })
  return denseRow(dense)
}

describe('LightGBM classifiers as lightgbm 4.7.0 computes them (test/fixtures/lightgbm)', () => {
  it('has fixtures of both classes, every objective served, rf, early stopping and two ensembles', () => {
    const cases = CASES.map(readCase)
    expect(cases.map(c => c.estimator)).to.include.members(['Booster', 'LGBMClassifier', 'CalibratedClassifierCV', 'VotingClassifier'])
    expect(cases.every(c => c.lightgbm === '4.7.0')).to.equal(true)
    expect(cases.length).to.equal(9)
  })

  for (const name of CASES) {
    const expected = readCase(name)
    const texts = allTexts(expected)

    context(`${name} (${expected.note})`, () => {
      it(`gives equal labels, probabilities within 1e-9${expected.apply === null ? ' and decision values within 1e-9' : ' and the same raw scores bit for bit'}`, async () => {
        const { predictor } = await loadModel(pathsOf(expected))
        expect(predictor.info.classifier).to.equal(expected.estimator)
        expect(predictor.classes).to.deep.equal(expected.classes)
        expect(predictor.info.confidence).to.equal('predict_proba')
        texts.forEach((text, i) => {
          const p = predictor.predict(text)
          const where = `text ${i} ${JSON.stringify(text.slice(0, 40))}`
          expect(p.label, where).to.equal(expected.predict[i])
          expectClose(p.proba!, expected.predict_proba[i]!, 1e-9, where)
          if (expected.decision_function === null) expect(p.decision, where).to.equal(undefined)
          else if (expected.apply === null) expectClose(p.decision!, expected.decision_function[i]!, 1e-9, where)
          else expect(Array.from(p.decision!), where).to.deep.equal(expected.decision_function[i])
        })
      })

      if (expected.apply === null) return
      const apply = expected.apply
      const probes = expected.probes!

      it("reaches LightGBM's leaf (pred_leaf) in every tree for every text", async () => {
        const { state } = await decodeModel(pathsOf(expected))
        const model = modelOf(state.classifier)
        const predictor = createPredictor(state)
        expect(model.iterations * model.outputs).to.equal(apply[0]!.length)
        texts.forEach((text, i) => {
          expect(walk(model, predictor.transform(text)).leaves, `text ${i}`).to.deep.equal(apply[i])
        })
      })

      it("follows NumericalDecision on rows of 0, -0, 1e-35f and neighbours, NaN, inf and every threshold +-1 ulp, sparse and dense", async () => {
        const { state } = await decodeModel(pathsOf(expected))
        const model = modelOf(state.classifier)
        expect(probes.filter(p => p.dense).length).to.equal(20)
        probes.forEach((probe, i) => {
          const got = walk(model, probeRow(probe, model.nFeatures))
          const where = `probe ${i}${probe.dense ? ' (dense)' : ''}`
          expect(got.leaves, where).to.deep.equal(probe.leaves)
          expect(got.raw, where).to.deep.equal(probe.raw.map(Number))
        })
      })
    })
  }

  it("stops at the Booster's best_iteration, as its predict does (14 of the 20 iterations kept)", async () => {
    const expected = readCase('booster-binary')
    const model = modelOf((await decodeModel(pathsOf(expected))).state.classifier)
    expect([model.iterations, model.storedIterations]).to.deep.equal([expected.best_iteration, expected.num_trees])
    expect(model.iterations).to.be.below(model.storedIterations)
  })

  it('has no decision_function for an LGBMClassifier written before lightgbm 4.7 (its text lacks gpu_device_id_list)', async () => {
    const clf = await readPickleFile(path.join(DIR, 'lgbm-binary', 'final_best_model.pkl')) as PyObject
    const booster = stateOf(clf.get('_Booster') as PyObject)
    booster.set('_handle', (booster.get('_handle') as string).replace(/^\[gpu_device_id_list: .*\]\n/m, ''))
    const classifier = createEstimator('classifier', buildEstimator('classifier', clf))
    expect(classifier.hasDecision).to.equal(false)
    const row = { indices: new Int32Array(0), values: new Float64Array(0), float32: false }
    expect(classifier.score(row).decision).to.equal(undefined)
    expect(classifier.score(row).proba!.length).to.equal(2)
  })

  it('keeps its state as plain data: shared memory gives the same answers', async () => {
    const expected = readCase('lgbm-multiclass-pipeline')
    const { state } = await decodeModel(pathsOf(expected))
    const shared = createPredictor(shareState(state).state)
    allTexts(expected).forEach((text, i) => expect(shared.predict(text).label, `text ${i}`).to.equal(expected.predict[i]))
  })
})

describe("lightgbmAtof: objective parameters read as LightGBM's Common::Atof reads them", () => {
  // Each expected value printed (%.17g) by LightGBM's own Common::Atof, compiled from
  // include/LightGBM/utils/common.h: not always the correctly rounded double.
  const CASES: ReadonlyArray<readonly [string, number]> = [
    ['0.7', 0.7], ['1.23457', 1.23457], ['1', 1], ['2e-3', 0.002], ['0.3', 0.3], ['1.9', 1.9], ['7e-05', 7e-5],
    ['1.5e+20', 1.5e20], ['1.1e-5', 1.1000000000000001e-05], ['1e-300', 9.9999999999999936e-301],
    ['5e-324', 4.9999999999999966e-308], ['1e400', 1.0000000000000006e+308], ['-inf', -1e308]
  ]
  for (const [text, value] of CASES) {
    it(`reads '${text}' as ${value}`, () => expect(lightgbmAtof(text, 'sigmoid')).to.equal(value))
  }
  it("reads 'nan' as NaN and refuses a word it does not know", () => {
    expect(lightgbmAtof('nan', 'sigmoid')).to.be.NaN
    expect(errorOf(() => lightgbmAtof('abc', 'sigmoid')).code).to.equal('ERR_MODEL_UNSUPPORTED')
  })
})

describe('LightGBM models tfidf-serve refuses, in one line naming the reason', () => {
  const REFUSED = path.join(DIR, 'refused')
  const vectorizers = [path.join(REFUSED, 'tfidf_vectorizer.pkl')]
  const refusals: ReadonlyArray<readonly [string, RegExp]> = [
    ['categorical.pkl', /Booster tree \d+ has categorical splits: LightGBM models with categorical features are not supported/],
    ['linear-tree.pkl', /Booster tree 0 is a linear tree \(linear_tree=True\): not supported/],
    ['regression.pkl', /Booster has the objective 'regression', not a classification objective tfidf-serve serves \(binary, cross_entropy, multiclass, multiclassova\)/],
    ['pred-early-stop.pkl', /LGBMClassifier has pred_early_stop=True/]
  ]
  for (const [file, message] of refusals) {
    it(`refuses ${file}`, async () => {
      const err = await serviceErrorOf(async () => await loadModel({ model: path.join(REFUSED, file), vectorizers }))
      expect(err.code).to.equal('ERR_MODEL_UNSUPPORTED')
      expect(err.message).to.match(message)
      expect(err.message).to.contain(file)
      expect(err.message).to.not.contain('\n')
    })
  }

  /** The fixture Booster with its model text changed by `edit`. */
  async function editedBooster (edit: (text: string) => string): Promise<PyObject> {
    const booster = await readPickleFile(path.join(DIR, 'booster-binary', 'booster.pkl')) as PyObject
    const state = stateOf(booster)
    state.set('_handle', edit(state.get('_handle') as string))
    return booster
  }

  const edits: ReadonlyArray<readonly [string, (text: string) => string, string, RegExp]> = [
    ['a custom objective', t => t.replace('objective=binary sigmoid:1', 'objective=custom'), 'ERR_MODEL_UNSUPPORTED', /custom objective: LightGBM answers raw scores/],
    ['no objective', t => t.replace('objective=binary sigmoid:1\n', ''), 'ERR_MODEL_UNSUPPORTED', /has no objective/],
    ['a ranking objective', t => t.replace('objective=binary sigmoid:1', 'objective=lambdarank'), 'ERR_MODEL_UNSUPPORTED', /the objective 'lambdarank'/],
    ['a sigmoid of 0', t => t.replace('sigmoid:1', 'sigmoid:0'), 'ERR_MODEL_UNSUPPORTED', /needs a sigmoid parameter above 0/],
    ['a child pointing back up the tree', t => t.replace(/left_child=1 /, 'left_child=0 '), 'ERR_MODEL_SHAPE', /tree 0 node 0 has child node 0, which does not come after it/],
    ['a split on a feature the model lacks', t => t.replace(/split_feature=\d+ /, 'split_feature=300 '), 'ERR_MODEL_SHAPE', /tree 0\.split_feature\[0\] is '300'/],
    ['a leaf count that does not fit', t => t.replace('num_leaves=20', 'num_leaves=19'), 'ERR_MODEL_SHAPE', /tree 0\.leaf_value has 20 values, expected 19/],
    ['a categorical decision type', t => t.replace(/decision_type=\d+ /, 'decision_type=1 '), 'ERR_MODEL_UNSUPPORTED', /tree 0 node 0 is a categorical split/],
    ['a threshold that is not a number', t => t.replace(/threshold=[^ ]+ /, 'threshold=0x1p3 '), 'ERR_MODEL_SHAPE', /tree 0\.threshold\[0\] is '0x1p3'/],
    ['a text that is not a model', () => 'hello', 'ERR_MODEL_SHAPE', /does not hold a LightGBM model text/],
    ['trees missing for a whole iteration', t => t.replace('num_tree_per_iteration=1', 'num_tree_per_iteration=3').replace('num_class=1', 'num_class=3').replace('objective=binary sigmoid:1', 'objective=multiclass num_class:3'), 'ERR_MODEL_SHAPE', /holds 20 trees, not a multiple of 3 per iteration/]
  ]
  for (const [what, edit, code, message] of edits) {
    it(`refuses a Booster with ${what}`, async () => {
      const booster = await editedBooster(edit)
      const refused = errorOf(() => buildEstimator('classifier', booster))
      expect(refused.code).to.equal(code)
      expect(refused.message).to.match(message)
      // The untouched model still builds afterwards: nothing is left half-read.
      expect(buildEstimator('classifier', await editedBooster(t => t)).type).to.equal('lightgbm')
    })
  }

  it('refuses an LGBMClassifier whose classes do not fit its Booster', async () => {
    const clf = await readPickleFile(path.join(DIR, 'lgbm-binary', 'final_best_model.pkl')) as PyObject
    const multi = await readPickleFile(path.join(DIR, 'lgbm-ova-sigmoid', 'final_best_model.pkl')) as PyObject
    stateOf(clf).set('_Booster', multi.get('_Booster'))
    const err = errorOf(() => buildEstimator('classifier', clf))
    expect(err.code).to.equal('ERR_MODEL_SHAPE')
    expect(err.message).to.match(/LGBMClassifier has 2 classes, its Booster 3 outputs \(objective multiclassova\)/)
  })
})

describe('LightGBM model texts corrupted at random', () => {
  it('either fail with a ServiceError or build a model whose every walk ends at a leaf (1,000 mutations)', async () => {
    const booster = await readPickleFile(path.join(DIR, 'lgbm-ova-sigmoid', 'final_best_model.pkl')) as PyObject
    const text = (booster.get('_Booster') as PyObject).get('_handle') as string
    let seed = 18
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed % n
    }
    const pieces = ['0', '1', '-1', '-2', '7', ' ', '\n', '=', 'Tree=', 'nan', 'inf', '1e999', '-', '.', '99999999999', 'num_leaves=', 'decision_type=']
    let built = 0
    for (let m = 0; m < 1000; m++) {
      let t = text
      for (let k = 0, edits = 1 + next(4); k < edits; k++) {
        const at = next(t.length)
        const cut = next(6)
        t = t.slice(0, at) + (next(3) === 0 ? '' : pieces[next(pieces.length)]!) + t.slice(at + cut)
      }
      let model: LightGbmModel
      try {
        model = parseModelText(t, 0, 'Booster')
      } catch (err) {
        expect(err, `mutation ${m}`).to.be.instanceOf(ServiceError)
        continue
      }
      built++
      const x = new Float64Array(model.nFeatures).map(() => next(3) === 0 ? Number.NaN : next(100) / 100)
      const raw = rawScores(model, x)
      expect(raw.length).to.equal(model.outputs)
    }
    expect(built).to.be.above(30)
  })
})
