/**
 * Mutation fuzzing of compiled model files, as test/pickle/fuzz.test.ts fuzzes pickles: real
 * compiled files of fixture models, mutated, then loaded; every outcome must be a model or a
 * ServiceError in one line, each within 1 s of CPU (CPU, not wall time: the bound holds on a
 * busy machine), and a model that loads must answer texts without throwing. Most mutants get their checksum recomputed, so they reach the checks behind it
 * rather than stopping at the checksum.
 *
 * COMPILED_FUZZ_ITERATIONS (default 300) and FUZZ_SEED set the run; the figure is 30,000.
 */
import { expect } from 'chai'
import { rmSync } from 'node:fs'
import path from 'node:path'
import { loadCompiledModel } from '../../src/compiled/load-compiled.js'
import { ServiceError } from '../../src/errors.js'
import { FIXTURES } from '../helpers/paths.js'
import { prng } from '../helpers/prng.js'
import { bitFlips, chunkRepeat, truncation } from '../helpers/byte-mutators.js'
import { DEFAULT_PATHS, compileInProcess, joinCompiled, readBytes, splitCompiled, tempDir, withChecksum, writeBytes } from '../helpers/compiled-files.js'

const ITERATIONS = Number(process.env.COMPILED_FUZZ_ITERATIONS ?? 300)
const SEED = Number(process.env.FUZZ_SEED ?? 20261129)
const SLOW_MS = 1000
const TEXTS = ['a fine film, truly great', 'awful awful awful', '', 'Ünïcödé ǅ 😀', 'win free money now http://x.y']

const NUMBERS = [-1, 0, 1, 2, 3, 7, 8, 255, 65535, 2 ** 31 - 1, -(2 ** 31), 2 ** 32, 2 ** 53, 1e300, -0.5, 0.5]

type Rand = () => number
const pick = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(rand() * items.length)]!

/** Every place in a JSON tree: its parent and key. */
function places (root: unknown): Array<{ parent: Record<string, unknown> | unknown[], key: string | number }> {
  const out: Array<{ parent: Record<string, unknown> | unknown[], key: string | number }> = []
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach((item, i) => { out.push({ parent: v, key: i }); walk(item) })
    else if (v !== null && typeof v === 'object') for (const [k, item] of Object.entries(v)) { out.push({ parent: v as Record<string, unknown>, key: k }); walk(item) }
  }
  walk(root)
  return out
}

type Mutator = (bytes: Uint8Array, rand: Rand) => Uint8Array

/** Mutations of the structure: a value of the tree or the array table replaced, a blob value changed. */
const STRUCTURED: ReadonlyArray<readonly [string, Mutator]> = [
  ['tree value', (bytes, rand) => {
    const parts = splitCompiled(bytes)
    const at = pick(rand, places(parts.body.tree))
    const old = (at.parent as Record<string, unknown>)[at.key as string]
    const choices: unknown[] = [pick(rand, NUMBERS), null, true, 'x', [], {}, { $a: Math.floor(rand() * parts.body.arrays.length) }, typeof old === 'number' ? old + pick(rand, [-1, 1]) : old, [old, old]]
    ;(at.parent as Record<string, unknown>)[at.key as string] = pick(rand, choices)
    return joinCompiled(parts)
  }],
  ['tree key dropped', (bytes, rand) => {
    const parts = splitCompiled(bytes)
    const objects = places(parts.body.tree).filter(p => !Array.isArray(p.parent))
    const at = pick(rand, objects)
    delete (at.parent as Record<string, unknown>)[at.key as string]
    return joinCompiled(parts)
  }],
  ['array entry', (bytes, rand) => {
    const parts = splitCompiled(bytes)
    const entry = pick(rand, parts.body.arrays)
    const field = Math.floor(rand() * 3)
    entry[field] = field === 0 ? pick(rand, ['i8', 'u8', 'i16', 'u16', 'i32', 'u32', 'f32', 'f64', 'i64', 'u64', 'x']) as never : (field === 1 ? pick(rand, [0, 8, 16, entry[1] + 8, entry[1] - 8, parts.blob.length]) : pick(rand, [0, 1, entry[2] - 1, entry[2] + 1, entry[2] * 2, 2 ** 31])) as never
    return joinCompiled(parts)
  }],
  ['blob int32', (bytes, rand) => {
    const parts = splitCompiled(bytes)
    const [dtype, offset, length] = pick(rand, parts.body.arrays)
    if (length === 0) return joinCompiled(parts)
    const view = new DataView(parts.blob.buffer, parts.blob.byteOffset)
    const at = offset + Math.floor(rand() * length) * (dtype === 'f64' || dtype === 'i64' || dtype === 'u64' ? 8 : dtype === 'i32' || dtype === 'u32' || dtype === 'f32' ? 4 : dtype === 'u8' || dtype === 'i8' ? 1 : 2)
    if (dtype === 'f64') view.setFloat64(at, pick(rand, [Number.NaN, Infinity, -Infinity, 0, -0, 1e308, ...NUMBERS]), true)
    else if (dtype === 'i32' || dtype === 'u32' || dtype === 'f32') view.setInt32(at, pick(rand, NUMBERS) | 0, true)
    else view.setUint8(at, Math.floor(rand() * 256))
    return joinCompiled(parts)
  }]
]

/** Mutations of the bytes, as the pickle fuzzer makes them; the checksum is then recomputed, or (rarely) left wrong. */
const BYTES: ReadonlyArray<readonly [string, Mutator]> = [
  ['bit flips', bitFlips],
  ['truncation', truncation],
  ['byte set in the preamble', (input, rand) => {
    const out = input.slice()
    out[8 + Math.floor(rand() * 24)] = Math.floor(rand() * 256)
    return out
  }],
  ['chunk repeat', chunkRepeat(50)]
]

describe('fuzzing compiled model files', function () {
  this.timeout(0)
  const dir = tempDir('tfsc-fuzz-')
  const corpus: Uint8Array[] = []
  before(async () => {
    const v = (version: string, name: string): string => path.join(FIXTURES, 'estimators', version, '_vectorizers', name)
    const models: Array<{ model: string, vectorizers: string[] }> = [
      DEFAULT_PATHS,
      { model: path.join(FIXTURES, 'estimators', '1.9.1', 'tree-gini', 'final_best_model.pkl'), vectorizers: [v('1.9.1', 'poem.pkl')] },
      { model: path.join(FIXTURES, 'estimators', '1.6.1', 'bernoullinb', 'final_best_model.pkl'), vectorizers: [v('1.6.1', 'sent.pkl')] },
      { model: path.join(FIXTURES, 'estimators', '1.2.1', 'select-kbest', 'final_best_model.pkl'), vectorizers: [] },
      { model: path.join(FIXTURES, 'estimators', '1.9.1', 'svc-rbf-ovr', 'final_best_model.pkl'), vectorizers: [v('1.9.1', 'poem.pkl')] },
      { model: path.join(FIXTURES, 'estimators', '1.9.1', 'gb-multi', 'final_best_model.pkl'), vectorizers: [v('1.9.1', 'poem.pkl')] },
      { model: path.join(FIXTURES, 'estimators', '1.9.1', 'stacking', 'final_best_model.pkl'), vectorizers: [v('1.9.1', 'poem.pkl')] },
      { model: path.join(FIXTURES, 'xgboost', '3.2.0', 'multi-softprob', 'final_best_model.pkl'), vectorizers: [path.join(FIXTURES, 'xgboost', '3.2.0', 'multi-softprob', 'tfidf_vectorizer.pkl')] },
      { model: path.join(FIXTURES, 'lightgbm', 'booster-binary', 'booster.pkl'), vectorizers: [path.join(FIXTURES, 'lightgbm', 'booster-binary', 'tfidf_vectorizer.pkl')] },
      { model: path.join(FIXTURES, 'knn', '1.9.1', 'a-cosine-distance-k3', 'model.pkl'), vectorizers: [path.join(FIXTURES, 'knn', '1.9.1', '_vectorizers', 'a.pkl')] }
    ]
    for (const [i, paths] of models.entries()) {
      try {
        corpus.push(readBytes(await compileInProcess({ paths, settingsFile: null }, path.join(dir, `seed-${i}.tfsc`))))
      } catch {}
    }
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it(`meets ${ITERATIONS} mutated compiled files with a model that answers or a one-line ServiceError, each within 1 s of CPU`, async () => {
    expect(corpus.length).to.be.at.least(9)
    const rand = prng(SEED)
    const counts = { served: 0, refused: 0 }
    let slowest = 0
    const file = path.join(dir, 'mutant.tfsc')
    for (let i = 0; i < ITERATIONS; i++) {
      const source = pick(rand, corpus)
      const structured = rand() < 0.6
      const [name, mutate] = pick(rand, structured ? STRUCTURED : BYTES)
      let bytes = mutate(source, rand)
      if (!structured && rand() < 0.9) bytes = withChecksum(bytes)
      writeBytes(file, bytes)
      const where = `iteration ${i} (${name}, seed ${SEED})`
      const started = process.cpuUsage()
      try {
        const loaded = await loadCompiledModel(file, null)
        for (const text of TEXTS) loaded.predictor.predict(text)
        counts.served++
      } catch (err) {
        if (!(err instanceof ServiceError) || err.message.includes('\n') || err.detail.includes('unexpected')) {
          writeBytes(path.join(dir, `failure-${i}.tfsc`), bytes)
          throw new Error(`${where}: ${err instanceof Error ? err.stack ?? err.message : String(err)}`)
        }
        counts.refused++
      }
      const spent = process.cpuUsage(started)
      const ms = (spent.user + spent.system) / 1000
      slowest = Math.max(slowest, ms)
      expect(ms, where).to.be.below(SLOW_MS)
    }
    console.log(`      ${counts.served} served, ${counts.refused} refused in one line, slowest ${slowest.toFixed(1)} ms`)
    expect(counts.served + counts.refused).to.equal(ITERATIONS)
    expect(counts.refused).to.be.greaterThan(ITERATIONS / 10)
  })
})
