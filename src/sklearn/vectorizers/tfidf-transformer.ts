/**
 * TfidfTransformer: as a Pipeline step after CountVectorizer or HashingVectorizer (or a
 * separate file), and inside every TfidfVectorizer. Its `transform` of one row, as
 * scikit-learn computes it (checked against 1.2.1, 1.6.1 and 1.9.1):
 *
 * 1. in the row's float dtype (float32 stays float32, integers become float64):
 *    `sublinear_tf` gives 1 + log(tf);
 * 2. `use_idf` multiplies by idf: through the `_idf_diag` sparse product before 1.5,
 *    which leaves each row's entries in reverse order (float32 only when row and idf both
 *    are), or in place, `X.data *= idf_[X.indices]`, from 1.5 (order and dtype kept);
 * 3. `norm` l2 or l1 with a double accumulator, as sparsefuncs_fast does.
 */
import { SparseMatrix } from '../../pickle/scipy-sparse.js'
import type { PyObject } from '../../pickle/values.js'
import { defineEstimator, type EstimatorState } from '../estimator.js'
import { numpyLogFloat32 } from '../float32.js'
import { attr, bool, describe, forEachEntry, isFloat32, numericArray, param, shapeError, toFloat64, unsupported, writtenSince } from '../record.js'
import type { SparseRow } from '../sparse-row.js'
import { Fields, MAX_FEATURES, shapeProblem } from '../state-fields.js'

export interface TfidfState {
  readonly sublinearTf: boolean
  /** idf per feature, or null when use_idf is false. */
  readonly idf: Float64Array | null
  /** Whether idf was stored as float32 (then products stay float32 for float32 rows). */
  readonly idfFloat32: boolean
  /** Written before 1.5: idf applied as a diagonal sparse product, which reverses each row. */
  readonly reverses: boolean
  readonly norm: 'l1' | 'l2' | null
}

/** A TfidfTransformer record (or a TfidfVectorizer's `_tfidf`, or the vectorizer itself) as state. */
export function readTfidf (obj: PyObject): TfidfState {
  const norm = param(obj, 'norm', 'l2')
  if (norm !== null && norm !== 'l1' && norm !== 'l2') unsupported(`${obj.name}.norm is ${describe(norm)}`)
  const useIdf = bool(obj, 'use_idf', true)
  let idf: Float64Array | null = null
  let idfFloat32 = false
  let reverses = false
  if (useIdf) {
    if (obj.has('idf_')) {
      const array = numericArray(obj.get('idf_'), `${obj.name}.idf_`, 1)
      idf = toFloat64(array, `${obj.name}.idf_`)
      idfFloat32 = isFloat32(array)
      // A 1.5+ file keeps idf_ as an array; older ones kept _idf_diag (handled below).
      reverses = !writtenSince(obj, 1, 5)
    } else {
      const diag = attr(obj, '_idf_diag')
      if (!(diag instanceof SparseMatrix)) return shapeError(`${obj.name}._idf_diag is ${describe(diag)}, not a sparse matrix`)
      idf = diagonal(diag)
      idfFloat32 = isFloat32(diag)
      reverses = true
    }
  }
  return { sublinearTf: bool(obj, 'sublinear_tf', false), idf, idfFloat32, reverses, norm }
}

function diagonal (m: SparseMatrix): Float64Array {
  const [rows, cols] = m.shape
  if (rows !== cols) shapeError(`_idf_diag is ${rows} x ${cols}, not square`)
  const out = new Float64Array(rows)
  if (m.format === 'dia') {
    const data = toFloat64(m.data, '_idf_diag data')
    const width = m.data.shape[1]!
    for (let d = 0; d < m.offsets!.size; d++) {
      if (Number((m.offsets!.data as ArrayLike<number | bigint>)[d]) === 0) out.set(data.subarray(d * width, d * width + Math.min(rows, width)))
    }
  } else {
    forEachEntry(m, '_idf_diag', (i, j, v) => { if (i === j) out[i] = v })
  }
  return out
}

const f32 = Math.fround

/** 1 + log(tf) for the small whole counts most terms have, float64 and numpy float32. */
const SUBLINEAR_CACHE = 1024
let sublinear64: Float64Array | undefined
let sublinear32: Float64Array | undefined

function sublinearTf (tf: number, float32: boolean): number {
  const cache = float32 ? (sublinear32 ??= fillSublinear(v => f32(numpyLogFloat32(v) + 1))) : (sublinear64 ??= fillSublinear(v => Math.log(v) + 1))
  if (tf >= 1 && tf < SUBLINEAR_CACHE && Number.isInteger(tf)) return cache[tf]!
  // np.log on float32 data is numpy's own SIMD kernel, not a correctly rounded log.
  return float32 ? f32(numpyLogFloat32(tf) + 1) : Math.log(tf) + 1
}

function fillSublinear (fn: (tf: number) => number): Float64Array {
  const out = new Float64Array(SUBLINEAR_CACHE)
  for (let tf = 1; tf < SUBLINEAR_CACHE; tf++) out[tf] = fn(tf)
  return out
}

/**
 * TfidfTransformer.transform of one row (indices sorted, as CountVectorizer leaves them).
 * @param owned the row is the caller's to change (a vectorizer's fresh counts): no copies.
 */
export function applyTfidf (row: SparseRow, tfidf: TfidfState, owned = false): SparseRow {
  const float32 = row.float32
  const n = row.values.length
  const indices = owned ? row.indices : row.indices.slice()
  const values = owned ? row.values : row.values.slice()
  if (tfidf.sublinearTf) for (let k = 0; k < n; k++) values[k] = sublinearTf(values[k]!, float32)
  let rowFloat32 = float32
  if (tfidf.idf !== null) {
    const idf = tfidf.idf
    // The 1.5+ in-place `X.data *= idf_[X.indices]` keeps the row's dtype; the older
    // diagonal product is float32 only when both operands are.
    rowFloat32 = float32 && (tfidf.idfFloat32 || !tfidf.reverses)
    for (let k = 0; k < n; k++) {
      const v = values[k]! * idf[indices[k]!]!
      values[k] = rowFloat32 ? f32(v) : v
    }
    // X @ _idf_diag (before 1.5): scipy's csr_matmat emits each row's columns in reverse order.
    if (tfidf.reverses) {
      indices.reverse()
      values.reverse()
    }
  }
  if (tfidf.norm !== null) normalizeInPlace(values, tfidf.norm, rowFloat32)
  return { indices, values, float32: rowFloat32 }
}

/** inplace_csr_row_normalize_l1 / _l2 on one row: double accumulator, division stored in the row's dtype. */
export function normalizeInPlace (values: Float64Array, norm: 'l1' | 'l2', float32: boolean): void {
  let sum = 0
  if (norm === 'l2') {
    for (const v of values) sum += float32 ? f32(v * v) : v * v
    if (sum === 0) return
    sum = Math.sqrt(sum)
  } else {
    for (const v of values) sum += Math.abs(v)
    if (sum === 0) return
  }
  for (let k = 0; k < values.length; k++) values[k] = float32 ? f32(values[k]! / sum) : values[k]! / sum
}

interface TfidfTransformerState extends EstimatorState {
  readonly tfidf: TfidfState
  readonly nFeatures: number
}

/** TF-IDF's settings; idf, when there is one, of `nFeatures` values (or any length when -1). */
export function checkTfidf (value: unknown, where: string, nFeatures: number): TfidfState {
  const f = new Fields(value, where)
  return {
    sublinearTf: f.bool('sublinearTf'),
    idf: f.nullable('idf', name => f.array(name, Float64Array, nFeatures < 0 ? undefined : nFeatures)),
    idfFloat32: f.bool('idfFloat32'),
    reverses: f.bool('reverses'),
    norm: f.oneOf('norm', ['l1', 'l2', null] as const)
  }
}

/** What create and scoring rely on in a TfidfTransformerState (from a compiled file, or just built). */
function check (state: unknown, where: string): asserts state is TfidfTransformerState {
  const f = new Fields(state, where)
  const n = f.int('nFeatures', -1, MAX_FEATURES)
  const tfidf = checkTfidf(f.value('tfidf'), `${where}.tfidf`, n)
  if ((tfidf.idf === null) !== (n === -1)) throw shapeProblem(`${where}.nFeatures`, `is ${n} for ${tfidf.idf === null ? 'no idf' : `an idf of ${tfidf.idf.length}`}`)
}

export const tfidfTransformer = defineEstimator<TfidfTransformerState, 'step'>({
  type: 'tfidf-transformer',
  role: 'step',
  names: ['TfidfTransformer'],
  build: obj => {
    const tfidf = readTfidf(obj)
    const nFeatures = tfidf.idf?.length ?? -1
    return { type: 'tfidf-transformer', kind: obj.name, tfidf, nFeatures }
  },
  check,
  create: state => ({
    kind: state.kind,
    nFeaturesIn: state.nFeatures,
    nFeaturesOut: state.nFeatures,
    params: tfidfParams(state.tfidf),
    transform: row => applyTfidf(row, state.tfidf, true),
    sourceFeature: j => j
  })
})

export function tfidfParams (tfidf: TfidfState): Record<string, unknown> {
  return { norm: tfidf.norm, use_idf: tfidf.idf !== null, sublinear_tf: tfidf.sublinearTf }
}
