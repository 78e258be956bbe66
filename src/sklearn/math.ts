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
