/**
 * scikit-learn's KNeighborsClassifier fitted on sparse rows (TF-IDF), which always searches
 * by brute force: `kneighbors`, `predict` and `predict_proba` for one text as scikit-learn
 * 1.2 to 1.9 compute them (neighbors/_base.py, _classification.py).
 *
 * Which routine finds the neighbours decides the arithmetic and, when several training
 * rows lie at the k-th distance, which of them are kept:
 * - the Cython reductions (`ArgKmin`, strategy `parallel_on_Y` for one row) when both rows
 *   have entries, share a dtype and the metric is not cosine; 'euclidean' through
 *   `EuclideanArgKmin` (||x||² - 2 x.y + ||y||²) before 1.4.1 only (1.4.1 sends sparse
 *   euclidean pairs back to scipy, issue #28191), 'l2' and manhattan through `rdist_csr`;
 * - from 1.3, with uniform weights, `ArgKminClassMode` (strategy `parallel_on_X`) for the
 *   metrics it takes (not euclidean, not cosine);
 * - otherwise `pairwise_distances` then `np.argpartition` and `np.argsort` (numpy's
 *   portable introselect and introsort: see numpy-argpartition.ts).
 * `_fit_X` of integers or bools (CountVectorizer's counts) or float16 is kept as it is by
 * `fit`; the reductions take only float32 and float64 (`is_usable_for`), so every query goes
 * through `pairwise_distances`, whose `check_pairwise_arrays` computes on float64 copies of
 * both sides (scipy's `astype` sorts `_fit_X` in place first: every metric sees sorted rows,
 * from the first query on). A query row of integers meets float training rows the same way.
 * The reductions deal training rows out to OpenMP threads in chunks of 256, and which of
 * equally distant rows survive depends on the thread count: this serves scikit-learn run
 * on `threads` threads (one by default, as with OMP_NUM_THREADS=1).
 *
 * `predict` with distance weights is `weighted_mode` (numpy's pairwise sums per class;
 * ties to the smallest class), with uniform weights the most frequent class (ties to the
 * smallest); `predict_proba` adds the weights in neighbour order and divides by their sum.
 * A neighbour at distance 0 (1/d infinite) makes the weights 1 for those at 0 and 0 for the
 * others, as `_get_weights` does.
 */
import { NdArray } from '../../pickle/numpy.js'
import { SparseMatrix, indexAt } from '../../pickle/scipy-sparse.js'
import type { PyObject } from '../../pickle/values.js'
import { summarize } from '../../pickle/summarize.js'
import { defineEstimator, probabilistic, type Classifier, type EstimatorState, type Scores } from '../estimator.js'
import { numpyRowSum } from '../math.js'
import { argKminParallelOnX, argKminParallelOnY, type SimultaneousSort } from '../neighbors/arg-kmin.js'
import { argpartitionInPlace, argsort } from '../neighbors/numpy-argpartition.js'
import {
  byFeature, euclideanReduction, pairwiseDistances, rdistCsr, squaredNorms, unitByFeature64, unitRows,
  type CsrMetric, type PairwiseMetric, type TrainingRows
} from '../neighbors/sparse-distances.js'
import { attr, describe, int, int32Array, isFloat32, num, param, readClasses, shapeError, sklearnVersion, toFloat64, unsupported, writtenSince } from '../record.js'
import type { SparseRow } from '../sparse-row.js'
import { Fields, MAX_FEATURES, shapeProblem } from '../state-fields.js'

/** The OpenMP thread count whose tie-breaking is served (see the module comment). */
export const SKLEARN_THREADS = 1

/** effective_metric_ as the routines distinguish it ('cityblock' and 'l1' are manhattan). */
export type NeighborsMetric = 'euclidean' | 'l2' | 'manhattan' | 'cosine'

export interface KNeighborsState extends EstimatorState {
  readonly classes: readonly string[]
  readonly nFeatures: number
  readonly nNeighbors: number
  readonly weights: 'uniform' | 'distance'
  readonly metric: NeighborsMetric
  /** float32 rows in the reductions as 1.3+ computes them (`DistanceMetric32` returning float32), not as 1.2 does. */
  readonly float32Metric: boolean
  /** Whether 'euclidean' goes through the reductions (before 1.4.1; later sparse pairs fall back to scipy). */
  readonly euclideanReduction: boolean
  /** The metric `ArgKminClassMode` runs (1.3+, uniform weights), or null when it is not used. */
  readonly classModeMetric: CsrMetric | null
  readonly sort: SimultaneousSort
  /** Threads the reductions are taken to run on. */
  readonly threads: number
  readonly fit: TrainingRows
  /** Whether `_fit_X` passes the reductions' checks (entries, int32 indices, float32 or float64 values). */
  readonly fitReducible: boolean
  /** `_y`: each training row's class index. */
  readonly y: Int32Array
  readonly params: Readonly<Record<string, unknown>>
}

/** One row's neighbours as `kneighbors` returns them. */
export interface Neighbors {
  readonly indices: Int32Array
  readonly distances: Float64Array
  /** The distances are a float32 array (float32 rows through `pairwise_distances`). */
  readonly float32: boolean
}

const f32 = Math.fround

const METRICS: Readonly<Record<string, NeighborsMetric>> = {
  euclidean: 'euclidean', l2: 'l2', manhattan: 'manhattan', cityblock: 'manhattan', l1: 'manhattan', cosine: 'cosine'
}

function stringParam (obj: PyObject, name: string, fallback: string): string {
  const v = param(obj, name, fallback)
  if (typeof v !== 'string') unsupported(`${obj.name}.${name} is ${describe(v)}; only the named options are served`)
  return v
}

/** `classes_` that `np.array(classes_, dtype=np.intp)` accepts (what ArgKminClassMode did before 1.9). */
function castsToIntp (classes: unknown, labels: readonly string[]): boolean {
  if (classes instanceof NdArray && 'biuf'.includes(classes.dtype.kind)) return true
  return labels.every(label => /^\s*[+-]?\d+\s*$/.test(label))
}

function trainingRows (obj: PyObject, name: string): { fit: TrainingRows, reducible: boolean, canonical: boolean } {
  const value = attr(obj, '_fit_X')
  if (!(value instanceof SparseMatrix)) {
    return unsupported(`${name} was fitted on ${describe(value)}, not on sparse rows; only models fitted on vectorizer output are served`)
  }
  if (value.format !== 'csr') unsupported(`${name}._fit_X is a ${value.format} matrix; scikit-learn keeps a csr one`)
  const [rows, cols] = value.shape
  const indptr = new Int32Array(rows + 1)
  for (let i = 0; i <= rows; i++) indptr[i] = indexAt(value.indptr!, i)
  let indices: Int32Array = new Int32Array(value.nnz)
  for (let p = 0; p < indices.length; p++) indices[p] = indexAt(value.indices!, p)
  const { kind, itemsize } = value.data.dtype
  if (!'biuf'.includes(kind)) unsupported(`${name}._fit_X holds ${value.data.dtype.str} values; scikit-learn's fit takes numbers only`)
  const data = Float64Array.from(toFloat64(value.data, `${name}._fit_X`))
  const float32 = isFloat32(value)
  const floatRows = kind === 'f' && (itemsize === 4 || itemsize === 8)
  if (!floatRows && !isCanonical(indptr, indices)) {
    // scipy's astype to float64 (check_pairwise_arrays, every query) first sorts _fit_X in
    // place, so each distance is taken over sorted rows (CountVectorizer's fit_transform
    // leaves them unsorted), on the first query as on every later one
    indices = sortedRows(indptr, indices, data, name)
  }
  const csc = byFeature(indptr, indices, data, cols)
  const unit = unitRows(indptr, data, float32)
  const fit: TrainingRows = {
    nSamples: rows,
    nFeatures: cols,
    indptr,
    indices,
    data,
    float32,
    ...csc,
    sqNorms: squaredNorms(indptr, data),
    cscUnit: byFeature(indptr, indices, unit, cols).cscData
  }
  const int32 = (a: NdArray): boolean => a.dtype.kind === 'i' && a.dtype.itemsize === 4
  return { fit, reducible: floatRows && value.nnz > 0 && int32(value.indices!) && int32(value.indptr!), canonical: isCanonical(indptr, indices) }
}

/**
 * Each row's entries by increasing column (`data` permuted in place), as scipy's
 * `sum_duplicates` leaves them; a row naming a column twice is refused (scipy would sum the
 * two in the integer dtype, which no vectorizer makes and which is not reproduced).
 */
function sortedRows (indptr: Int32Array, indices: Int32Array, data: Float64Array, name: string): Int32Array {
  const sorted = new Int32Array(indices.length)
  for (let i = 0; i + 1 < indptr.length; i++) {
    const start = indptr[i]!
    const order = Array.from({ length: indptr[i + 1]! - start }, (_, e) => start + e).sort((a, b) => indices[a]! - indices[b]!)
    const values = order.map(p => data[p]!)
    order.forEach((p, e) => {
      sorted[start + e] = indices[p]!
      data[start + e] = values[e]!
      if (e > 0 && sorted[start + e] === sorted[start + e - 1]) unsupported(`${name}._fit_X row ${i} holds column ${indices[p]!} twice; scikit-learn sums such entries in their integer dtype, which is not reproduced`)
    })
  }
  return sorted
}

/** Whether every row's column indices strictly increase (scipy's canonical format). */
function isCanonical (indptr: Int32Array, indices: Int32Array): boolean {
  for (let i = 0; i + 1 < indptr.length; i++) {
    for (let p = indptr[i]! + 1; p < indptr[i + 1]!; p++) if (indices[p]! <= indices[p - 1]!) return false
  }
  return true
}

function build (obj: PyObject): KNeighborsState {
  const name = obj.name
  if (param(obj, 'outputs_2d_', false) === true) unsupported(`${name} has several outputs; one is served`)
  const classesValue = attr(obj, 'classes_')
  const classes = readClasses(classesValue, name, 1)
  const fitMethod = attr(obj, '_fit_method')
  if (fitMethod !== 'brute') unsupported(`${name} searches with ${summarize(fitMethod)}: it was fitted on dense rows; only sparse ones (brute force) are served`)
  const { fit, reducible, canonical } = trainingRows(obj, name)
  const n = fit.nSamples
  if (obj.has('n_samples_fit_') && int(obj, 'n_samples_fit_') !== n) shapeError(`${name}.n_samples_fit_ is ${int(obj, 'n_samples_fit_')} but _fit_X has ${n} rows`)
  if (obj.has('n_features_in_') && int(obj, 'n_features_in_') !== fit.nFeatures) {
    shapeError(`${name}.n_features_in_ is ${int(obj, 'n_features_in_')} but _fit_X has ${fit.nFeatures} columns`)
  }
  const y = int32Array(attr(obj, '_y'), `${name}._y`, 0, classes.length - 1)
  if (y.length !== n) shapeError(`${name}._y has ${y.length} labels for ${n} training rows`)

  const nNeighbors = int(obj, 'n_neighbors', 5)
  if (nNeighbors < 1 || nNeighbors > n) unsupported(`${name}.n_neighbors is ${nNeighbors}; scikit-learn's predict needs 1 to n_samples_fit_ (${n})`)
  const weights = stringParam(obj, 'weights', 'uniform')
  if (weights !== 'uniform' && weights !== 'distance') unsupported(`${name}.weights is '${weights}'; supported: uniform, distance`)
  const metricParams = param(obj, 'metric_params', null)
  if (metricParams !== null && !(metricParams instanceof Map && metricParams.size === 0)) unsupported(`${name}.metric_params is ${describe(metricParams)}; only None is served`)
  const metricParam = stringParam(obj, 'metric', 'minkowski')
  const p = num(obj, 'p', 2)
  const effective = stringParam(obj, 'effective_metric_', metricParam)
  const metric = METRICS[effective]
  if (metric === undefined) unsupported(`${name}.effective_metric_ is '${effective}'; served on sparse rows: ${Object.keys(METRICS).join(', ')}`)
  if (metric === 'manhattan' && !canonical) {
    // TfidfVectorizer rows before 1.5 come out with their indices reversed
    unsupported(`${name} measures ${effective} distances over training rows whose column indices are not sorted: scikit-learn's manhattan_distances sorts _fit_X in place the first time a text has no known term, so its answers change during a session`)
  }

  const [major, minor] = sklearnVersion(obj)
  const since = (a: number, b: number): boolean => major !== a ? major > a : minor >= b
  if (fit.float32 && !since(1, 3) && (metric === 'euclidean' || metric === 'l2')) {
    unsupported(`${name} measures ${effective} distances over float32 rows as scikit-learn ${major}.${minor} does, in float32 steps that are not reproduced (float64 rows, cosine and manhattan are served)`)
  }
  // ArgKminClassMode (1.3+) takes predict_proba with uniform weights, under the metric
  // `_adjusted_metric` gives (minkowski p=2 becomes euclidean, which it declines)
  let classModeMetric: CsrMetric | null = null
  if (weights === 'uniform' && since(1, 3)) {
    if (metricParam === 'minkowski') classModeMetric = p === 2 ? null : 'minkowski'
    else if (metricParam !== 'euclidean' && metricParam !== 'cosine') classModeMetric = METRICS[metricParam] === 'manhattan' ? 'manhattan' : metricParam === 'l2' ? 'l2' : null
  }
  if (classModeMetric !== null && !since(1, 9) && reducible && !castsToIntp(classesValue, classes)) {
    unsupported(`${name} with uniform weights, metric '${metricParam}' and labels that are not integers makes scikit-learn ${major}.${minor}'s own predict fail (ArgKminClassMode casts classes_ to integers; fixed in 1.9)`)
  }
  return {
    type: 'k-neighbors',
    kind: name,
    classes,
    nFeatures: fit.nFeatures,
    nNeighbors,
    weights,
    metric,
    float32Metric: since(1, 3),
    euclideanReduction: !writtenSince(obj, 1, 4, 1),
    classModeMetric,
    sort: since(1, 9) ? 'introsort' : 'quicksort',
    threads: SKLEARN_THREADS,
    fit,
    fitReducible: reducible,
    y,
    params: { n_neighbors: nNeighbors, weights, metric: metricParam, p, effective_metric: effective, n_samples_fit: n }
  }
}

/** Whether the reductions take this query: entries on both sides, one dtype. */
function reducibleFor (state: KNeighborsState, row: SparseRow): boolean {
  return state.fitReducible && row.indices.length > 0 && row.integer !== true && row.float32 === state.fit.float32
}

/**
 * `kneighbors([row])`: the k nearest training rows and their distances, in scikit-learn's order.
 * @param scratch a buffer of `fit.nSamples` values, overwritten
 * @param ids a buffer of `fit.nSamples` indices, overwritten
 */
export function kneighbors (state: KNeighborsState, row: SparseRow, scratch = new Float64Array(state.fit.nSamples), ids = new Int32Array(state.fit.nSamples)): Neighbors {
  const { fit, metric, nNeighbors: k } = state
  const float32 = row.float32 && fit.float32
  if (metric !== 'cosine' && (metric !== 'euclidean' || state.euclideanReduction) && reducibleFor(state, row)) {
    const surrogate = metric === 'euclidean' ? euclideanReduction(fit, row, scratch) : rdistCsr(fit, row, metric, float32, state.float32Metric, scratch)
    const { values, indices } = argKminParallelOnY(surrogate, k, state.threads, state.sort)
    // compute_exact_distances: _rdist_to_dist(max(d, 0)), its argument and result in the dtype
    const distances = values.map(v => {
      const d = Math.max(v, 0)
      if (!float32) return metric === 'manhattan' ? d : Math.sqrt(d)
      // 1.2 (manhattan only: float32 euclidean and l2 are refused there) rounds the float64 sum
      if (!state.float32Metric) return f32(d)
      return metric === 'manhattan' ? d : f32(Math.sqrt(f32(d)))
    })
    return { indices, distances, float32: false }
  }
  const dist = pairwiseDistances(fit, row, metric as PairwiseMetric, float32, scratch, () => unitByFeature64(fit))
  // dist is scratch: the selection permutes it with the indices, so dist[j] is ts[j]'s distance
  const ts = ids
  argpartitionInPlace(dist, ts, k - 1)
  const order = argsort(dist.slice(0, k))
  const indices = new Int32Array(k)
  const distances = new Float64Array(k)
  for (let j = 0; j < k; j++) {
    const o = order[j]!
    const d = dist[o]!
    indices[j] = ts[o]!
    distances[j] = metric !== 'euclidean' ? d : float32 ? f32(Math.sqrt(d)) : Math.sqrt(d)
  }
  return { indices, distances, float32 }
}

/** `_get_weights(dist, 'distance')`: 1 / d, or where some d is 0 the mask of those. */
function distanceWeights ({ distances, float32 }: Neighbors): Float64Array {
  const w = distances.map(d => float32 ? f32(1 / d) : 1 / d)
  if (w.some(v => v === Infinity || v === -Infinity)) return w.map(v => (v === Infinity || v === -Infinity) ? 1 : 0)
  return w
}

/** `weighted_mode` over the neighbours' classes: np.sum(template, axis=1) per class, first strict maximum. */
function weightedMode (labels: Int32Array, w: Float64Array): number {
  const present = [...new Set(labels)].sort((a, b) => a - b)
  const template = new Float64Array(labels.length)
  let best = 0
  let bestCount = 0
  for (const c of present) {
    for (let i = 0; i < labels.length; i++) template[i] = labels[i] === c ? w[i]! : 0
    const count = numpyRowSum(template)
    if (count > bestCount) {
      best = c
      bestCount = count
    }
  }
  return best
}

function create (state: KNeighborsState): Classifier {
  const nClasses = state.classes.length
  // One text at a time per worker thread: the buffers are reused from text to text.
  const scratch = new Float64Array(state.fit.nSamples)
  const ids = new Int32Array(state.fit.nSamples)
  const score = (row: SparseRow): Scores => {
    const proba = new Float64Array(nClasses)
    let classIndex: number
    if (state.weights === 'uniform') {
      const indices = state.classModeMetric !== null && reducibleFor(state, row)
        ? argKminParallelOnX(rdistCsr(state.fit, row, state.classModeMetric, row.float32, state.float32Metric, scratch), state.nNeighbors).indices
        : kneighbors(state, row, scratch, ids).indices
      for (const i of indices) proba[state.y[i]!] += 1
      // the most frequent class, ties to the first (scipy's mode, argmax of the counts)
      classIndex = 0
      for (let c = 1; c < nClasses; c++) if (proba[c]! > proba[classIndex]!) classIndex = c
    } else {
      const neighbors = kneighbors(state, row, scratch, ids)
      const w = distanceWeights(neighbors)
      const labels = Int32Array.from(neighbors.indices, i => state.y[i]!)
      for (let i = 0; i < labels.length; i++) proba[labels[i]!] += w[i]!
      classIndex = weightedMode(labels, w)
    }
    const total = numpyRowSum(proba)
    for (let c = 0; c < nClasses; c++) proba[c] = proba[c]! / total
    return { classIndex, proba, decision: undefined }
  }
  return probabilistic({ kind: state.kind, nFeatures: state.nFeatures, classes: state.classes, params: state.params, score })
}

/** Compressed rows (or columns): pointers from 0 to the entries, never going back; each major's minor indices inside `minor`, increasing when `strict`. */
function checkCompressed (f: Fields, pointers: string, indices: string, major: number, minor: number, strict: boolean): number {
  const ptr = f.array(pointers, Int32Array, major + 1)
  const idx = f.indices(indices, 0, minor - 1)
  if (ptr[0] !== 0 || ptr[major] !== idx.length) throw shapeProblem(`${f.where}.${pointers}`, `does not run from 0 to ${idx.length}`)
  for (let r = 0; r < major; r++) {
    if (ptr[r + 1]! < ptr[r]!) throw shapeProblem(`${f.where}.${pointers}`, `goes back at ${r + 1}`)
    if (strict) for (let p = ptr[r]! + 1; p < ptr[r + 1]!; p++) if (idx[p]! <= idx[p - 1]!) throw shapeProblem(`${f.where}.${indices}`, `do not increase in row ${r}`)
  }
  return idx.length
}

/** A KNeighborsClassifier's training rows, by row and by feature, with their norms. */
function checkTrainingRows (f: Fields): { nSamples: number, nFeatures: number } {
  const nSamples = f.int('nSamples', 1)
  const nFeatures = f.int('nFeatures', 1, MAX_FEATURES)
  // A training row's columns may come unsorted (scikit-learn keeps them as fitted); by feature, we built them sorted.
  const nnz = checkCompressed(f, 'indptr', 'indices', nSamples, nFeatures, false)
  f.array('data', Float64Array, nnz)
  f.bool('float32')
  if (checkCompressed(f, 'cscIndptr', 'cscRows', nFeatures, nSamples, true) !== nnz) throw shapeProblem(`${f.where}.cscRows`, `do not hold the ${nnz} entries`)
  f.array('cscData', Float64Array, nnz)
  f.array('sqNorms', Float64Array, nSamples)
  f.array('cscUnit', Float64Array, nnz)
  return { nSamples, nFeatures }
}

/** What create and scoring rely on in a KNeighborsState (from a compiled file, or just built). */
function check (state: unknown, where: string): asserts state is KNeighborsState {
  const f = new Fields(state, where)
  const k = f.strings('classes', 1).length
  const fit = checkTrainingRows(f.object('fit'))
  if (f.int('nFeatures', 1, MAX_FEATURES) !== fit.nFeatures) throw shapeProblem(`${where}.nFeatures`, `is not the ${fit.nFeatures} of the training rows`)
  f.int('nNeighbors', 1, fit.nSamples)
  f.oneOf('weights', ['uniform', 'distance'])
  f.oneOf('metric', ['euclidean', 'l2', 'manhattan', 'cosine'])
  f.oneOf('classModeMetric', ['l2', 'manhattan', 'minkowski', null])
  f.oneOf('sort', ['quicksort', 'introsort'])
  f.int('threads', 1, 1024)
  f.bool('float32Metric')
  f.bool('euclideanReduction')
  f.bool('fitReducible')
  f.indices('y', 0, k - 1, fit.nSamples)
  f.object('params')
}

export const kNeighborsClassifier = defineEstimator<KNeighborsState, 'classifier'>({
  type: 'k-neighbors',
  role: 'classifier',
  names: ['KNeighborsClassifier'],
  build,
  check,
  create
})
