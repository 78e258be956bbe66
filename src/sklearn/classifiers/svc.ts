/**
 * scikit-learn's SVC and NuSVC (libsvm C_SVC / NU_SVC): `decision_function`, `predict`
 * and `predict_proba` as scikit-learn's libsvm fork computes them (svm.cpp
 * `k_function`, `svm_predict_values`, `svm_predict_probability`, `sigmoid_predict`,
 * `multiclass_probability`), with scikit-learn's binary sign flip, ovr transform and
 * break_ties on top (`BaseSVC`). Every sum is libsvm's plain left-to-right one, so the
 * sparse linear, poly and sigmoid kernels agree to the bit (but where V8's tanh differs
 * from glibc's by an ulp); the rbf kernel takes |x - sv|^2 from dot products (see below),
 * within about 1e-14 of libsvm and several times faster.
 *
 * A model fitted on dense rows goes through libsvm's dense build, whose BLAS `ddot`
 * sums in an unspecified order: we sum the nonzeros left to right, which differs by
 * ~1e-15 (adding the zero terms changes nothing, so the dense support vectors are kept
 * in CSR form like the sparse ones).
 */
import type { NumericArray } from '../../pickle/numpy.js'
import { SparseMatrix, indexAt } from '../../pickle/scipy-sparse.js'
import { PyTuple, type PyObject, type PyValue } from '../../pickle/values.js'
import { defineEstimator, type Classifier, type EstimatorState, type Scores } from '../estimator.js'
import { argmax, ovrDecisionFunction, softmaxInPlace } from '../math.js'
import { attr, attrOf, bool, describe, int, num, numericArray, param, readClasses, shapeError, toFloat64, unsupported } from '../record.js'
import { sortedEntries, type SparseRow } from '../sparse-row.js'
import { summarize } from '../../pickle/summarize.js'
import { Fields, MAX_FEATURES, shapeProblem } from '../state-fields.js'

/** The kernels served ('precomputed' and callables are not). */
export type SvmKernel = 'linear' | 'poly' | 'rbf' | 'sigmoid'

const KERNELS: readonly SvmKernel[] = ['linear', 'poly', 'rbf', 'sigmoid']

/** An SVC or NuSVC as libsvm's predict reads it (the C layer's arrays, not the public flipped ones). */
export interface SvcState extends EstimatorState {
  readonly classes: readonly string[]
  readonly kernel: SvmKernel
  /** The fitted `_gamma` (never the 'scale'/'auto' parameter). */
  readonly gamma: number
  readonly coef0: number
  /** Cast to a C int, as libsvm's `powi` takes it. */
  readonly degree: number
  readonly nFeatures: number
  /** support_vectors_ as CSR (dense-fitted ones too, zeros dropped); per row in stored order. */
  readonly svIndptr: Int32Array
  readonly svIndices: Int32Array
  readonly svValues: Float64Array
  /** Whether each support vector's indices strictly increase (always so for scikit-learn's own). */
  readonly svSorted: boolean
  /** `_n_support`: support vectors per class, in class order (libsvm's blocks). */
  readonly nSupport: Int32Array
  /** `_dual_coef_` (libsvm's sv_coef, unflipped): nClasses - 1 rows of nSV values. */
  readonly dualCoef: Float64Array
  /** `_intercept_` (= -rho, unflipped), one per class pair (0,1), (0,2), ..., (1,2), ... */
  readonly intercept: Float64Array
  /** Platt scaling `_probA`/`_probB` per pair; null when the model has no predict_proba. */
  readonly probA: Float64Array | null
  readonly probB: Float64Array | null
  /** decision_function_shape == 'ovr' (anything else is scikit-learn's ovo branch). */
  readonly ovr: boolean
  /** predict takes the argmax of the ovr decision values (break_ties with ovr and > 2 classes). */
  readonly breakTies: boolean
  readonly params: Readonly<Record<string, unknown>>
}

interface Csr {
  indptr: Int32Array
  indices: Int32Array
  values: Float64Array
  rows: number
  cols: number
}

function csrOf (value: PyValue, what: string): Csr {
  if (value instanceof SparseMatrix) {
    // libsvm's csr_set_model reads indptr/indices/data as CSR; any other layout would be misread.
    if (value.format !== 'csr') unsupported(`${what} is a ${value.format} matrix; scikit-learn stores a csr one`)
    const [rows, cols] = value.shape
    const indptr = new Int32Array(rows + 1)
    for (let i = 0; i <= rows; i++) indptr[i] = indexAt(value.indptr!, i)
    const indices = new Int32Array(value.nnz)
    for (let p = 0; p < indices.length; p++) indices[p] = indexAt(value.indices!, p)
    return { indptr, indices, values: Float64Array.from(toFloat64(value.data, what)), rows, cols }
  }
  // Dense support vectors: summing only the nonzeros equals the dense left-to-right sum.
  const array = numericArray(value, what, 2)
  const [rows, cols] = array.shape as [number, number]
  const flat = toFloat64(array, what)
  let nnz = 0
  for (const v of flat) if (v !== 0) nnz++
  const indptr = new Int32Array(rows + 1)
  const indices = new Int32Array(nnz)
  const values = new Float64Array(nnz)
  let p = 0
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      const v = flat[i * cols + j]!
      if (v !== 0) {
        indices[p] = j
        values[p++] = v
      }
    }
    indptr[i + 1] = p
  }
  return { indptr, indices, values, rows, cols }
}

function isSortedCsr ({ indptr, indices, rows }: Csr): boolean {
  for (let i = 0; i < rows; i++) {
    for (let p = indptr[i]! + 1; p < indptr[i + 1]!; p++) if (indices[p]! <= indices[p - 1]!) return false
  }
  return true
}

/**
 * `_dual_coef_` as libsvm's flat sv_coef. A sparse one is read through its `.data`
 * alone (csr_set_model does), so it must hold every entry, zeros included.
 */
function dualCoefOf (value: PyValue, what: string, rows: number, cols: number): Float64Array {
  if (value instanceof SparseMatrix) {
    const [r, c] = value.shape
    if (r !== rows || c !== cols) shapeError(`${what} has shape (${r}, ${c}), expected (${rows}, ${cols})`)
    if (value.format !== 'csr') unsupported(`${what} is a ${value.format} matrix; scikit-learn stores a csr one`)
    if (value.data.size !== rows * cols) shapeError(`${what} stores ${value.data.size} values; libsvm reads all ${rows * cols} (${rows} x ${cols})`)
    return Float64Array.from(toFloat64(value.data, what))
  }
  const array = numericArray(value, what, 2)
  if (array.shape[0] !== rows || array.shape[1] !== cols) shapeError(`${what} has shape (${array.shape.join(', ')}), expected (${rows}, ${cols})`)
  return Float64Array.from(toFloat64(array, what))
}

function vectorOf (value: PyValue, what: string): Float64Array {
  return Float64Array.from(toFloat64(numericArray(value, what, 1), what))
}

/** The first present attribute of `names`, with the name found (for messages). */
function namedAttr (obj: PyObject, names: readonly string[]): { name: string, value: PyValue } {
  const value = attrOf(obj, names)
  return { name: names.find(n => obj.has(n))!, value }
}

/** `probability`: a bool, or 1.9's default string 'deprecated' (meaning False). */
function probabilityOf (obj: PyObject): boolean {
  const v = param(obj, 'probability', false)
  if (v === 'deprecated') return false
  return bool(obj, 'probability', false)
}

function gammaOf (obj: PyObject, nFeatures: number): number {
  if (obj.has('_gamma')) return num(obj, '_gamma')
  // Pickles older than 0.20 have only the parameter; 'auto' was then 1 / n_features.
  const g = param(obj, 'gamma', 'auto')
  if (typeof g === 'number') return g
  if (g === 'auto') return 1 / nFeatures
  return unsupported(`${obj.name} has no '_gamma' and gamma is ${describe(g)}`)
}

function nFeaturesOf (obj: PyObject, svCols: number): number {
  const shapeFit = param(obj, 'shape_fit_', null)
  if (shapeFit instanceof PyTuple && shapeFit.length === 2 && typeof shapeFit.items[1] === 'number') {
    if (shapeFit.items[1] !== svCols) shapeError(`${obj.name}.support_vectors_ has ${svCols} columns but shape_fit_ says ${summarize(shapeFit.items[1])} features`)
  }
  if (obj.has('n_features_in_')) {
    const n = int(obj, 'n_features_in_')
    if (n !== svCols) shapeError(`${obj.name}.support_vectors_ has ${svCols} columns but n_features_in_ is ${n}`)
  }
  return svCols
}

function build (obj: PyObject): SvcState {
  const name = obj.name
  const kernelValue = param(obj, 'kernel', 'rbf')
  if (typeof kernelValue !== 'string' || !(KERNELS as readonly string[]).includes(kernelValue)) {
    return unsupported(`${name}.kernel is ${summarize(kernelValue)}; supported: ${KERNELS.join(', ')}`)
  }
  const kernel = kernelValue as SvmKernel
  const classes = readClasses(attr(obj, 'classes_'), name)

  const svValue = attr(obj, 'support_vectors_')
  const sparse = obj.has('_sparse') ? bool(obj, '_sparse', false) : svValue instanceof SparseMatrix
  if (sparse !== (svValue instanceof SparseMatrix)) {
    shapeError(`${name}.support_vectors_ is ${describe(svValue)} but _sparse is ${sparse ? 'True' : 'False'}`)
  }
  const sv = csrOf(svValue, `${name}.support_vectors_`)
  const l = sv.rows
  const nFeatures = nFeaturesOf(obj, sv.cols)

  // libsvm takes nr_class from n_support; scikit-learn maps its votes through classes_.
  const ns = namedAttr(obj, ['_n_support', 'n_support_'])
  const nsArray = numericArray(ns.value, `${name}.${ns.name}`, 1)
  if (!'iu'.includes(nsArray.dtype.kind)) shapeError(`${name}.${ns.name} is ${nsArray.dtype.str}, not an integer array`)
  const k = classes.length
  if (nsArray.size !== k) shapeError(`${name}.${ns.name} has ${nsArray.size} entries for ${k} classes`)
  const nSupport = new Int32Array(k)
  let total = 0
  for (let c = 0; c < k; c++) {
    const v = Number((nsArray.data as NumericArray)[c])
    if (!(Number.isInteger(v) && v >= 0 && v <= l)) shapeError(`${name}.${ns.name}[${c}] is ${v}, outside 0..${l}`)
    nSupport[c] = v
    total += v
  }
  if (total !== l) shapeError(`${name}.${ns.name} sums to ${total} but support_vectors_ has ${l} rows`)

  // The C layer reads the internal `_dual_coef_`/`_intercept_`; pickles without them carry
  // only the public ones, which scikit-learn negated for two classes.
  const flip = k === 2 ? -1 : 1
  const pairs = k * (k - 1) / 2
  const dc = obj.has('_dual_coef_') ? { name: '_dual_coef_', value: obj.get('_dual_coef_'), sign: 1 } : { ...namedAttr(obj, ['dual_coef_']), sign: flip }
  const dualCoef = dualCoefOf(dc.value, `${name}.${dc.name}`, k - 1, l)
  const ic = obj.has('_intercept_') ? { name: '_intercept_', value: obj.get('_intercept_'), sign: 1 } : { ...namedAttr(obj, ['intercept_']), sign: flip }
  const intercept = vectorOf(ic.value, `${name}.${ic.name}`)
  if (intercept.length !== pairs) shapeError(`${name}.${ic.name} has ${intercept.length} values for ${pairs} class pairs`)
  if (dc.sign < 0) for (let i = 0; i < dualCoef.length; i++) dualCoef[i] = -dualCoef[i]!
  if (ic.sign < 0) for (let i = 0; i < intercept.length; i++) intercept[i] = -intercept[i]!

  let probA: Float64Array | null = null
  let probB: Float64Array | null = null
  const probability = probabilityOf(obj)
  const pa = obj.has('_probA') || obj.has('probA_') ? namedAttr(obj, ['_probA', 'probA_']) : undefined
  const pb = obj.has('_probB') || obj.has('probB_') ? namedAttr(obj, ['_probB', 'probB_']) : undefined
  if (pa !== undefined && pb !== undefined) {
    const a = vectorOf(pa.value, `${name}.${pa.name}`)
    const b = vectorOf(pb.value, `${name}.${pb.name}`)
    for (const [v, n] of [[a, pa.name], [b, pb.name]] as const) {
      if (v.length !== 0 && v.length !== pairs) shapeError(`${name}.${n} has ${v.length} values for ${pairs} class pairs`)
    }
    // predict_proba needs probability=True and a fitted Platt scaling (else NotFittedError).
    if (probability && a.length === pairs && b.length === pairs) {
      probA = a
      probB = b
    }
  }

  const shapeValue = param(obj, 'decision_function_shape', 'ovr')
  if (shapeValue !== 'ovr' && shapeValue !== 'ovo' && shapeValue !== null) {
    unsupported(`${name}.decision_function_shape is ${describe(shapeValue)}; supported: ovr, ovo`)
  }
  const ovr = shapeValue === 'ovr'
  const breakTiesParam = bool(obj, 'break_ties', false)
  if (breakTiesParam && shapeValue === 'ovo') {
    unsupported(`${name} has break_ties=True with decision_function_shape='ovo', which scikit-learn's predict refuses`)
  }

  const degree = kernel === 'poly' ? int(obj, 'degree', 3) : 3
  if (kernel === 'poly' && (degree < -(2 ** 31) || degree >= 2 ** 31)) shapeError(`${name}.degree is ${degree}, not a C int`)
  const gamma = kernel === 'linear' ? 0 : gammaOf(obj, nFeatures)
  const coef0 = kernel === 'poly' || kernel === 'sigmoid' ? num(obj, 'coef0', 0) : 0

  const params: Record<string, unknown> = {
    kernel,
    C: param(obj, 'C', null),
    gamma: kernel === 'linear' ? param(obj, 'gamma', null) : gamma,
    decision_function_shape: shapeValue,
    break_ties: breakTiesParam,
    probability,
    n_support_vectors: l
  }
  if (kernel === 'poly') params.degree = degree
  if (kernel === 'poly' || kernel === 'sigmoid') params.coef0 = coef0
  if (name === 'NuSVC') params.nu = param(obj, 'nu', null)

  return {
    type: 'svc',
    kind: name,
    classes,
    kernel,
    gamma,
    coef0,
    degree,
    nFeatures,
    svIndptr: sv.indptr,
    svIndices: sv.indices,
    svValues: sv.values,
    svSorted: isSortedCsr(sv),
    nSupport,
    dualCoef,
    intercept,
    probA,
    probB,
    ovr,
    breakTies: breakTiesParam && ovr && k > 2,
    params
  }
}

/** libsvm's `powi`: base^n by squaring, n a C int (n <= 0 gives 1). */
function powi (base: number, n: number): number {
  let tmp = base
  let ret = 1.0
  for (let t = n; t > 0; t = Math.trunc(t / 2)) {
    if (t % 2 === 1) ret *= tmp
    tmp = tmp * tmp
  }
  return ret
}

/** libsvm's `sigmoid_predict`: Platt's 1 / (1 + exp(dA + B)), written to avoid cancellation. */
export function sigmoidPredict (decision: number, a: number, b: number): number {
  const fApB = decision * a + b
  if (fApB >= 0) return Math.exp(-fApB) / (1.0 + Math.exp(-fApB))
  return 1.0 / (1 + Math.exp(fApB))
}

/**
 * libsvm's `multiclass_probability` (Wu, Lin and Weng's pairwise coupling, method 2):
 * class probabilities from the pairwise ones `r` (k x k, row-major). libsvm runs it for
 * two classes too; it stops at eps = 0.005 / k, so even then it is not the plain sigmoid.
 */
export function multiclassProbability (k: number, r: Float64Array): Float64Array {
  const maxIter = Math.max(100, k)
  const eps = 0.005 / k
  const p = new Float64Array(k)
  const q = new Float64Array(k * k)
  const qp = new Float64Array(k)
  for (let t = 0; t < k; t++) {
    p[t] = 1.0 / k
    q[t * k + t] = 0
    for (let j = 0; j < t; j++) {
      q[t * k + t] += r[j * k + t]! * r[j * k + t]!
      q[t * k + j] = q[j * k + t]!
    }
    for (let j = t + 1; j < k; j++) {
      q[t * k + t] += r[j * k + t]! * r[j * k + t]!
      q[t * k + j] = -r[j * k + t]! * r[t * k + j]!
    }
  }
  for (let iter = 0; iter < maxIter; iter++) {
    // Recomputed each round for accuracy, as libsvm does.
    let pQp = 0
    for (let t = 0; t < k; t++) {
      qp[t] = 0
      for (let j = 0; j < k; j++) qp[t] += q[t * k + j]! * p[j]!
      pQp += p[t]! * qp[t]!
    }
    let maxError = 0
    for (let t = 0; t < k; t++) {
      const error = Math.abs(qp[t]! - pQp)
      if (error > maxError) maxError = error
    }
    if (maxError < eps) break
    for (let t = 0; t < k; t++) {
      const diff = (-qp[t]! + pQp) / q[t * k + t]!
      p[t] += diff
      pQp = (pQp + diff * (diff * q[t * k + t]! + 2 * qp[t]!)) / (1 + diff) / (1 + diff)
      for (let j = 0; j < k; j++) {
        qp[j] = (qp[j]! + diff * q[t * k + j]!) / (1 + diff)
        p[j] /= (1 + diff)
      }
    }
  }
  return p
}

const MIN_PROB = 1e-7

/** libsvm's `svm_predict_probability` from the internal pairwise decision values. */
function pairwiseProbability (dec: Float64Array, k: number, probA: Float64Array, probB: Float64Array): Float64Array {
  const r = new Float64Array(k * k)
  let p = 0
  for (let i = 0; i < k; i++) {
    for (let j = i + 1; j < k; j++) {
      // libsvm's min/max templates are C ternaries: a NaN sigmoid becomes min_prob.
      const s = sigmoidPredict(dec[p]!, probA[p]!, probB[p]!)
      const lo = s > MIN_PROB ? s : MIN_PROB
      const v = lo < 1 - MIN_PROB ? lo : 1 - MIN_PROB
      r[i * k + j] = v
      r[j * k + i] = 1 - v
      p++
    }
  }
  return multiclassProbability(k, r)
}

/**
 * scikit-learn's `_ovr_decision_function(dec < 0, -dec, k)`: votes plus the summed
 * confidences squashed into (-1/3, 1/3). A pair with dec >= 0 (or NaN) votes for i.
 */
export function ovrDecision (dec: Float64Array, k: number): Float64Array {
  return ovrDecisionFunction(Uint8Array.from(dec, d => d < 0 ? 1 : 0), dec.map(d => -d), k)
}

/** One kernel value per support vector for a row (sorted indices). */
type KernelValues = (xi: Int32Array, xv: Float64Array, out: Float64Array) => void

function kernelValues (state: SvcState): KernelValues {
  const { svIndptr: ptr, svValues: val, kernel, gamma, coef0, degree } = state
  const l = ptr.length - 1
  if (kernel === 'rbf') {
    // exp(-gamma |x - sv|^2) with |x - sv|^2 = |x|^2 + |sv|^2 - 2 x.sv: the dot products touch
    // only the support vectors sharing a feature with the text, where libsvm's merge walks
    // every entry of every support vector. The squared distance differs from libsvm's
    // term-by-term sum by rounding only (about 1e-16 of |x|^2 + |sv|^2); for an empty row
    // it is |sv|^2 summed in libsvm's order, exactly.
    const dots = dotProducts(state)
    const svNorm = new Float64Array(l)
    for (let s = 0; s < l; s++) {
      let sum = 0
      for (let j = ptr[s]!; j < ptr[s + 1]!; j++) sum += val[j]! * val[j]!
      svNorm[s] = sum
    }
    return (xi, xv, out) => {
      dots(xi, xv, out)
      let xx = 0
      for (let i = 0; i < xi.length; i++) xx += xv[i]! * xv[i]!
      for (let s = 0; s < l; s++) out[s] = Math.exp(-gamma * (xx + svNorm[s]! - 2 * out[s]!))
    }
  }
  const dots = dotProducts(state)
  switch (kernel) {
    case 'linear': return dots
    case 'poly': return (xi, xv, out) => {
      dots(xi, xv, out)
      for (let s = 0; s < l; s++) out[s] = powi(gamma * out[s]! + coef0, degree)
    }
    case 'sigmoid': return (xi, xv, out) => {
      dots(xi, xv, out)
      for (let s = 0; s < l; s++) out[s] = Math.tanh(gamma * out[s]! + coef0)
    }
  }
}

/**
 * x . SV_s for every support vector. libsvm's merge adds the products of shared indices
 * in increasing index order, starting from 0.0; walking the row's entries in order over a
 * by-feature (CSC) copy of the support vectors adds the same products to each SV's sum in
 * the same order, so it is bit-identical while touching only SVs that share a feature.
 * Unsorted SV rows (never written by scikit-learn) keep the literal merge.
 */
function dotProducts (state: SvcState): KernelValues {
  const { svIndptr: ptr, svIndices: idx, svValues: val, nFeatures } = state
  const l = ptr.length - 1
  if (!state.svSorted) {
    return (xi, xv, out) => {
      const nx = xi.length
      for (let s = 0; s < l; s++) {
        const end = ptr[s + 1]!
        let j = ptr[s]!
        let i = 0
        let sum = 0
        while (i < nx && j < end) {
          const a = xi[i]!
          const b = idx[j]!
          if (a === b) {
            sum += xv[i]! * val[j]!
            i++
            j++
          } else if (a > b) j++
          else i++
        }
        out[s] = sum
      }
    }
  }
  const colPtr = new Int32Array(nFeatures + 1)
  for (let p = 0; p < idx.length; p++) colPtr[idx[p]! + 1]++
  for (let f = 0; f < nFeatures; f++) colPtr[f + 1] += colPtr[f]!
  const colSv = new Int32Array(idx.length)
  const colVal = new Float64Array(idx.length)
  const fill = colPtr.slice(0, nFeatures)
  for (let s = 0; s < l; s++) {
    for (let p = ptr[s]!; p < ptr[s + 1]!; p++) {
      const q = fill[idx[p]!]!++
      colSv[q] = s
      colVal[q] = val[p]!
    }
  }
  return (xi, xv, out) => {
    out.fill(0)
    let previous = -1
    for (let e = 0; e < xi.length; e++) {
      const f = xi[e]!
      // A repeated index matches one SV entry only once in libsvm's merge.
      if (f === previous || f < 0 || f >= nFeatures) continue
      previous = f
      const x = xv[e]!
      for (let q = colPtr[f]!; q < colPtr[f + 1]!; q++) out[colSv[q]!] += x * colVal[q]!
    }
  }
}

function create (state: SvcState): Classifier {
  const { classes, nSupport, dualCoef, intercept, probA, probB, ovr, breakTies } = state
  const k = classes.length
  const l = state.svIndptr.length - 1
  const pairs = intercept.length
  const start = new Int32Array(k + 1)
  for (let c = 0; c < k; c++) start[c + 1] = start[c]! + nSupport[c]!
  const kernel = kernelValues(state)
  const kvalue = new Float64Array(l)
  const vote = new Int32Array(k)

  /** libsvm's svm_predict_values: the pairwise decision values (internal sign) and the vote winner. */
  const predictValues = (row: SparseRow): { dec: Float64Array, winner: number } => {
    const { indices, values } = sortedEntries(row)
    kernel(indices, values, kvalue)
    const dec = new Float64Array(pairs)
    vote.fill(0)
    let p = 0
    for (let i = 0; i < k; i++) {
      for (let j = i + 1; j < k; j++) {
        let sum = 0
        const ci = (j - 1) * l
        for (let s = start[i]!; s < start[i + 1]!; s++) sum += dualCoef[ci + s]! * kvalue[s]!
        const cj = i * l
        for (let s = start[j]!; s < start[j + 1]!; s++) sum += dualCoef[cj + s]! * kvalue[s]!
        // s -= rho[p] with rho = -_intercept_[p]: the same double as s + _intercept_[p].
        sum += intercept[p]!
        dec[p] = sum
        if (sum > 0) vote[i]++
        else vote[j]++
        p++
      }
    }
    let winner = 0
    for (let c = 1; c < k; c++) if (vote[c]! > vote[winner]!) winner = c
    return { dec, winner }
  }

  return {
    kind: state.kind,
    nFeatures: state.nFeatures,
    classes,
    hasProba: probA !== null,
    hasDecision: true,
    confidence: probA !== null ? 'predict_proba' : 'decision_function',
    params: state.params,
    score: (row: SparseRow): Scores => {
      const { dec, winner } = predictValues(row)
      const proba = probA !== null && probB !== null ? pairwiseProbability(dec, k, probA, probB) : undefined
      if (k === 2) return { classIndex: winner, proba, decision: Float64Array.of(-dec[0]!) }
      if (ovr) {
        const decision = ovrDecision(dec, k)
        return { classIndex: breakTies ? argmax(decision) : winner, proba, decision }
      }
      // ovo: k(k-1)/2 values, so the pseudo-probabilities come from their ovr transform.
      const confidence = proba === undefined ? Math.max(...softmaxInPlace(ovrDecision(dec, k))) : undefined
      return confidence === undefined ? { classIndex: winner, proba, decision: dec } : { classIndex: winner, proba, decision: dec, confidence }
    }
  }
}

/** What create and scoring rely on in a SvcState (from a compiled file, or just built). */
function check (state: unknown, where: string): asserts state is SvcState {
  const f = new Fields(state, where)
  const k = f.strings('classes', 2).length
  const pairs = (k * (k - 1)) / 2
  f.oneOf('kernel', ['linear', 'poly', 'rbf', 'sigmoid'])
  f.number('gamma')
  f.number('coef0')
  f.int('degree', -(2 ** 31))
  const nFeatures = f.int('nFeatures', 1, MAX_FEATURES)
  // Support vectors as CSR: row pointers from 0 to the entries, never going back, columns inside the row.
  const ptr = f.array('svIndptr', Int32Array)
  const l = ptr.length - 1
  if (l < 0) throw shapeProblem(`${where}.svIndptr`, 'is empty')
  const idx = f.indices('svIndices', 0, nFeatures - 1)
  f.array('svValues', Float64Array, idx.length)
  if (ptr[0] !== 0 || ptr[l] !== idx.length) throw shapeProblem(`${where}.svIndptr`, `does not run from 0 to ${idx.length}`)
  for (let s = 0; s < l; s++) if (ptr[s + 1]! < ptr[s]!) throw shapeProblem(`${where}.svIndptr`, `goes back at ${s + 1}`)
  f.bool('svSorted')
  const nSupport = f.indices('nSupport', 0, l, k)
  if (nSupport.reduce((a, b) => a + b, 0) !== l) throw shapeProblem(`${where}.nSupport`, `does not sum to the ${l} support vectors`)
  f.array('dualCoef', Float64Array, (k - 1) * l)
  f.array('intercept', Float64Array, pairs)
  const probA = f.nullable('probA', name => f.array(name, Float64Array, pairs))
  const probB = f.nullable('probB', name => f.array(name, Float64Array, pairs))
  if ((probA === null) !== (probB === null)) throw shapeProblem(where, 'has one of probA and probB')
  f.bool('ovr')
  f.bool('breakTies')
  f.object('params')
}

/** SVC and NuSVC (libsvm C_SVC / NU_SVC), sparse- or dense-fitted. */
export const svcClassifier = defineEstimator<SvcState, 'classifier'>({
  type: 'svc',
  role: 'classifier',
  names: ['SVC', 'NuSVC'],
  build,
  check,
  create
})
