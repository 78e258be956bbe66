/**
 * Tree explanations against shap itself: every case under test/fixtures/treeshap holds a model
 * and what shap's TreeExplainer (path-dependent, built from shap's source; README.md there)
 * gave each of the 397 texts. Every feature's Shapley value, the expected value and the
 * explained output must equal shap's within 1e-9, for scikit-learn 1.2 and 1.6, LightGBM and
 * XGBoost, binary and multi-class, in Pipelines and soft votes.
 */
import { expect } from 'chai'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import { loadModel } from '../../src/sklearn/load-model.js'
import { expectClose } from '../helpers/close.js'
import { FIXTURES } from '../helpers/paths.js'

const DIR = path.join(FIXTURES, 'treeshap')
const TEXTS = (JSON.parse(readFileSync(path.join(DIR, 'texts.json'), 'utf8')) as { texts: string[] }).texts

interface ShapCase {
  readonly note: string
  readonly files: readonly string[]
  readonly versions: Readonly<Record<string, string>>
  readonly estimator: string
  readonly space: 'probability' | 'margin'
  readonly output_classes: readonly number[]
  readonly expected_value: readonly number[]
  readonly features: readonly number[]
  readonly rows: ReadonlyArray<{ readonly predict: string, readonly output: readonly number[], readonly phi: readonly number[] }>
}

const groups = readdirSync(DIR, { withFileTypes: true }).filter(d => d.isDirectory()).map(d => d.name).sort()
const casesOf = (group: string): string[] =>
  readdirSync(path.join(DIR, group)).filter(name => existsSync(path.join(DIR, group, name, 'shap.json.gz'))).sort()

describe('tree explanations equal shap\'s TreeExplainer', () => {
  it('has fixtures for every family', () => {
    const estimators = new Set(groups.flatMap(g => casesOf(g).map(c => readCase(g, c).estimator)))
    for (const e of ['DecisionTreeClassifier', 'RandomForestClassifier', 'ExtraTreesClassifier', 'GradientBoostingClassifier', 'HistGradientBoostingClassifier', 'VotingClassifier', 'LGBMClassifier', 'XGBClassifier']) {
      expect(estimators, e).to.include(e)
    }
  })

  for (const group of groups) {
    for (const name of casesOf(group)) {
      const f = readCase(group, name)
      it(`${group} ${name} (${f.note}): every value within 1e-9 of shap ${f.versions.shap} on ${f.rows.length} texts`, async () => {
        expect(f.rows.length).to.equal(TEXTS.length)
        const files = f.files.map(file => path.join(DIR, group, name, file))
        const { predictor } = await loadModel({ model: files[files.length - 1]!, vectorizers: files.slice(0, -1) })
        expect(predictor.explainRefusal).to.equal(undefined)
        const outputs = f.expected_value.length
        TEXTS.forEach((text, i) => {
          const where = `text ${i} ${JSON.stringify(text.slice(0, 40))}`
          const row = f.rows[i]!
          const e = predictor.explain(text, Number.MAX_SAFE_INTEGER)
          expect(predictor.classes[e.classIndex], where).to.equal(row.predict)
          expect([e.method, e.space, e.outputClasses], where).to.deep.equal(['tree_shap', f.space, f.output_classes])
          expectClose(e.intercept, f.expected_value, 1e-9, `${where} expected value`)
          expectClose(e.scores, row.output, 1e-9, `${where} output`)
          expect(e.otherCount, where).to.equal(0)
          // shap's value of every feature: those we list, and zero for any we leave out.
          const ours = new Map(e.features.map(s => [s.feature, s.contribution]))
          f.features.forEach((column, j) => {
            const expected = row.phi.slice(j * outputs, (j + 1) * outputs)
            expectClose(ours.get(column) ?? new Float64Array(outputs), expected, 1e-9, `${where} feature ${column}`)
            ours.delete(column)
          })
          for (const [column, values] of ours) expectClose(values, new Float64Array(outputs), 1e-9, `${where} feature ${column}, which shap gives 0`)
          for (const share of e.features) if (share.absent === true) expect(share.value, where).to.equal(0)
          // The parts add up to the output.
          const summed = e.intercept.map((b, k) => b + e.features.reduce((s, share) => s + share.contribution[k]!, 0))
          expectClose(summed, e.scores, 1e-9, `${where} sum`)
        })
      })
    }
  }
})

function readCase (group: string, name: string): ShapCase {
  return JSON.parse(gunzipSync(readFileSync(path.join(DIR, group, name, 'shap.json.gz'))).toString('utf8')) as ShapCase
}
