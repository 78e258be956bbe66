/**
 * XGBClassifier's shapValues against shap's TreeExplainer (which calls xgboost's own float32
 * TreeSHAP, pred_contribs) on xgboost 1.7.4 and 3.2.0: test/fixtures/treeshap/xgboost-<version>/,
 * made by generate_xgboost.py. Every value, expected value and margin is xgboost's float32
 * result, so "within 1e-9" is "equal".
 */
import { expect } from 'chai'
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import { loadCompiledModel } from '../../src/compiled/load-compiled.js'
import { decodeModel, createPredictor } from '../../src/sklearn/load-model.js'
import { createEstimator } from '../../src/sklearn/registry.js'
import { denseRowsState } from '../../src/sklearn/classifiers/xgboost.js'
import type { Classifier } from '../../src/sklearn/estimator.js'
import type { TreeAttribution } from '../../src/sklearn/tree-shap.js'
import { compileInProcess, joinCompiled, readBytes, splitCompiled, tempDir, writeBytes } from '../helpers/compiled-files.js'
import { FIXTURES, ROOT } from '../helpers/paths.js'

const DIR = path.join(FIXTURES, 'treeshap')
const TEXTS = (JSON.parse(readFileSync(path.join(DIR, 'texts.json'), 'utf8')) as { texts: string[] }).texts

interface ShapCase {
  case: string
  files: string[]
  versions: { xgboost: string }
  output_classes: number[]
  expected_value: number[]
  features: number[]
  /** Explained on dense rows (.toarray()): served with the dense_rows setting. */
  dense_rows?: boolean
  rows: Array<{ predict: string, output: number[], phi: number[] }>
}

function readCase (dir: string): ShapCase {
  return JSON.parse(gunzipSync(readFileSync(path.join(dir, 'shap.json.gz'))).toString('utf8')) as ShapCase
}

const VERSIONS = readdirSync(DIR).filter(name => /^xgboost-\d+\.\d+\.\d+$/.test(name)).sort()
const casesOf = (version: string): string[] => readdirSync(path.join(DIR, version)).filter(name => statSync(path.join(DIR, version, name)).isDirectory()).sort()

function pathsOf (dir: string, c: ShapCase): { model: string, vectorizers: string[] } {
  const files = c.files.map(f => path.join(dir, f))
  return { model: files[files.length - 1]!, vectorizers: files.slice(0, -1) }
}

function close (actual: number, expected: number, where: string): void {
  expect(Math.abs(actual - expected) <= 1e-9, `${where}: ${actual} is not ${expected}`).to.equal(true)
}

/** The attribution against shap's row: outputs, expected values, every listed feature's every value, and the features with a share. */
function expectRow (a: TreeAttribution, c: ShapCase, i: number, where: string): void {
  const row = c.rows[i]!
  const outputs = c.output_classes.length
  expect(a.space, where).to.equal('margin')
  expect(a.outputClasses, where).to.deep.equal(c.output_classes)
  c.expected_value.forEach((v, k) => close(a.expected[k]!, v, `${where} expected[${k}]`))
  row.output.forEach((v, k) => close(a.output[k]!, v, `${where} output[${k}]`))
  const at = new Map(Array.from(a.features, (f, j) => [f, j]))
  for (const f of a.features) expect(c.features.includes(f), `${where}: feature ${f} has a share shap does not give`).to.equal(true)
  const nonzero: number[] = []
  c.features.forEach((f, j) => {
    const mine = at.get(f)
    let any = false
    for (let k = 0; k < outputs; k++) {
      const theirs = row.phi[j * outputs + k]!
      if (theirs !== 0) any = true
      close(mine === undefined ? 0 : a.contributions[mine * outputs + k]!, theirs, `${where} feature ${f} output ${k}`)
    }
    if (any) nonzero.push(f)
  })
  expect(Array.from(a.features), `${where} features`).to.deep.equal(nonzero)
}

describe('xgboost TreeSHAP: shap.TreeExplainer(XGBClassifier).shap_values, bit for bit', () => {
  for (const version of VERSIONS) {
    for (const name of casesOf(version)) {
      const dir = path.join(DIR, version, name)
      it(`${version} ${name}: predict, expected value, margins and every feature's value equal shap's on ${TEXTS.length} texts`, async () => {
        const c = readCase(dir)
        expect(`xgboost-${c.versions.xgboost}`).to.equal(version)
        const { state } = await decodeModel(pathsOf(dir, c))
        const dense = c.dense_rows === true
        const predictor = createPredictor(state, { denseRows: dense })
        const classifier = createEstimator('classifier', dense ? denseRowsState(state.classifier)! : state.classifier) as Classifier
        expect(classifier.shapValues).to.be.a('function')
        expect(c.rows).to.have.length(TEXTS.length)
        if (dense) {
          // The setting matters here: read as a sparse row (absent = missing), the values differ.
          const sparse = createEstimator('classifier', state.classifier) as Classifier
          const row = predictor.transform(TEXTS[0]!)
          expect(sparse.shapValues!(row).contributions).to.not.deep.equal(classifier.shapValues!(row).contributions)
        }
        TEXTS.forEach((text, i) => {
          const where = `${version} ${name} text ${i}`
          expect(predictor.predict(text).label, where).to.equal(c.rows[i]!.predict)
          expectRow(classifier.shapValues!(predictor.transform(text)), c, i, where)
        })
      })
    }
  }

  it('the bench model (300 rounds of depth 6): the first 20 texts equal shap\'s', async () => {
    const dir = path.join(ROOT, 'bench', 'fixtures', 'treeshap', 'xgboost-300')
    const c = (JSON.parse(readFileSync(path.join(dir, 'shap-times-xgboost.json'), 'utf8')) as { values: ShapCase }).values
    const { state } = await decodeModel(pathsOf(dir, c))
    const predictor = createPredictor(state)
    const classifier = createEstimator('classifier', state.classifier) as Classifier
    expect(c.rows).to.have.length(20)
    TEXTS.slice(0, 20).forEach((text, i) => {
      expect(predictor.predict(text).label).to.equal(c.rows[i]!.predict)
      expectRow(classifier.shapValues!(predictor.transform(text)), c, i, `bench text ${i}`)
    })
  })

  it('a compiled file of an xgboost model gives the same explanations as its pickles', async () => {
    const dir = path.join(DIR, VERSIONS[VERSIONS.length - 1]!, 'multi-softprob')
    const c = readCase(dir)
    const tmp = tempDir()
    try {
      const file = await compileInProcess({ paths: pathsOf(dir, c), settingsFile: null }, path.join(tmp, 'model.tfsc'))
      const compiled = await loadCompiledModel(file, null)
      const { state } = await decodeModel(pathsOf(dir, c))
      expect('classifier' in compiled.state).to.equal(true)
      const fromFile = createEstimator('classifier', (compiled.state as typeof state).classifier) as Classifier
      const fromPickle = createEstimator('classifier', state.classifier) as Classifier
      const predictor = createPredictor(state)
      TEXTS.forEach((text, i) => {
        const row = predictor.transform(text)
        const a = fromFile.shapValues!(row)
        expect(a).to.deep.equal(fromPickle.shapValues!(row))
        expectRow(a, c, i, `compiled text ${i}`)
      })
    } finally {
      rmSync(tmp, { recursive: true, force: true })
    }
  })

  it('a compiled xgboost file whose nodes lack their covers, or carry too few, is refused', async () => {
    const dir = path.join(DIR, VERSIONS[0]!, 'binary-logistic')
    const tmp = tempDir()
    try {
      const file = await compileInProcess({ paths: pathsOf(dir, readCase(dir)), settingsFile: null }, path.join(tmp, 'model.tfsc'))
      type Tree = { state: { classifier: { booster: Record<string, unknown> } } }
      const broken = (change: (booster: Record<string, unknown>) => void): string => {
        const parts = splitCompiled(readBytes(file))
        change((parts.body.tree as Tree).state.classifier.booster)
        return writeBytes(path.join(tmp, 'broken.tfsc'), joinCompiled(parts))
      }
      const refusal = async (f: string): Promise<string> => await loadCompiledModel(f, null).then(() => 'loaded', (err: Error) => err.message)
      expect(await refusal(broken(b => { delete b.cover }))).to.match(/booster\.cover/)
      expect(await refusal(broken(b => { b.cover = b.treeStart }))).to.match(/booster\.cover/)
    } finally {
      rmSync(tmp, { recursive: true, force: true })
    }
  })
})
