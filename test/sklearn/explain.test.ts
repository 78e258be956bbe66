import { expect } from 'chai'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { loadModel } from '../../src/sklearn/load-model.js'
import { FIXTURES } from '../helpers/paths.js'
import { expectClose } from '../helpers/close.js'
import { modelPathsOf, readExpected } from '../helpers/parity.js'

const DIR = path.join(FIXTURES, 'estimators')
const TEXTS = (JSON.parse(readFileSync(path.join(DIR, 'texts.json'), 'utf8')) as { texts: string[] }).texts
const VERSIONS = readdirSync(DIR).filter(name => /^\d+\.\d+\.\d+$/.test(name)).sort()
const casesOf = (version: string): string[] =>
  readdirSync(path.join(DIR, version)).filter(name => !name.startsWith('_') && statSync(path.join(DIR, version, name)).isDirectory()).sort()

/** Every score a model gives, its decisions or (naive Bayes) its log-probabilities plus a constant. */
const LINEAR = new Set(['LogisticRegression', 'LogisticRegressionCV', 'LinearSVC', 'SGDClassifier', 'RidgeClassifier', 'RidgeClassifierCV', 'Perceptron', 'PassiveAggressiveClassifier'])
const NAIVE_BAYES = new Set(['MultinomialNB', 'ComplementNB', 'BernoulliNB'])

function logSumExp (xs: Float64Array): number {
  const max = Math.max(...xs)
  return max + Math.log(xs.reduce((s, x) => s + Math.exp(x - max), 0))
}

describe('explanations of linear models and naive Bayes', () => {
  for (const version of VERSIONS) {
    for (const name of casesOf(version)) {
      const dir = path.join(DIR, version, name)
      const expected = readExpected(dir)
      const linear = LINEAR.has(expected.estimator)
      if (!linear && !NAIVE_BAYES.has(expected.estimator)) continue
      if (expected.note.includes('TruncatedSVD')) {
        it(`${version} ${name}: refused, since TruncatedSVD mixes terms into other features`, async () => {
          const { predictor } = await loadModel(modelPathsOf(dir, expected))
          expect(predictor.explainRefusal).to.equal('explanations need features that are terms, and TruncatedSVD mixes terms into other features')
          expect(() => predictor.explain(TEXTS[0]!, 10)).to.throw('TruncatedSVD mixes terms')
        })
        continue
      }
      it(`${version} ${name}: the contributions plus the intercept are scikit-learn's ${linear ? 'decision_function' : 'joint log-likelihood'} within 1e-9`, async () => {
        const { predictor } = await loadModel(modelPathsOf(dir, expected))
        expect(predictor.explainRefusal).to.equal(undefined)
        TEXTS.forEach((text, i) => {
          const where = `text ${i}`
          const e = predictor.explain(text, 100)
          expect(predictor.classes[e.classIndex], where).to.equal(expected.predict[i])
          // The parts add up: listed contributions, the rest, the intercept (to float64 rounding of the sum).
          const summed = e.intercept.map((b, k) => b + e.otherContribution[k]! + e.features.reduce((s, f) => s + f.contribution[k]!, 0))
          expectClose(summed, Array.from(e.scores), 1e-12 * Math.max(1, ...e.scores.map(Math.abs)), where)
          // A float32 model scores in float32: float64 parts sum to its decision to float32's precision.
          const tolerance = predictor.transform(text).float32 ? 1e-5 * Math.max(1, ...e.scores.map(Math.abs)) : 1e-9
          if (linear) expectClose(e.scores, expected.decision_function![i]!, tolerance, where)
          else expectClose(e.scores.map(s => Math.exp(s - logSumExp(e.scores))), expected.predict_proba![i]!, tolerance, where)
          for (const f of e.features) expectClose(f.contribution, Array.from(f.weight!, w => w * f.value), 0, where)
        })
      })
    }
  }

  it('lists the top_k features by how much they favour the label, with their terms and TF-IDF values', async () => {
    const dir = path.join(DIR, '1.9.1', 'logreg-binary')
    const { predictor } = await loadModel(modelPathsOf(dir, readExpected(dir)))
    const row = predictor.transform('a wonderful, moving film, wonderful')
    const e = predictor.explain('a wonderful, moving film, wonderful', 2)
    expect(e.features).to.have.length(Math.min(2, row.indices.length))
    expect(e.otherCount).to.equal(row.indices.length - e.features.length)
    const sizes = e.features.map(f => Math.abs(f.contribution[0]!))
    expect(sizes).to.deep.equal([...sizes].sort((a, b) => b - a))
    for (const f of e.features) {
      expect(f.term).to.be.a('string')
      expect(f.value).to.equal(row.values[row.indices.indexOf(f.feature!)])
    }
  })

  it('names the terms behind features through a selection step and a FeatureUnion, as get_feature_names_out does', async () => {
    const select = path.join(DIR, '1.6.1', 'select-kbest')
    const s = await loadModel(modelPathsOf(select, readExpected(select)))
    const text = TEXTS.find(t => s.predictor.transform(t).indices.length >= 5)!
    const e = s.predictor.explain(text, 5)
    expect(e.features.length).to.equal(5)
    for (const f of e.features) expect(f.term).to.match(/^\S+( \S+)*$/)
    // The same term is that feature in the vectorizer's own row: the selection's map is inverted right.
    const union = path.join(DIR, '1.9.1', 'union-word-char')
    const u = await loadModel(modelPathsOf(union, readExpected(union)))
    if (u.predictor.explainRefusal === undefined) {
      const ue = u.predictor.explain(text, 50)
      expect(ue.features.length).to.be.above(0)
      for (const f of ue.features) expect(f.term).to.match(/^[A-Za-z0-9_]+__./)
    }
  })

  it('refuses a model that is neither linear nor trees, naming its estimator and why, and one whose step mixes terms', async () => {
    const mlp = path.join(DIR, '1.9.1', 'mlp-relu')
    const f = await loadModel(modelPathsOf(mlp, readExpected(mlp)))
    expect(f.predictor.explainRefusal).to.equal("MLPClassifier: a neural network's hidden layers mix the words; explanations are defined for linear models, naive Bayes and tree models (TreeSHAP)")
    expect(() => f.predictor.explain('x', 3)).to.throw('MLPClassifier')
    const svd = path.join(DIR, '1.9.1', 'svd-logreg')
    const v = await loadModel(modelPathsOf(svd, readExpected(svd)))
    expect(v.predictor.explainRefusal).to.equal('explanations need features that are terms, and TruncatedSVD mixes terms into other features')
  })
})
