/**
 * A compiled model answers exactly as its pickles do: every fixture model (every estimator
 * family, every scikit-learn version, the apps with their settings and functions modules, the
 * ensembles) compiled, loaded back through every check, and compared with the model decoded
 * from its pickles, text by text, bit for bit (labels, class indices, confidences,
 * probabilities, decision values, explanations, the model's description).
 */
import { expect } from 'chai'
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import path from 'node:path'
import { loadCompiledModel } from '../../src/compiled/load-compiled.js'
import { ServiceError } from '../../src/errors.js'
import { createAnyPredictor, decodeEnsemble, ensembleSpecOf } from '../../src/model/ensemble.js'
import { decodeServedModel, type ServedModelSpec } from '../../src/model/served-model.js'
import { readModelSettings } from '../../src/settings/model-settings.js'
import type { TextClassifier } from '../../src/sklearn/predictor.js'
import type { EnsemblePredictor } from '../../src/model/ensemble.js'
import { shareState, stateBytes } from '../../src/sklearn/shared-state.js'
import { writeCompiled } from '../../src/compiled/write.js'
import { tempDir } from '../helpers/compiled-files.js'
import { FIXTURES } from '../helpers/paths.js'

const EXTRA_TEXTS = ['', ' ', 'a', 'FREE entry!!! win £1000 now http://x.y', 'the the the the', 'Ünïcödé ǅ ß ﬁ İ', '😀 emoji 😀 text', 'x'.repeat(3000)]

/** Every double as its bits, so -0, NaN payloads and the last bit count. */
function exact (value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v === 'number') return `n:${Buffer.from(Float64Array.of(v).buffer).toString('hex')}`
    if (ArrayBuffer.isView(v)) return Array.from(v as unknown as ArrayLike<number>, x => `n:${Buffer.from(Float64Array.of(Number(x)).buffer).toString('hex')}`)
    return v
  })
}

function answers (predictor: TextClassifier | EnsemblePredictor, texts: readonly string[]): string {
  const out = texts.map(t => predictor.predict(t))
  const refusal = predictor.explainRefusal
  const explained = refusal === undefined ? texts.slice(0, 5).map(t => predictor.explain(t, 5)) : refusal
  return exact({ out, explained, info: predictor.info, classes: predictor.classes })
}

interface Case { name: string, spec: ServedModelSpec, texts: readonly string[] }

function textsOf (dir: string): string[] {
  for (let d = dir; d.startsWith(FIXTURES); d = path.dirname(d)) {
    const file = path.join(d, 'texts.json')
    if (existsSync(file)) return [...(JSON.parse(readFileSync(file, 'utf8')) as { texts: string[] }).texts.slice(0, 40), ...EXTRA_TEXTS]
  }
  return EXTRA_TEXTS
}

/** Fixture models with an expected.json naming their files, and app folders with settings. */
function cases (): Case[] {
  const out: Case[] = []
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.name === 'expected.json') {
        const files = (JSON.parse(readFileSync(full, 'utf8')) as { files?: string[] }).files
        if (files !== undefined) out.push({ name: path.relative(FIXTURES, dir), spec: { paths: { model: path.join(dir, files[files.length - 1]!), vectorizers: files.slice(0, -1).map(f => path.join(dir, f)) }, settingsFile: null }, texts: textsOf(dir) })
      } else if (entry.name === 'model-settings.json' && dir.includes(`${path.sep}apps${path.sep}`)) {
        const settings = readModelSettings(full)
        if (settings.model !== null) out.push({ name: path.relative(FIXTURES, dir), spec: { paths: { model: settings.model, vectorizers: [...settings.vectorizers] }, settingsFile: full }, texts: textsOf(dir) })
      }
    }
  }
  walk(FIXTURES)
  return out
}

describe('compiled models answer as their pickles do', function () {
  this.timeout(0)
  const dir = tempDir('tfsc-parity-')
  after(() => rmSync(dir, { recursive: true, force: true }))
  const all = cases()
  const counts = { compiled: 0, notServed: 0 }

  it(`compiles every fixture model (${all.length}) and answers every text bit for bit`, async () => {
    const file = path.join(dir, 'model.tfsc')
    for (const c of all) {
      let decoded
      try {
        decoded = await decodeServedModel(c.spec)
      } catch (err) {
        // A fixture the service refuses (hostile, unsupported) has no compiled form either.
        expect(err, c.name).to.be.instanceOf(ServiceError)
        counts.notServed++
        continue
      }
      const shared = shareState(decoded.state)
      writeCompiled(file, { state: shared.state, app: decoded.app, notes: decoded.notes }, { product: 'test', sources: [] })
      const loaded = await loadCompiledModel(file, c.spec.settingsFile)
      const fromPickles = await createAnyPredictor(decoded.state, decoded.app)
      expect(answers(loaded.predictor, c.texts), c.name).to.equal(answers(fromPickles, c.texts))
      expect(exact(loaded.info), c.name).to.equal(exact(decoded.info))
      expect(loaded.notes, c.name).to.deep.equal(decoded.notes)
      expect(loaded.bytes, c.name).to.equal(shared.bytes)
      // Every array a view of the one shared buffer the file was read into, as decoding leaves them.
      const held = stateBytes(loaded.state)
      expect(held.shared, c.name).to.equal(held.total)
      counts.compiled++
    }
    console.log(`      ${counts.compiled} compiled and equal, ${counts.notServed} not served from pickles either`)
    expect(counts.compiled).to.be.greaterThan(500)
  })

  it('compiles an ensemble of a repository and answers as its members do together', async () => {
    const settings = readModelSettings(path.join(FIXTURES, 'ensembles', 'repository', 'mbti', 'model-settings.json'))
    const spec = ensembleSpecOf(settings, () => 'no repository')
    if (typeof spec === 'string') throw new Error(spec)
    const decoded = await decodeEnsemble(spec)
    const shared = shareState(decoded.state)
    const file = path.join(dir, 'ensemble.tfsc')
    writeCompiled(file, { state: shared.state, app: null, notes: decoded.notes }, { product: 'test', sources: [] })
    const loaded = await loadCompiledModel(file, null)
    const texts = textsOf(path.join(FIXTURES, 'ensembles'))
    expect(answers(loaded.predictor, texts)).to.equal(answers(await createAnyPredictor(decoded.state, null), texts))
  })
})
