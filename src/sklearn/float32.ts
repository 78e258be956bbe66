/**
 * float32 arithmetic as numpy, scipy and glibc do it, for models that compute in float32
 * (a float32 TfidfVectorizer's sublinear_tf; scikit-learn 1.9's LogisticRegression, and
 * saga/sag/newton solvers in every version, keep a float32 coef_ when fitted on float32
 * rows and then score in float32). A float32 +, -, *, / or sqrt is `Math.fround` of the
 * double result; exp and log are not correctly rounded in those libraries, so their own
 * kernels are reproduced bit for bit (numpy 2 SIMD exp and log, glibc 2.36 expf).
 */
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
function fma32 (a: number, b: number, c: number): number {
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

const f32 = Math.fround

/** numpy's float32 exp constants (npyv exp kernel, as bit patterns). */
const EXP = {
  log2e: bitsToFloat32(0x3fb8aa3b),
  magic: bitsToFloat32(0x4b400000),
  c1: bitsToFloat32(0xbf317200),
  c2: bitsToFloat32(0xb5bfbe8e),
  p: [0x3f800000, 0x3f39cbd5, 0x3e7d4c58, 0x3d517d8c, 0x3bdd7159, 0x3a053dd8].map(bitsToFloat32),
  q: [0x3f800000, 0xbe8c6857, 0x3cb0e832].map(bitsToFloat32),
  max: 88.72283935546875,
  min: -103.97208404541015625
}

/**
 * `np.exp` of a float32 as numpy 2's SIMD kernel computes it on AVX2/AVX512F machines
 * (`simd_exp_FLOAT`): n = round(x log2 e), a Cody-Waite reduction with FMAs, a rational
 * P5/Q2 approximation, then the scaling by 2^n rounded once. It differs from a correctly
 * rounded exp for about a third of inputs, so softmax in float32 needs exactly this.
 */
export function numpyExpFloat32 (x: number): number {
  if (Number.isNaN(x)) return x
  if (x >= EXP.max) return Infinity
  if (x <= EXP.min) return 0
  const q = f32(f32(f32(x * EXP.log2e) + EXP.magic) - EXP.magic)
  let r = fma32(q, EXP.c1, x)
  r = fma32(q, EXP.c2, r)
  const [p0, p1, p2, p3, p4, p5] = EXP.p as [number, number, number, number, number, number]
  const num = fma32(fma32(fma32(fma32(fma32(p5, r, p4), r, p3), r, p2), r, p1), r, p0)
  const [q0, q1, q2] = EXP.q as [number, number, number]
  const den = fma32(fma32(q2, r, q1), r, q0)
  return f32(f32(num / den) * 2 ** q)
}

/** A C hexadecimal float literal ('0x1.8p+52'), which JavaScript lacks; exact for up to 13 hex digits. */
function hexFloat (literal: string): number {
  const m = /^(-?)0x([0-9a-f])\.([0-9a-f]*)p([+-]\d+)$/.exec(literal)
  if (m === null) throw new RangeError(`bad hex float ${literal}`)
  const [, sign, lead, frac, exp] = m as unknown as [string, string, string, string, string]
  const value = Number.parseInt(lead + frac, 16) / 16 ** frac.length * 2 ** Number(exp)
  return sign === '-' ? -value : value
}

// glibc's expf (optimized-routines e_expf.c, EXP2F_TABLE_BITS 5): computed in double.
const EXPF_N = 32
const EXPF_INV_LN2_N = hexFloat('0x1.71547652b82fep+0') * EXPF_N
const EXPF_SHIFT = hexFloat('0x1.8p+52')
const EXPF_C = [hexFloat('0x1.c6af84b912394p-5') / EXPF_N / EXPF_N / EXPF_N, hexFloat('0x1.ebfce50fac4f3p-3') / EXPF_N / EXPF_N, hexFloat('0x1.62e42ff0c52d6p-1') / EXPF_N] as const
const EXPF_T = (() => {
  const bits = [
    0x3ff0000000000000n, 0x3fefd9b0d3158574n, 0x3fefb5586cf9890fn, 0x3fef9301d0125b51n, 0x3fef72b83c7d517bn,
    0x3fef54873168b9aan, 0x3fef387a6e756238n, 0x3fef1e9df51fdee1n, 0x3fef06fe0a31b715n, 0x3feef1a7373aa9cbn,
    0x3feedea64c123422n, 0x3feece086061892dn, 0x3feebfdad5362a27n, 0x3feeb42b569d4f82n, 0x3feeab07dd485429n,
    0x3feea47eb03a5585n, 0x3feea09e667f3bcdn, 0x3fee9f75e8ec5f74n, 0x3feea11473eb0187n, 0x3feea589994cce13n,
    0x3feeace5422aa0dbn, 0x3feeb737b0cdc5e5n, 0x3feec49182a3f090n, 0x3feed503b23e255dn, 0x3feee89f995ad3adn,
    0x3feeff76f2fb5e47n, 0x3fef199bdd85529cn, 0x3fef3720dcef9069n, 0x3fef5818dcfba487n, 0x3fef7c97337b9b5fn,
    0x3fefa4afa2a490dan, 0x3fefd0765b6e4540n
  ]
  // glibc stores 2^(j/32) with j << 47 taken off its bits (added back with k's at run time).
  const view = new DataView(new ArrayBuffer(8))
  return Float64Array.from(bits, (b, j) => { view.setBigUint64(0, b + (BigInt(j) << 47n)); return view.getFloat64(0) })
})()

/**
 * glibc 2.36's `expf` (what scipy's float32 `expit` calls): 2^(k/32) from a table times a
 * cubic in the remainder, in double, rounded once to float32. `Math.fround(Math.exp(x))`
 * differs from it for about 1 input in 1,250.
 */
export function glibcExpf (x: number): number {
  const abstop = (float32Bits(x) >>> 20) & 0x7ff
  if (abstop >= 0x42b) {
    if (x === -Infinity) return 0
    if (abstop >= 0x7f8) return x + x
    if (x > 88.72283172607422) return Infinity // 0x1.62e42ep6
    if (x < -103.97207641601562) return 0 // -0x1.9fe368p6
  }
  const z = EXPF_INV_LN2_N * x
  const kd = (z + EXPF_SHIFT) - EXPF_SHIFT
  const k = kd | 0
  const r = z - kd
  const s = EXPF_T[k & 31]! * 2 ** (k >> 5)
  const zz = EXPF_C[0] * r + EXPF_C[1]
  const r2 = r * r
  let y = EXPF_C[2] * r + 1
  y = zz * r2 + y
  return f32(y * s)
}

// glibc's logf (optimized-routines e_logf.c, LOGF_TABLE_BITS 4): (1/c, log c) near each of 16 centres.
const LOGF_T = [
  ['0x1.661ec79f8f3bep+0', '-0x1.57bf7808caadep-2'], ['0x1.571ed4aaf883dp+0', '-0x1.2bef0a7c06ddbp-2'],
  ['0x1.49539f0f010bp+0', '-0x1.01eae7f513a67p-2'], ['0x1.3c995b0b80385p+0', '-0x1.b31d8a68224e9p-3'],
  ['0x1.30d190c8864a5p+0', '-0x1.6574f0ac07758p-3'], ['0x1.25e227b0b8eap+0', '-0x1.1aa2bc79c81p-3'],
  ['0x1.1bb4a4a1a343fp+0', '-0x1.a4e76ce8c0e5ep-4'], ['0x1.12358f08ae5bap+0', '-0x1.1973c5a611cccp-4'],
  ['0x1.0953f419900a7p+0', '-0x1.252f438e10c1ep-5'], ['0x1.0p+0', '0x0.0p+0'],
  ['0x1.e608cfd9a47acp-1', '0x1.aa5aa5df25984p-5'], ['0x1.ca4b31f026aap-1', '0x1.c5e53aa362eb4p-4'],
  ['0x1.b2036576afce6p-1', '0x1.526e57720db08p-3'], ['0x1.9c2d163a1aa2dp-1', '0x1.bc2860d22477p-3'],
  ['0x1.886e6037841edp-1', '0x1.1058bc8a07ee1p-2'], ['0x1.767dcf5534862p-1', '0x1.4043057b6ee09p-2']
].map(([invc, logc]) => [hexFloat(invc!), hexFloat(logc!)] as const)
const LOGF_LN2 = hexFloat('0x1.62e42fefa39efp-1')
const LOGF_A = ['-0x1.00ea348b88334p-2', '0x1.5575b0be00b6ap-2', '-0x1.ffffef20a4123p-2'].map(hexFloat) as [number, number, number]

/**
 * glibc 2.36's `logf` (what xgboost's `ProbToMargin` calls): x = 2^k z, log1p(z/c - 1) by a
 * cubic, plus log c + k ln 2, in double, rounded once to float32. It is not correctly
 * rounded (0.82 ulp), so `Math.fround(Math.log(x))` can differ from it.
 */
export function glibcLogf (x: number): number {
  let ix = float32Bits(x)
  if (ix === 0x3f800000) return 0
  if (ix - 0x00800000 >>> 0 >= 0x7f800000 - 0x00800000) {
    if ((ix << 1) === 0) return -Infinity
    if (ix === 0x7f800000) return x
    if ((ix & 0x80000000) !== 0 || (ix << 1 >>> 0) >= 0xff000000) return NaN
    ix = float32Bits(Math.fround(x * 2 ** 23)) - (23 << 23) // a subnormal, normalised
  }
  const tmp = (ix - 0x3f330000) >>> 0
  const [invc, logc] = LOGF_T[(tmp >>> 19) % 16]!
  const k = (tmp | 0) >> 23
  const z = bitsToFloat32((ix - (tmp & (0x1ff << 23))) >>> 0)
  const r = z * invc - 1
  const y0 = logc + k * LOGF_LN2
  const r2 = r * r
  let y = LOGF_A[1] * r + LOGF_A[2]
  y = LOGF_A[0] * r2 + y
  y = y * r2 + (y0 + r)
  return f32(y)
}

/** scipy.special.expit of a float32: 1 / (1 + expf(-x)) in float32. */
export function expitFloat32 (x: number): number {
  return f32(1 / f32(1 + glibcExpf(-x)))
}

/** numpy's pairwise `sum` of float32 values, every addition rounded to float32. */
export function numpySumFloat32 (a: ArrayLike<number>): number {
  const n = a.length
  if (n < 8) {
    let res = n === 0 ? 0 : a[0]!
    for (let i = 1; i < n; i++) res = f32(res + a[i]!)
    return res
  }
  return pairwiseFloat32(a, 0, n)
}

function pairwiseFloat32 (a: ArrayLike<number>, start: number, n: number): number {
  if (n < 8) {
    let res = 0
    for (let i = 0; i < n; i++) res = f32(res + a[start + i]!)
    return res
  }
  if (n <= 128) {
    const r = Array.from({ length: 8 }, (_, k) => a[start + k]!)
    let i = 8
    for (; i < n - (n % 8); i += 8) for (let k = 0; k < 8; k++) r[k] = f32(r[k]! + a[start + i + k]!)
    let res = f32(f32(f32(r[0]! + r[1]!) + f32(r[2]! + r[3]!)) + f32(f32(r[4]! + r[5]!) + f32(r[6]! + r[7]!)))
    for (; i < n; i++) res = f32(res + a[start + i]!)
    return res
  }
  let n2 = Math.floor(n / 2)
  n2 -= n2 % 8
  return f32(pairwiseFloat32(a, start, n2) + pairwiseFloat32(a, start + n2, n - n2))
}

/** sklearn.utils.extmath.softmax of a float32 row, in place: every step in float32. */
export function softmaxFloat32InPlace (x: Float64Array): Float64Array {
  let max = -Infinity
  for (const v of x) if (v > max) max = v
  for (let i = 0; i < x.length; i++) x[i] = numpyExpFloat32(f32(x[i]! - max))
  const sum = numpySumFloat32(x)
  for (let i = 0; i < x.length; i++) x[i] = f32(x[i]! / sum)
  return x
}
