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

const F32 = new Float32Array(1)
const U32 = new Uint32Array(F32.buffer)

function bitsToFloat32 (bits: number): number {
  U32[0] = bits
  return F32[0]!
}

function float32Bits (x: number): number {
  F32[0] = x
  return U32[0]!
}

/**
 * A float32 fused multiply-add, a * b + c rounded once. The product of two float32 is
 * exact in a double; TwoSum recovers what the double sum dropped, which decides the
 * rounding only when the double sum falls exactly halfway between two float32.
 */
export function fma32 (a: number, b: number, c: number): number {
  const p = a * b
  const s = p + c
  const bb = s - p
  const err = (p - (s - bb)) + (c - bb)
  const r = Math.fround(s)
  if (err === 0 || r === s) return r
  const bits = float32Bits(r)
  const away = bitsToFloat32(r > s === r > 0 ? bits - 1 : bits + 1)
  if (Math.abs(s - r) !== Math.abs(s - away)) return r
  return (err > 0) === (r > s) ? r : away
}

// numpy's float32 log coefficients (npy_simd_data.h), as float32.
const LOG_P = [0, 9.999999999999998702752e-01, 2.112677543073053063722e+00, 1.480000633576506585156e+00, 3.808837741388407920751e-01, 2.589979117907922693523e-02].map(Math.fround)
const LOG_Q = [1, 2.612677543073109236779e+00, 2.453006071784736363091e+00, 9.864942958519418960339e-01, 1.546476374983906719538e-01, 5.875095403124574342950e-03].map(Math.fround)
const LOGE2F = Math.fround(Math.LN2)
const SQRT1_2F = Math.fround(Math.SQRT1_2)

/**
 * `np.log` of a float32, as numpy's SIMD kernel computes it on AVX2/AVX512F machines
 * (numpy 1.20+ `simd_log_FLOAT`, numpy 2 `npyv_log_FLOAT_kernel`): mantissa in
 * [sqrt(1/2), sqrt(2)), a P5/Q5 rational approximation with FMAs, plus e * ln 2. It is
 * up to 3.8 ulp from the true log, so Math.log rounded to float32 differs for about
 * 3% of integers; sublinear_tf on a float32 vectorizer needs this to match.
 */
export function numpyLogFloat32 (x: number): number {
  if (Number.isNaN(x)) return x
  if (x < 0) return NaN
  if (x === 0) return -Infinity
  if (x === Infinity) return Infinity
  let v = Math.fround(x)
  let e = 0
  if (v < 1.1754943508222875e-38) { // FLT_MIN: denormals are scaled by 2^100 first
    v = Math.fround(v * 2 ** 100)
    e = -100
  }
  const bits = float32Bits(v)
  e += ((bits >>> 23) & 0xff) - 126
  let m = bitsToFloat32((bits & 0x007fffff) | 0x3f000000)
  if (m <= SQRT1_2F) {
    m = m + m
    e -= 1
  }
  const y = Math.fround(m - 1)
  let num = fma32(LOG_P[5]!, y, LOG_P[4]!)
  let den = fma32(LOG_Q[5]!, y, LOG_Q[4]!)
  for (let k = 3; k >= 0; k--) {
    num = fma32(num, y, LOG_P[k]!)
    den = fma32(den, y, LOG_Q[k]!)
  }
  return fma32(e, LOGE2F, Math.fround(num / den))
}
