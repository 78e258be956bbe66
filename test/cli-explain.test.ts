import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { runCli } from './helpers/cli.js'
import { FIXTURES } from './helpers/paths.js'
import { expectClose } from './helpers/close.js'

const cli = runCli


describe('tfidf-serve explain', function () {
  this.timeout(60000)

  it('writes one explanation per line whose parts add up to scikit-learn\'s decision_function', async () => {
    const dir = path.join(FIXTURES, 'sklearn', 'logreg-binary')
    const expected = JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as { predict: string[], decision_function: number[][] }
    const texts = (JSON.parse(readFileSync(path.join(FIXTURES, 'sklearn', 'texts.json'), 'utf8')) as { texts: string[] }).texts
    const input = texts.map(text => JSON.stringify({ text })).join('\n') + '\n'
    const { stdout, code } = await cli(['explain', '--format', 'jsonl', '--top-k', '100', '--model', path.join(dir, 'final_best_model.pkl'), '--vectorizer', path.join(dir, 'tfidf_vectorizer.pkl')], input)
    expect(code).to.equal(0)
    const lines = stdout.trimEnd().split('\n').map(l => JSON.parse(l) as { prediction: string, scores: number[], intercept: number[], features: Array<{ contribution: number[] }>, other_features: { contribution: number[] } })
    expect(lines).to.have.length(texts.length)
    lines.forEach((e, i) => {
      expect(e.prediction).to.equal(expected.predict[i])
      expectClose(e.scores, expected.decision_function[i]!, 1e-9, `line ${i}`)
      expectClose([e.intercept[0]! + e.other_features.contribution[0]! + e.features.reduce((s, f) => s + f.contribution[0]!, 0)], e.scores, 1e-12, `line ${i}`)
    })
  })

  it('lists --top-k features from the default model', async () => {
    const { stdout, code } = await cli(['explain', '--top-k', '2'], 'a wonderful, moving film\n')
    expect(code).to.equal(0)
    const e = JSON.parse(stdout) as { prediction: string, features: Array<{ term: string }> }
    expect(e.prediction).to.equal('positive')
    expect(e.features).to.have.length(2)
  })

  it('refuses a model with no explanation with one line and exit 1, and a bad --top-k with exit 2', async () => {
    const mlp = path.join(FIXTURES, 'estimators', '1.9.1', 'mlp-relu')
    const refused = await cli(['explain', '--model', path.join(mlp, 'final_best_model.pkl'), '--vectorizer', path.join(mlp, '..', '_vectorizers', 'poem.pkl')], 'x\n')
    expect([refused.code, refused.stdout]).to.deep.equal([1, ''])
    expect(refused.stderr).to.equal("tfidf-serve: MLPClassifier: a neural network's hidden layers mix the words; explanations are defined for linear models, naive Bayes and tree models (TreeSHAP)\n")
    expect((await cli(['explain', '--top-k', '0'], 'x\n')).code).to.equal(2)
    expect((await cli(['explain', '--help'])).stdout).to.match(/^Usage: tfidf-serve explain/)
  })
})
