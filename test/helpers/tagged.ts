/**
 * Our unpickled values in the tagged JSON form that test/fixtures/generate.py writes
 * for Python's, so the two compare with one deep-equal.
 */
import { DType, MaskedArray, NdArray, elementAt } from '../../src/pickle/numpy.js'
import { SparseMatrix } from '../../src/pickle/scipy-sparse.js'
import { PyByteArray, PyComplex, PyFrozenSet, PyGlobal, PyObject, PySlice, PyTuple } from '../../src/pickle/values.js'

export type Tagged = null | boolean | string | number | Tagged[] | { [key: string]: Tagged }

const hex = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')

export function toTagged (v: unknown): Tagged {
  if (v === null || v === undefined) return null
  if (typeof v === 'boolean' || typeof v === 'string') return v
  if (typeof v === 'bigint') return { int: v.toString() }
  if (typeof v === 'number') {
    // Integers and floats are both numbers here; the caller's JSON says which it expects.
    return { num: v }
  }
  if (v instanceof Uint8Array) return { bytes: hex(v) }
  if (v instanceof PyByteArray) return { bytearray: hex(v.bytes) }
  if (v instanceof PyComplex) return { complex: [toTagged(v.real), toTagged(v.imag)] }
  if (v instanceof PySlice) return { slice: [toTagged(v.start), toTagged(v.stop), toTagged(v.step)] }
  if (Array.isArray(v)) return { list: v.map(toTagged) }
  if (v instanceof PyTuple) return { tuple: v.items.map(toTagged) }
  if (v instanceof Map) return { dict: [...v].map(([k, x]) => [toTagged(k), toTagged(x)]) }
  if (v instanceof PyFrozenSet) return { frozenset: sortItems([...v].map(toTagged)) }
  if (v instanceof Set) return { set: sortItems([...v].map(toTagged)) }
  if (v instanceof DType) return { dtype: v.str }
  if (v instanceof PyGlobal) return { global: v.qualifiedName }
  if (v instanceof MaskedArray) {
    return { masked: { data: arrayTagged(v), mask: Array.from({ length: v.size }, (_, i) => v.mask === undefined ? false : v.mask[i] === 1) } }
  }
  if (v instanceof NdArray) return arrayTagged(v)
  if (v instanceof SparseMatrix) {
    const body: Record<string, Tagged> = { format: v.format, shape: v.shape.map(n => ({ num: n })), data: arrayTagged(v.data) }
    if (v.indices !== undefined) body.indices = arrayTagged(v.indices)
    if (v.indptr !== undefined) body.indptr = arrayTagged(v.indptr)
    if (v.row !== undefined) body.row = arrayTagged(v.row)
    if (v.col !== undefined) body.col = arrayTagged(v.col)
    if (v.offsets !== undefined) body.offsets = arrayTagged(v.offsets)
    return { sparse: body }
  }
  if (v instanceof PyObject) {
    const state = v.state instanceof Map ? v.state : new Map()
    const merged = new Map([...state, ...(v.dictItems ?? [])])
    return { object: { class: v.qualifiedName, state: toTagged(merged) } }
  }
  throw new Error(`no tagged form for ${Object.prototype.toString.call(v)}`)
}

/** Set order is Python's hash order, which differs between processes: compare sorted. */
function sortItems (items: Tagged[]): Tagged[] {
  return items.sort((a, b) => JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)
}

function arrayTagged (a: NdArray): Tagged {
  const values: Tagged[] = []
  for (let i = 0; i < a.size; i++) {
    const item = a.dtype.kind === 'O' ? (a.data as unknown[])[i] : elementAt(a.data, i, a.dtype)
    values.push(toTagged(item))
  }
  return { ndarray: { dtype: a.dtype.str, shape: a.shape.map(n => ({ num: n })), values } }
}

/**
 * Python's tagged JSON with ints and floats folded to { num } the way toTagged sees
 * numbers (an int past 2^53 stays { int }), and specials as numbers.
 */
export function normalisePython (t: unknown): Tagged {
  if (t === null || typeof t === 'boolean' || typeof t === 'string') return t
  if (Array.isArray(t)) return t.map(normalisePython)
  const obj = t as Record<string, unknown>
  if ('int' in obj && typeof obj.int === 'string') {
    const big = BigInt(obj.int)
    return Number.isSafeInteger(Number(big)) && BigInt(Number(big)) === big ? { num: Number(big) } : { int: obj.int }
  }
  if ('float' in obj) {
    const f = obj.float
    const n = f === 'nan' ? NaN : f === 'inf' ? Infinity : f === '-inf' ? -Infinity : f === '-0' ? -0 : f as number
    return { num: n }
  }
  if ('ndarray' in obj) {
    const a = obj.ndarray as { dtype: string, shape: number[], values: unknown[] }
    return { ndarray: { dtype: a.dtype, shape: a.shape.map(n => ({ num: n })), values: a.values.map(normalisePython) } }
  }
  if ('sparse' in obj) {
    const s = { ...(obj.sparse as Record<string, unknown>) }
    const out: Record<string, Tagged> = {}
    for (const [k, x] of Object.entries(s)) out[k] = k === 'shape' ? (x as number[]).map(n => ({ num: n })) : normalisePython(x)
    return { sparse: out }
  }
  if ('set' in obj || 'frozenset' in obj) {
    const key = 'set' in obj ? 'set' : 'frozenset'
    return { [key]: sortItems((obj[key] as unknown[]).map(normalisePython)) }
  }
  const out: Record<string, Tagged> = {}
  for (const [k, x] of Object.entries(obj)) out[k] = normalisePython(x)
  return out
}
