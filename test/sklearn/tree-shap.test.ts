/**
 * Tree explanations against shap itself: every case under test/fixtures/treeshap holds a model
 * and what shap's TreeExplainer (path-dependent, built from shap's source; README.md there)
 * gave each of the 397 texts. Every feature's Shapley value, the expected value and the
 * explained output must equal shap's within 1e-9, for scikit-learn 1.2 and 1.6, LightGBM and
 * XGBoost, binary and multi-class, in Pipelines and soft votes.
 */
import { expect } from 'chai'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import { explainedBy, probabilitySpec } from '../../src/sklearn/classifiers/tree-explainer.js'
import { loadModel } from '../../src/sklearn/load-model.js'
import { MAX_EXPLAINED_DEPTH, gaussLegendre } from '../../src/sklearn/tree-shap.js'
import { expectClose } from '../helpers/close.js'
import { runCli } from '../helpers/cli.js'
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
  /** Set when the rows cover only the first texts. */
  readonly row_count?: number
  /** An XGBoost model fitted and explained on dense rows (the dense_rows setting). */
  readonly dense_rows?: boolean
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
      it(`${group} ${name} (${f.note}): every value within 1e-9 of ${f.versions.reference ?? `shap ${f.versions.shap}`} on ${f.rows.length} texts`, async () => {
        // A high-precision reference (deep/) covers the first texts only; shap's own cases all of them.
        expect(f.rows.length).to.equal(f.row_count ?? TEXTS.length)
        const files = f.files.map(file => path.join(DIR, group, name, file))
        const { predictor } = await loadModel({ model: files[files.length - 1]!, vectorizers: files.slice(0, -1) }, { denseRows: f.dense_rows === true })
        expect(predictor.explainRefusal).to.equal(undefined)
        const outputs = f.expected_value.length
        TEXTS.slice(0, f.rows.length).forEach((text, i) => {
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
          // The parts add up to the output: in float64 to rounding; XGBoost's are float32 numbers, as its own are.
          const summed = e.intercept.map((b, k) => b + e.features.reduce((s, share) => s + share.contribution[k]!, 0))
          expectClose(summed, e.scores, f.estimator === 'XGBClassifier' ? 1e-5 * Math.max(1, ...e.scores.map(Math.abs)) : 1e-9, `${where} sum`)
        })
      })
    }
  }
})

describe('a mean of tree models declared in model-settings.json', () => {
  it('explains the mean itself: shap\'s values of each member averaged with the weights, within 1e-9, beside each member\'s own', async () => {
    const group = path.join(DIR, 'sklearn-1.6.1')
    const root = mkdtempSync(path.join(tmpdir(), 'tfidf-mean-'))
    try {
      const settings = path.join(root, 'model-settings.json')
      const member = (name: string, weight: number): Record<string, unknown> => ({ name, file: path.join(group, name, 'final_best_model.pkl'), vectorizer: path.join(group, name, 'tfidf_vectorizer.pkl'), weight })
      writeFileSync(settings, JSON.stringify({ parameters: { extra: { tfidf_serve: { ensemble: { combine: 'mean', members: [member('forest-multi', 2), member('extra-multi', 1)] } } } } }))
      const texts = TEXTS.slice(0, 40)
      const run = await runCli(['explain', '--settings', settings, '--format', 'jsonl', '--top-k', '100'], texts.map(text => JSON.stringify({ text })).join('\n') + '\n')
      expect(run.code, run.stderr).to.equal(0)
      const lines = run.stdout.trim().split('\n').map(l => JSON.parse(l) as { explanation: { method: string, space: string, intercept: number[], scores: number[], features: Array<{ feature: number, contribution: number[] }>, other_features: { count: number, contribution: number[] } }, members: Array<{ name: string, explanation: { features: unknown[] } }> })
      const [forest, extra] = [readCase('sklearn-1.6.1', 'forest-multi'), readCase('sklearn-1.6.1', 'extra-multi')]
      const mean = (a: readonly number[], b: readonly number[]): number[] => a.map((v, k) => (2 * v + b[k]!) / 3)
      lines.forEach((line, i) => {
        const where = `text ${i}`
        const e = line.explanation
        expect([e.method, e.space], where).to.deep.equal(['tree_shap', 'probability'])
        expectClose(e.intercept, mean(forest.expected_value, extra.expected_value), 1e-9, `${where} expected value`)
        expectClose(e.scores, mean(forest.rows[i]!.output, extra.rows[i]!.output), 1e-9, `${where} output`)
        const phi = (c: ShapCase, column: number): number[] => {
          const j = c.features.indexOf(column)
          return j < 0 ? [0, 0, 0, 0] : c.rows[i]!.phi.slice(j * 4, j * 4 + 4)
        }
        // The 100 listed, each; the rest summed in other_features.
        const rest = new Set([...forest.features, ...extra.features])
        for (const f of e.features) {
          expectClose(f.contribution, mean(phi(forest, f.feature), phi(extra, f.feature)), 1e-9, `${where} feature ${f.feature}`)
          rest.delete(f.feature)
        }
        expect(e.other_features.count, where).to.be.at.most(rest.size)
        const others = [0, 0, 0, 0]
        for (const column of rest) mean(phi(forest, column), phi(extra, column)).forEach((v, k) => { others[k]! += v })
        expectClose(e.other_features.contribution, others, 1e-9, `${where} other features`)
        expect(line.members.map(m => m.name)).to.deep.equal(['forest-multi', 'extra-multi'])
      })
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})

function readCase (group: string, name: string): ShapCase {
  return JSON.parse(gunzipSync(readFileSync(path.join(DIR, group, name, 'shap.json.gz'))).toString('utf8')) as ShapCase
}

describe('the depth bound on explanations', () => {
  /** A comb: each split sends one side to a leaf and the other further down, `depth` levels. */
  function comb (depth: number): Parameters<typeof probabilitySpec>[0][number] {
    const nodeCount = 2 * depth + 1
    const left = new Int32Array(nodeCount).fill(-1)
    const right = new Int32Array(nodeCount).fill(-1)
    for (let level = 0; level < depth; level++) {
      left[2 * level] = 2 * level + 1
      right[2 * level] = 2 * level + 2
    }
    // Each leaf holds one training row; a split, the rows below it.
    const cover = new Float64Array(nodeCount).fill(1)
    for (let level = depth - 1; level >= 0; level--) cover[2 * level] = cover[2 * level + 1]! + cover[2 * level + 2]!
    return { nodeCount, left, right, feature: new Int32Array(nodeCount), threshold: new Float64Array(nodeCount).fill(0.5), missingGoLeft: new Uint8Array(0), values: new Float64Array(nodeCount * 2).fill(1), width: 2, cover }
  }

  it(`explains trees ${MAX_EXPLAINED_DEPTH} deep and refuses deeper ones in one line`, () => {
    const output = (): Float64Array => Float64Array.of(0.5, 0.5)
    const deepest = explainedBy('DecisionTreeClassifier', probabilitySpec([comb(MAX_EXPLAINED_DEPTH)], 2, 1, true, output))
    expect(deepest.explainRefusal).to.equal(undefined)
    const a = deepest.shapValues!({ indices: Int32Array.of(0), values: Float64Array.of(0.3), float32: false })
    // Every leaf says 0.5, 0.5: the one feature moves nothing.
    expectClose(a.expected, [0.5, 0.5], 1e-15, 'expected value')
    expectClose(a.contributions, new Float64Array(a.contributions.length), 1e-12, 'contributions')
    expect(explainedBy('DecisionTreeClassifier', probabilitySpec([comb(MAX_EXPLAINED_DEPTH + 1)], 2, 1, true, output)).explainRefusal)
      .to.equal(`DecisionTreeClassifier: its trees are ${MAX_EXPLAINED_DEPTH + 1} deep, and explanations are bounded at ${MAX_EXPLAINED_DEPTH} levels (a leaf costs its depth squared)`)
  })
})

describe('the quadrature behind each leaf\'s Shapley weights', () => {
  it('integrates x^k over [0, 1] exactly (to 1e-14) up to degree 2n - 1, for every rule a tree up to 1,000 deep needs', () => {
    for (let n = 1; n <= Math.ceil(MAX_EXPLAINED_DEPTH / 2); n++) {
      const { t, w } = gaussLegendre(n)
      for (const k of new Set([0, 1, n - 1, n, 2 * n - 2, 2 * n - 1].filter(d => d >= 0))) {
        let sum = 0
        for (let q = 0; q < n; q++) sum += w[q]! * t[q]! ** k
        if (!(Math.abs(sum - 1 / (k + 1)) <= 1e-14)) expect.fail(`n ${n}, degree ${k}: ${sum}, not ${1 / (k + 1)}`)
      }
    }
  })
})
