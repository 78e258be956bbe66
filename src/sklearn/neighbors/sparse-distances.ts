/**
 * Distances from one sparse query row to every training row (`_fit_X`, CSR), with the
 * arithmetic of each routine scikit-learn's brute-force `kneighbors` may run on sparse rows:
 *
 * - the pairwise-distances reductions (Cython, `_pairwise_distances_reduction`): for
 *   'euclidean' `||x||² - 2 x.y + ||y||²` with the middle term summed over x's entries
 *   (`_middle_term_sparse_sparse_64`, float64 even for float32 rows), else a metric's
 *   `rdist_csr` merging the two rows' sorted indices (`_dist_metrics.pyx.tp`);
 * - the fallback `pairwise_distances` (`metrics/pairwise.py`): `euclidean_distances`
 *   (scipy's sparse product; float32 rows upcast in chunks and the result cast back to
 *   float32), `_sparse_manhattan`, and `cosine_distances` (rows l2-normalised, their sparse
 *   product, `1 - S` clipped to [0, 2]).
 *
 * "float32" means both the query and the training rows are float32; scikit-learn computes in
 * float64 when either is not, and so do these. Every sum runs in the order scikit-learn's
 * loops run it.
 */
import type { SparseRow } from '../sparse-row.js'
import { sortedEntries } from '../sparse-row.js'

/** The training rows and what is computed once from them. */
export interface TrainingRows {
  readonly nSamples: number
  readonly nFeatures: number
  /** `_fit_X`: CSR, each row's indices strictly increasing. */
  readonly indptr: Int32Array
  readonly indices: Int32Array
  readonly data: Float64Array
  /** Whether `_fit_X.data` is float32 (its values are then float32 numbers). */
  readonly float32: boolean
  /** The same entries by feature (CSC), each column's rows increasing: for dot products in x's order. */
  readonly cscIndptr: Int32Array
  readonly cscRows: Int32Array
  readonly cscData: Float64Array
  /** Each row's squared norm, summed left to right in float64. */
  readonly sqNorms: Float64Array
  /** `normalize(_fit_X)` in the training dtype (`inplace_csr_row_normalize_l2`), by feature like cscData. */
  readonly cscUnit: Float64Array
}

const f32 = Math.fround

/** CSC copies of a CSR matrix's entries (rows increasing within each column). */
export function byFeature (indptr: Int32Array, indices: Int32Array, values: Float64Array, nFeatures: number): { cscIndptr: Int32Array, cscRows: Int32Array, cscData: Float64Array } {
  const nnz = indices.length
  const cscIndptr = new Int32Array(nFeatures + 1)
  for (let p = 0; p < nnz; p++) cscIndptr[indices[p]! + 1]++
  for (let c = 0; c < nFeatures; c++) cscIndptr[c + 1] += cscIndptr[c]!
  const next = cscIndptr.slice(0, nFeatures)
  const cscRows = new Int32Array(nnz)
  const cscData = new Float64Array(nnz)
  for (let i = 0; i + 1 < indptr.length; i++) {
    for (let p = indptr[i]!; p < indptr[i + 1]!; p++) {
      const q = next[indices[p]!]!++
      cscRows[q] = i
      cscData[q] = values[p]!
    }
  }
  return { cscIndptr, cscRows, cscData }
}

/**
 * `inplace_csr_row_normalize_l2` on copies of the rows' values: a double sum of squares
 * (each square in the data's dtype), rows summing to zero left as they are, each value
 * divided by the root and stored in the data's dtype.
 */
export function unitRows (indptr: Int32Array, values: Float64Array, float32: boolean): Float64Array {
  const out = values.slice()
  for (let i = 0; i + 1 < indptr.length; i++) {
    let sum = 0
    for (let p = indptr[i]!; p < indptr[i + 1]!; p++) sum += float32 ? f32(values[p]! * values[p]!) : values[p]! * values[p]!
    if (sum === 0) continue
    sum = Math.sqrt(sum)
    for (let p = indptr[i]!; p < indptr[i + 1]!; p++) out[p] = float32 ? f32(values[p]! / sum) : values[p]! / sum
  }
  return out
}

/** Each row's squared norm in float64, left to right (`_sqeuclidean_row_norms64_sparse`, `row_norms`). */
export function squaredNorms (indptr: Int32Array, values: Float64Array): Float64Array {
  const out = new Float64Array(indptr.length - 1)
  for (let i = 0; i < out.length; i++) {
    let s = 0
    for (let p = indptr[i]!; p < indptr[i + 1]!; p++) s += values[p]! * values[p]!
    out[i] = s
  }
  return out
}

function squaredNorm (values: Float64Array): number {
  let s = 0
  for (const v of values) s += v * v
  return s
}

/**
 * `sum_k scale * x_k * y_k` for every training row, the terms added in x's entry order from
 * 0: scipy's `csr_matmat` for x @ Y.T (scale 1), the Cython middle term (scale -2, each
 * term `(-2 * x) * y`). float32 runs scipy's float product and sum.
 */
function dots (fit: TrainingRows, row: SparseRow, columnValues: Float64Array, scale: number, float32: boolean, out: Float64Array): Float64Array {
  out.fill(0)
  const { cscIndptr, cscRows } = fit
  for (let e = 0; e < row.indices.length; e++) {
    const c = row.indices[e]!
    const xv = scale * row.values[e]!
    for (let p = cscIndptr[c]!; p < cscIndptr[c + 1]!; p++) {
      const j = cscRows[p]!
      out[j] = float32 ? f32(out[j]! + f32(xv * columnValues[p]!)) : out[j]! + xv * columnValues[p]!
    }
  }
  return out
}

/**
 * `EuclideanArgKmin`'s surrogate distances: max(0, (||x||² + middle) + ||y||²), in float64
 * whatever the dtype (1.3 and later; 1.2's float32 version is not reproduced).
 */
export function euclideanReduction (fit: TrainingRows, row: SparseRow, out: Float64Array): Float64Array {
  const xx = squaredNorm(row.values)
  dots(fit, row, fit.cscData, -2, false, out)
  for (let j = 0; j < out.length; j++) out[j] = Math.max(0, (xx + out[j]!) + fit.sqNorms[j]!)
  return out
}

/** The metrics whose `rdist_csr` the reductions run on sparse rows. */
export type CsrMetric = 'l2' | 'manhattan' | 'minkowski'

/**
 * A `DistanceMetric`'s `rdist_csr` from `row` to every training row, walking both rows'
 * indices together as the Cython does (x as given, y as stored): 'l2' is
 * EuclideanDistance (squared differences, float64 sum), 'manhattan' ManhattanDistance,
 * 'minkowski' MinkowskiDistance with p = 1 (the only p scikit-learn fits on sparse rows
 * there). For float32 rows the differences are taken in float32; with `float32Metric`
 * (1.3's `DistanceMetric32`) the result is returned as a float32 and manhattan keeps its
 * running sum in float32, where 1.2 summed and returned float64.
 */
export function rdistCsr (fit: TrainingRows, row: SparseRow, metric: CsrMetric, float32: boolean, float32Metric: boolean, out: Float64Array): Float64Array {
  const { indptr, indices, data } = fit
  const xi = row.indices
  const xv = row.values
  const xEnd = xi.length
  // a term: |x - y| or (x - y)², the difference taken in the dtype
  const term = metric === 'l2'
    ? (d: number): number => d * d
    : (d: number): number => Math.abs(d)
  const round = float32 && float32Metric
  const keep32 = round && metric === 'manhattan'
  for (let j = 0; j < fit.nSamples; j++) {
    let i1 = 0
    let i2 = indptr[j]!
    const end2 = indptr[j + 1]!
    let d = 0
    const add = (t: number): void => { d = keep32 ? f32(d + t) : d + t }
    while (i1 < xEnd && i2 < end2) {
      const ix1 = xi[i1]!
      const ix2 = indices[i2]!
      if (ix1 === ix2) {
        add(term(float32 ? f32(xv[i1]! - data[i2]!) : xv[i1]! - data[i2]!))
        i1++
        i2++
      } else if (ix1 < ix2) {
        add(term(xv[i1]!))
        i1++
      } else {
        add(term(data[i2]!))
        i2++
      }
    }
    if (i1 === xEnd) {
      for (; i2 < end2; i2++) add(term(data[i2]!))
    } else {
      for (; i1 < xEnd; i1++) add(term(xv[i1]!))
    }
    out[j] = round ? f32(d) : d
  }
  return out
}

/** The metrics of the fallback `pairwise_distances` ('euclidean' squared, as kneighbors asks). */
export type PairwiseMetric = 'euclidean' | 'l2' | 'manhattan' | 'cosine'

/**
 * `pairwise_distances(x, _fit_X, metric)` as `kneighbors` calls it when the reductions do
 * not apply (cosine; an all-zero row; dtypes that differ): 'euclidean' gives squared
 * distances, 'l2' the distances. Values are float32 numbers when `float32`.
 */
export function pairwiseDistances (fit: TrainingRows, row: SparseRow, metric: PairwiseMetric, float32: boolean, out: Float64Array, unit64: () => Float64Array): Float64Array {
  if (metric === 'euclidean' || metric === 'l2') {
    // euclidean_distances: -2 x.Y^T + XX + YY, float32 rows through float64 chunks
    const xx = squaredNorm(row.values)
    dots(fit, row, fit.cscData, 1, false, out)
    for (let j = 0; j < out.length; j++) {
      let d = ((-2 * out[j]!) + xx) + fit.sqNorms[j]!
      if (float32) d = f32(d)
      d = Math.max(d, 0)
      out[j] = metric === 'l2' ? (float32 ? f32(Math.sqrt(d)) : Math.sqrt(d)) : d
    }
    return out
  }
  if (metric === 'manhattan') return sparseManhattan(fit, row, float32, out)
  // cosine_distances
  const unit = float32 === fit.float32 ? fit.cscUnit : unit64()
  const x = unitRow(row, float32)
  dots(fit, x, unit, 1, float32, out)
  if (float32) {
    for (let j = 0; j < out.length; j++) out[j] = Math.min(Math.max(f32(1 + -out[j]!), 0), 2)
  } else {
    for (let j = 0; j < out.length; j++) out[j] = Math.min(Math.max(1 + -out[j]!, 0), 2)
  }
  return out
}

/** `_sparse_manhattan` after `sum_duplicates()` (indices sorted): a float64 sum of |x - y|, the difference in the dtype. */
function sparseManhattan (fit: TrainingRows, row: SparseRow, float32: boolean, out: Float64Array): Float64Array {
  const { indptr, indices, data } = fit
  const { indices: xi, values: xv } = sortedEntries(row)
  for (let j = 0; j < fit.nSamples; j++) {
    let i = 0
    let p = indptr[j]!
    const end = indptr[j + 1]!
    let d = 0
    while (i < xi.length && p < end) {
      if (xi[i] === indices[p]) {
        d += Math.abs(float32 ? f32(xv[i]! - data[p]!) : xv[i]! - data[p]!)
        i++
        p++
      } else if (xi[i]! < indices[p]!) {
        d += Math.abs(xv[i++]!)
      } else {
        d += Math.abs(data[p++]!)
      }
    }
    if (i === xi.length) {
      for (; p < end; p++) d += Math.abs(data[p]!)
    } else {
      for (; i < xi.length; i++) d += Math.abs(xv[i]!)
    }
    out[j] = d
  }
  return out
}

/** `normalize(x)` of the query row, in its dtype. */
function unitRow (row: SparseRow, float32: boolean): SparseRow {
  const indptr = Int32Array.of(0, row.values.length)
  return { indices: row.indices, values: unitRows(indptr, row.values, float32), float32 }
}

/** float32 training rows normalised in float64, as a float64 query makes scikit-learn upcast them; by feature. */
export function unitByFeature64 (fit: TrainingRows): Float64Array {
  return byFeature(fit.indptr, fit.indices, unitRows(fit.indptr, fit.data, false), fit.nFeatures).cscData
}
