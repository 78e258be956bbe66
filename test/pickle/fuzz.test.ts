/**
 * Mutation fuzzing of the file layer on real fixture files: every outcome must be a
 * value or a ServiceError, never another exception, a crash or a run over 1 s; every value
 * then goes through the model layer (versions, stages, estimators, messages), which may
 * refuse it only with a ServiceError of its own.
 * pickleparser serves as a differential oracle where both readers accept the input
 * and the value lies where pickleparser is known to be right.
 *
 * FUZZ_ITERATIONS (default 20000) and FUZZ_SEED set the run; `npm run fuzz` runs longer.
 */
import { expect } from 'chai'
import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { Parser } from 'pickleparser'
import { ServiceError } from '../../src/errors.js'
import { decodePickleBytes } from '../../src/pickle/read-pickle-file.js'
import { PyTuple } from '../../src/pickle/values.js'
import { decodeValues } from '../../src/sklearn/load-model.js'
import { cpuMs } from '../helpers/cpu-time.js'
import { hostilePickles } from '../helpers/hostile-pickles.js'
import { FIXTURES } from '../helpers/paths.js'
import { prng } from '../helpers/prng.js'
import { bitFlips, chunkRepeat, truncation } from '../helpers/byte-mutators.js'

const ITERATIONS = Number(process.env.FUZZ_ITERATIONS ?? 20000)
const SEED = Number(process.env.FUZZ_SEED ?? 20261122)
/**
 * Most CPU time one input may take. CPU, not the clock: on cores shared with other work an input
 * can wait for a core longer than it runs. Inputs take about 30 ms at most; the bound is for work
 * that grows out of proportion to the input (the reader budgets work per input byte).
 */
const SLOW_MS = 1000

const LENGTHS = [
  [0xff, 0xff, 0xff, 0xff], [0xfb, 0xff, 0xff, 0xff], [0x00, 0x00, 0x00, 0x80], [0xff, 0xff, 0xff, 0x7f],
  [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00], [0x00, 0x00, 0x10, 0x00]
]

type Mutator = (input: Uint8Array, rand: () => number, corpus: Uint8Array[]) => Uint8Array

const MUTATORS: ReadonlyArray<readonly [string, Mutator]> = [
  ['bit flips', bitFlips],
  ['truncation', truncation],
  ['splice', (input, rand, corpus) => {
    const other = corpus[Math.floor(rand() * corpus.length)]!
    const at = Math.floor(rand() * input.length)
    const from = Math.floor(rand() * other.length)
    const chunk = other.subarray(from, from + Math.floor(rand() * 256))
    const out = new Uint8Array(input.length + chunk.length)
    out.set(input.subarray(0, at))
    out.set(chunk, at)
    out.set(input.subarray(at), at + chunk.length)
    return out
  }],
  ['huge or negative length', (input, rand) => {
    const out = input.slice()
    const value = LENGTHS[Math.floor(rand() * LENGTHS.length)]!
    const at = Math.floor(rand() * Math.max(1, out.length - value.length))
    out.set(value.slice(0, Math.max(0, out.length - at)), at)
    return out
  }],
  ['byte set', (input, rand) => {
    const out = input.slice()
    if (out.length > 0) out[Math.floor(rand() * out.length)] = Math.floor(rand() * 256)
    return out
  }],
  ['chunk repeat', chunkRepeat(2000)]
]

/** Hand-made hostile shapes: deep nesting, mark and memo floods, self-reference. */
function hostileInputs (): Array<[string, Uint8Array]> {
  const repeat = (prefix: number[], unit: number[], times: number, suffix: number[]): Uint8Array => {
    const out = new Uint8Array(prefix.length + unit.length * times + suffix.length)
    out.set(prefix)
    for (let i = 0; i < times; i++) out.set(unit, prefix.length + i * unit.length)
    out.set(suffix, prefix.length + unit.length * times)
    return out
  }
  return [
    ['a million open MARKs', repeat([0x80, 0x04], [0x28], 1_000_000, [0x2e])],
    ['a million nested lists via memo', repeat([0x80, 0x04, 0x5d, 0x94], [0x5d, 0x94, 0x61, 0x30, 0x68, 0x00], 200_000, [0x2e])],
    ['a list appended to itself', new Uint8Array([0x80, 0x04, 0x5d, 0x94, 0x68, 0x00, 0x61, 0x2e])],
    ['a million memo entries', repeat([0x80, 0x04, 0x4e], [0x94], 1_000_000, [0x2e])],
    ['a million DUPs', repeat([0x80, 0x04, 0x4e], [0x32], 1_000_000, [0x2e])],
    // Work is bounded per input byte, so the time such a file can take grows with its size: 256 KiB here.
    ['one big memoized bytes copied many times', (() => {
      const big = repeat([0x80, 0x04, 0x42, 0x00, 0x00, 0x04, 0x00], [0x41], 0x40000, [0x94, 0x30])
      const loop = repeat([], [0x8c, 0x08, ...Buffer.from('builtins'), 0x8c, 0x04, ...Buffer.from('list'), 0x93, 0x68, 0x00, 0x85, 0x52, 0x30], 100_000, [0x4e, 0x2e])
      const out = new Uint8Array(big.length + loop.length)
      out.set(big)
      out.set(loop, big.length)
      return out
    })()],
    ['an 8-byte negative BINBYTES', new Uint8Array([0x80, 0x04, 0x42, 0xfb, 0xff, 0xff, 0xff, 0x2e])],
    ['a LONG4 of 2^31-1 bytes', new Uint8Array([0x80, 0x02, 0x8b, 0xff, 0xff, 0xff, 0x7f, 0x2e])],
    ['a decimal INT of a million digits', repeat([0x49], [0x39], 1_000_000, [0x0a, 0x2e])]
  ]
}

/** A decoded value also goes through the model layer, whose walks over it must be bounded too. */
async function outcome (bytes: Uint8Array): Promise<{ value?: unknown, error?: unknown, modelError?: unknown, ms: number }> {
  const { result, ms } = await cpuMs(async (): Promise<{ value?: unknown, error?: unknown, modelError?: unknown }> => {
    let value: unknown
    try {
      value = await decodePickleBytes(bytes, { maxDecompressedBytes: 64 * 1024 * 1024 })
    } catch (error) {
      return { error }
    }
    try {
      decodeValues({ file: 'fuzzed.pkl', value }, [])
      return { value }
    } catch (modelError) {
      return { value, modelError }
    }
  })
  return { ...result, ms }
}

/** The model layer may refuse a value, but only with a ServiceError of its own, not the net around unexpected errors. */
function expectModelRefusal (error: unknown, where: string): void {
  if (error === undefined) return
  if (!(error instanceof ServiceError) || error.detail.startsWith('unexpected')) {
    throw new Error(`${where}: the model layer threw ${error instanceof Error ? error.stack ?? error.message : String(error)}`)
  }
}

/** A JSON form of simple values, or undefined where pickleparser is known to differ. */
function simple (v: unknown): unknown {
  if (v === null || typeof v === 'boolean') return v
  if (typeof v === 'number') return !Number.isFinite(v) || Object.is(v, -0) || (Number.isInteger(v) && Math.abs(v) > 2 ** 31) ? undefined : v
  if (typeof v === 'string') return /[\\\ufffd]/.test(v) ? undefined : v
  const items = Array.isArray(v) ? v : v instanceof PyTuple ? v.items : undefined
  if (items !== undefined) {
    const out = items.map(simple)
    return out.includes(undefined) ? undefined : out
  }
  if (v instanceof Map) {
    const out: Record<string, unknown> = {}
    for (const [k, x] of v) {
      if (typeof k !== 'string' || k === '__proto__' || k === 'constructor' || k in out) return undefined
      const s = simple(x)
      if (s === undefined) return undefined
      out[k] = s
    }
    return out
  }
  return undefined
}

function oracle (bytes: Uint8Array): unknown {
  // pickleparser warns on the console about the big integers it rounds; its answer is then skipped anyway.
  const warn = console.warn
  console.warn = () => {}
  try {
    // Any global makes pickleparser build placeholders where Python builds values: no comparison then.
    const refuseGlobals = { resolve: (module: string, name: string): never => { throw new Error(`global ${module}.${name}`) } }
    const parsed = new Parser({ nameResolver: refuseGlobals }).parse<unknown>(bytes)
    return JSON.parse(JSON.stringify(parsed, (_k, x: unknown) => x instanceof Map ? Object.fromEntries(x) : x))
  } catch {
    return undefined
  } finally {
    console.warn = warn
  }
}

describe('fuzzing the file layer', function () {
  this.timeout(0)
  // The pickle-layer fixtures, and the small hostile model files whose walks the model layer must survive.
  const corpus = [path.join(FIXTURES, 'pickle'), path.join(FIXTURES, 'hostile')].flatMap(dir => readdirSync(dir)
    .filter(name => /\.(pkl|joblib)$/.test(name))
    .sort()
    .map(name => new Uint8Array(readFileSync(path.join(dir, name)))))

  it('meets every hostile shape with a value or a ServiceError, each within 1 s of CPU', async () => {
    for (const [name, bytes] of [...hostileInputs(), ...hostilePickles()]) {
      const result = await outcome(bytes)
      if (result.error !== undefined) expect(result.error, name).to.be.instanceOf(ServiceError)
      expectModelRefusal(result.modelError, name)
      expect(result.ms, name).to.be.below(SLOW_MS)
    }
  })

  it(`meets ${ITERATIONS} mutations of real files with a value or a ServiceError, each within 1 s of CPU`, async () => {
    const rand = prng(SEED)
    const counts = { value: 0, error: 0, oracleAgreed: 0 }
    let slowest = 0
    for (let i = 0; i < ITERATIONS; i++) {
      const source = corpus[Math.floor(rand() * corpus.length)]!
      const [name, mutate] = MUTATORS[Math.floor(rand() * MUTATORS.length)]!
      const bytes = mutate(source, rand, corpus)
      const result = await outcome(bytes)
      slowest = Math.max(slowest, result.ms)
      const where = `iteration ${i} (${name}, seed ${SEED})`
      if (result.error !== undefined) {
        if (!(result.error instanceof ServiceError)) {
          throw new Error(`${where}: ${String(result.error)} is not a ServiceError; input ${Buffer.from(bytes).toString('hex').slice(0, 400)}`)
        }
        counts.error++
      } else {
        expectModelRefusal(result.modelError, where)
        counts.value++
        const ours = simple(result.value)
        if (ours !== undefined && bytes[0] === 0x80) {
          const theirs = oracle(bytes)
          if (theirs !== undefined) {
            expect(ours, `${where}; input ${Buffer.from(bytes).toString('hex')}`).to.deep.equal(theirs)
            counts.oracleAgreed++
          }
        }
      }
      expect(result.ms, where).to.be.below(SLOW_MS)
    }
    expect(counts.value + counts.error).to.equal(ITERATIONS)
    // Mutations must reach both outcomes, or the fuzzer is not exercising the reader.
    expect(counts.value).to.be.greaterThan(ITERATIONS / 50)
    expect(counts.error).to.be.greaterThan(ITERATIONS / 10)
    console.log(`      ${counts.value} values, ${counts.error} ServiceErrors, ${counts.oracleAgreed} agreed with pickleparser, slowest ${slowest.toFixed(1)} ms`)
  })
})
