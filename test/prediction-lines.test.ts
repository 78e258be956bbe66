import { expect } from 'chai'
import { endOfLastLine } from '../src/line-chunks.js'
import { formatPrediction, predictLines } from '../src/prediction-lines.js'
import type { Prediction, Predictor } from '../src/sklearn/predictor.js'
import { loadModel } from '../src/sklearn/load-model.js'
import { DEFAULT_MODEL_PATH, DEFAULT_VECTORIZER_PATH } from '../src/paths.js'

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s)

describe('the CLI line formats', () => {
  let predictor: Predictor
  before(async () => { ({ predictor } = await loadModel({ model: DEFAULT_MODEL_PATH, vectorizers: [DEFAULT_VECTORIZER_PATH] })) })

  it('writes exactly what JSON.stringify writes for a prediction, awkward numbers included', () => {
    const cases: Prediction[] = [
      { label: 'positive', classIndex: 1, confidence: 0.9312345678901234, proba: Float64Array.of(0.06876543210987655, 0.9312345678901234), decision: Float64Array.of(-2.6, 1e-21) },
      { label: 'a "quoted"\nlabel\u2028', classIndex: 0, confidence: 1, proba: undefined, decision: Float64Array.of(-0, 5e-324, 1.7976931348623157e308, Infinity, NaN, -Infinity) },
      { label: 'x', classIndex: 0, confidence: 2 / 3, proba: undefined, decision: undefined }
    ]
    for (const p of cases) {
      const reference: Record<string, unknown> = { label: p.label, confidence: p.confidence }
      if (p.proba !== undefined) reference.proba = Array.from(p.proba)
      if (p.decision !== undefined) reference.decision = Array.from(p.decision)
      expect(formatPrediction(p)).to.equal(JSON.stringify(reference))
    }
  })

  it('splits lines as node:readline does: \\n, \\r\\n and a lone \\r, an empty line kept, no line after the last end', () => {
    const r = predictLines(predictor, bytes('good film\r\nbad film\rfine\n\nlast'), 'lines')
    expect([r.lines, r.texts, r.bad]).to.deep.equal([5, 5, undefined])
    const labels = r.output.trimEnd().split('\n').map(l => (JSON.parse(l) as { label: string }).label)
    expect(labels).to.deep.equal(['good film', 'bad film', 'fine', '', 'last'].map(t => predictor.predict(t).label))
    expect(predictLines(predictor, bytes('one\n'), 'lines').lines).to.equal(1)
  })

  it('skips blank jsonl lines and stops at the first bad one, keeping the output before it', () => {
    const r = predictLines(predictor, bytes('{"text": "good"}\n  \n{"text": 3}\n{"text": "never read"}\n'), 'jsonl')
    expect([r.lines, r.texts, r.bad]).to.deep.equal([3, 1, { line: 2, reason: 'has no "text" string' }])
    expect(r.output.split('\n')).to.have.length(2)
    expect(predictLines(predictor, bytes('nope\n'), 'jsonl').bad).to.deep.equal({ line: 0, reason: 'is not JSON' })
  })

  it('finds where the last whole line ends, not after a \\r that a \\n may follow', () => {
    expect(endOfLastLine(bytes('a\nb'))).to.equal(2)
    expect(endOfLastLine(bytes('a\r\nb\r\n'))).to.equal(6)
    expect(endOfLastLine(bytes('a\rb'))).to.equal(2)
    expect(endOfLastLine(bytes('a\nb\r'))).to.equal(2)
    expect(endOfLastLine(bytes('no end'))).to.equal(-1)
  })
})
