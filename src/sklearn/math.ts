/**
 * The numerics scikit-learn's predictions go through, in numpy/scipy's order of
 * operations (numpy 1.24, scipy 1.10), so results agree to the last few ulps.
 */

/** scipy.special.expit: 1 / (1 + exp(-x)). */
export function expit (x: number): number {
  return 1 / (1 + Math.exp(-x))
}

/**
 * `np.sum` along a contiguous axis: the first item, plus numpy's pairwise sum of the
 * rest (8 accumulators per block of up to 128, halves above that).
 */
export function numpySum (a: ArrayLike<number>, start = 0, end = a.length): number {
  if (end <= start) return 0
  return a[start]! + pairwiseSum(a, start + 1, end - start - 1)
}

/**
 * `x.sum(axis=1)` of a one-row matrix `x = a[None, :]`: numpy starts that reduction from 0
 * and sums every item pairwise, the first included (checked on numpy 1.24 and 2.4).
 */
export function numpyRowSum (a: ArrayLike<number>): number {
  return pairwiseSum(a, 0, a.length)
}

function pairwiseSum (a: ArrayLike<number>, start: number, n: number): number {
  if (n < 8) {
    let res = 0
    for (let i = 0; i < n; i++) res += a[start + i]!
    return res
  }
  if (n <= 128) {
    const r = [a[start]!, a[start + 1]!, a[start + 2]!, a[start + 3]!, a[start + 4]!, a[start + 5]!, a[start + 6]!, a[start + 7]!]
    let i = 8
    for (; i < n - (n % 8); i += 8) {
      for (let k = 0; k < 8; k++) r[k]! += a[start + i + k]!
    }
    let res = ((r[0]! + r[1]!) + (r[2]! + r[3]!)) + ((r[4]! + r[5]!) + (r[6]! + r[7]!))
    for (; i < n; i++) res += a[start + i]!
    return res
  }
  let n2 = Math.floor(n / 2)
  n2 -= n2 % 8
  return pairwiseSum(a, start, n2) + pairwiseSum(a, start + n2, n - n2)
}

/**
 * One CSR row times a dense matrix given transposed (nFeatures rows of `outputs` values),
 * plus `offset`: `safe_sparse_dot(X, W.T) + offset` in scipy's csr_matvecs order (row
 * entries as stored, the offset added after the sum).
 */
export function sparseDotPlus (indices: Int32Array, values: Float64Array, weightT: Float64Array, outputs: number, offset: Float64Array): Float64Array {
  const y = new Float64Array(outputs)
  for (let e = 0; e < indices.length; e++) {
    const a = values[e]!
    const base = indices[e]! * outputs
    for (let k = 0; k < outputs; k++) y[k]! += a * weightT[base + k]!
  }
  for (let k = 0; k < outputs; k++) y[k]! += offset[k]!
  return y
}

/** sklearn.utils.extmath.softmax of one row, in place. */
export function softmaxInPlace (x: Float64Array): Float64Array {
  let max = -Infinity
  for (const v of x) if (v > max) max = v
  for (let i = 0; i < x.length; i++) x[i] = Math.exp(x[i]! - max)
  const sum = numpySum(x)
  for (let i = 0; i < x.length; i++) x[i] = x[i]! / sum
  return x
}

/** scipy.special.logsumexp of one row. */
export function logSumExp (x: Float64Array): number {
  let max = -Infinity
  for (const v of x) if (v > max) max = v
  if (!Number.isFinite(max)) max = 0
  const tmp = new Float64Array(x.length)
  for (let i = 0; i < x.length; i++) tmp[i] = Math.exp(x[i]! - max)
  return Math.log(numpySum(tmp)) + max
}

/** The index of the first largest value, as numpy's argmax picks it. */
export function argmax (x: ArrayLike<number>): number {
  let best = 0
  for (let i = 1; i < x.length; i++) if (x[i]! > x[best]! || (Number.isNaN(x[i]!) && !Number.isNaN(x[best]!))) best = i
  return best
}

/**
 * sklearn.utils.multiclass._ovr_decision_function for one row: pair p runs over (i, j),
 * i < j, in order; `forJ[p]` 1 where its prediction is j; `confidences[p]` its confidence
 * (for j). Votes plus the summed confidences squashed into (-1/3, 1/3).
 */
export function ovrDecisionFunction (forJ: Uint8Array, confidences: Float64Array, k: number): Float64Array {
  const votes = new Float64Array(k)
  const sums = new Float64Array(k)
  let p = 0
  for (let i = 0; i < k; i++) {
    for (let j = i + 1; j < k; j++) {
      const conf = confidences[p]!
      sums[i] -= conf
      sums[j] += conf
      if (forJ[p] === 1) votes[j]++
      else votes[i]++
      p++
    }
  }
  const out = new Float64Array(k)
  for (let c = 0; c < k; c++) out[c] = votes[c]! + sums[c]! / (3 * (Math.abs(sums[c]!) + 1))
  return out
}

/** A rows x cols matrix (C order) as cols rows of rows values: weights by feature, for sparse products. */
export function transposed (flat: Float64Array, rows: number, cols: number): Float64Array {
  const t = new Float64Array(rows * cols)
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) t[c * rows + r] = flat[r * cols + c]!
  return t
}

/** x @ weightT for a float32 row and float32 weights: each product and each sum rounded to float32. */
export function sparseDotFloat32 (indices: Int32Array, values: Float64Array, weightT: Float64Array, outputs: number): Float64Array {
  const y = new Float64Array(outputs)
  for (let e = 0; e < indices.length; e++) {
    const a = values[e]!
    const base = indices[e]! * outputs
    for (let k = 0; k < outputs; k++) y[k] = Math.fround(y[k]! + Math.fround(a * weightT[base + k]!))
  }
  return y
}

