/**
 * scikit-learn's `ArgKmin` reduction (metrics/_pairwise_distances_reduction, Cython) for
 * one query row, as `kneighbors` runs it on sparse rows: the training rows cut into chunks
 * of 256, the chunks dealt out to OpenMP threads (one query row: `parallel_on_Y`), each
 * thread pushing its distances onto a max-heap of k (`utils/_heap.pyx` `heap_push`), the
 * threads' heaps pushed in turn onto one, which `simultaneous_sort` (`utils/_sorting.pyx`)
 * then orders. Which of several equally distant rows survive depends on that order of
 * pushes, and so on the thread count: it is a parameter here. Checked against
 * scikit-learn 1.2.1, 1.6.1 and 1.9.1.
 */

/** `pairwise_dist_chunk_size`'s default. */
export const CHUNK_SIZE = 256

/** The C `DBL_MAX` the heaps start from. */
const DBL_MAX = Number.MAX_VALUE

/** `utils/_heap.pyx` `heap_push` onto the max-heap `values[o .. o + size)`. */
export function heapPush (values: Float64Array, indices: Int32Array, o: number, size: number, val: number, valIdx: number): void {
  if (val >= values[o]!) return
  let current = 0
  for (;;) {
    const left = 2 * current + 1
    const right = left + 1
    let swapIdx: number
    if (left >= size) break
    else if (right >= size) {
      if (values[o + left]! > val) swapIdx = left
      else break
    } else if (values[o + left]! >= values[o + right]!) {
      if (val < values[o + left]!) swapIdx = left
      else break
    } else {
      if (val < values[o + right]!) swapIdx = right
      else break
    }
    values[o + current] = values[o + swapIdx]!
    indices[o + current] = indices[o + swapIdx]!
    current = swapIdx
  }
  values[o + current] = val
  indices[o + current] = valIdx
}

/** Swaps two values and their indices together (scikit-learn's `dual_swap`; numpy's arg-selection here too). */
export function dualSwap (v: Float64Array, ix: Int32Array, a: number, b: number): void {
  const dt = v[a]!
  v[a] = v[b]!
  v[b] = dt
  const it = ix[a]!
  ix[a] = ix[b]!
  ix[b] = it
}

/**
 * Orders v[a] <= v[b] <= v[c] by sklearn's three compare-and-swaps: the size-3 case and
 * the median-of-three that leaves the pivot at b (both sorts, every version).
 */
function sortThree (v: Float64Array, ix: Int32Array, a: number, b: number, c: number): void {
  if (v[a]! > v[b]!) dualSwap(v, ix, a, b)
  if (v[b]! > v[c]!) {
    dualSwap(v, ix, b, c)
    if (v[a]! > v[b]!) dualSwap(v, ix, a, b)
  }
}

/** `simultaneous_sort` before 1.9: a recursive quicksort, median of three, `<` partition. */
function quicksortSimultaneous (v: Float64Array, ix: Int32Array, o: number, size: number): void {
  if (size <= 1) return
  if (size === 2) {
    if (v[o]! > v[o + 1]!) dualSwap(v, ix, o, o + 1)
    return
  }
  if (size === 3) {
    sortThree(v, ix, o, o + 1, o + 2)
    return
  }
  let pivotIdx = size >> 1
  sortThree(v, ix, o, o + size - 1, o + pivotIdx)
  const pivot = v[o + size - 1]!
  let store = 0
  for (let i = 0; i < size - 1; i++) {
    if (v[o + i]! < pivot) {
      dualSwap(v, ix, o + i, o + store)
      store++
    }
  }
  dualSwap(v, ix, o + store, o + size - 1)
  pivotIdx = store
  if (pivotIdx > 1) quicksortSimultaneous(v, ix, o, pivotIdx)
  if (pivotIdx + 2 < size) quicksortSimultaneous(v, ix, o + pivotIdx + 1, size - pivotIdx - 1)
}

function siftDown (v: Float64Array, ix: Int32Array, o: number, start: number, end: number): void {
  let root = start
  for (;;) {
    const child = root * 2 + 1
    let maxind = root
    if (child < end && v[o + maxind]! < v[o + child]!) maxind = child
    if (child + 1 < end && v[o + maxind]! < v[o + child + 1]!) maxind = child + 1
    if (maxind === root) break
    dualSwap(v, ix, o + root, o + maxind)
    root = maxind
  }
}

function heapsort (v: Float64Array, ix: Int32Array, o: number, n: number): void {
  let start = Math.trunc((n - 2) / 2)
  for (;;) {
    siftDown(v, ix, o, start, n)
    if (start === 0) break
    start--
  }
  for (let end = n - 1; end > 0; end--) {
    dualSwap(v, ix, o, o + end)
    siftDown(v, ix, o, 0, end)
  }
}

function insertionSort (v: Float64Array, ix: Int32Array, o: number, n: number): void {
  for (let i = 1; i < n; i++) {
    const tv = v[o + i]!
    const ti = ix[o + i]!
    let j = i
    while (j > 0 && v[o + j - 1]! > tv) {
      v[o + j] = v[o + j - 1]!
      ix[o + j] = ix[o + j - 1]!
      j--
    }
    v[o + j] = tv
    ix[o + j] = ti
  }
}

/** `introsort_2way`, 1.9's `simultaneous_sort`. */
function introsort2way (v: Float64Array, ix: Int32Array, o: number, n: number, maxd: number): void {
  while (n > 15) {
    if (maxd <= 0) {
      heapsort(v, ix, o, n)
      return
    }
    maxd--
    // inplace_median3
    const mid = n >> 1
    sortThree(v, ix, o, o + n - 1, o + mid)
    const pivot = v[o + n - 1]!
    let i = 1
    let j = n - 2
    for (;;) {
      while (i <= j && v[o + i]! < pivot) i++
      while (i <= j && v[o + j]! > pivot) j--
      if (i >= j) break
      dualSwap(v, ix, o + i, o + j)
      i++
      j--
    }
    const pivotIdx = i
    dualSwap(v, ix, o + pivotIdx, o + n - 1)
    introsort2way(v, ix, o, pivotIdx, maxd)
    o += pivotIdx + 1
    n -= pivotIdx + 1
  }
  insertionSort(v, ix, o, n)
}

/** Which `simultaneous_sort`: the quicksort of 1.2 to 1.8, or 1.9's introsort. */
export type SimultaneousSort = 'quicksort' | 'introsort'

/** `utils/_sorting.pyx` `simultaneous_sort`: values ascending, indices moved along. */
export function simultaneousSort (kind: SimultaneousSort, v: Float64Array, ix: Int32Array): void {
  const n = v.length
  if (kind === 'quicksort') return quicksortSimultaneous(v, ix, 0, n)
  if (n === 0) return
  // Cython's `<intp_t>log2(n)` truncates
  introsort2way(v, ix, 0, n, 2 * Math.trunc(Math.log2(n)))
}

/** The first iteration and the end of thread `t`'s share under OpenMP `schedule(static)` (libgomp). */
export function staticShare (n: number, threads: number, t: number): [number, number] {
  let q = Math.trunc(n / threads)
  let r = n % threads
  if (t < r) {
    q++
    r = 0
  }
  const start = q * t + r
  return [start, start + q]
}

/**
 * The k smallest of `dist` (one query row's surrogate distances to every training row) as
 * `ArgKmin` with strategy `parallel_on_Y` finds and orders them on `threads` OpenMP threads.
 * @returns the heap's values and training row indices after `simultaneous_sort`
 */
export function argKminParallelOnY (dist: Float64Array, k: number, threads: number, sort: SimultaneousSort): { values: Float64Array, indices: Int32Array } {
  const n = dist.length
  const chunk = Math.min(n, CHUNK_SIZE)
  const nChunks = Math.ceil(n / chunk)
  const nThreads = Math.min(nChunks, threads)
  const values = new Float64Array(k).fill(DBL_MAX)
  const indices = new Int32Array(k)
  const tv = new Float64Array(k)
  const ti = new Int32Array(k)
  for (let t = 0; t < nThreads; t++) {
    tv.fill(DBL_MAX)
    ti.fill(-1)
    const [first, end] = staticShare(nChunks, nThreads, t)
    const stop = Math.min(n, end * chunk)
    for (let j = first * chunk; j < stop; j++) heapPush(tv, ti, 0, k, dist[j]!, j)
    // _parallel_on_Y_synchronize: each thread's heap, in heap order, thread after thread
    for (let i = 0; i < k; i++) heapPush(values, indices, 0, k, tv[i]!, ti[i]!)
  }
  simultaneousSort(sort, values, indices)
  return { values, indices }
}

/**
 * The k smallest of `dist` as `ArgKmin` with strategy `parallel_on_X` leaves them for one
 * query row (one heap, the training rows in order; not sorted), what `ArgKminClassMode`
 * counts classes over.
 */
export function argKminParallelOnX (dist: Float64Array, k: number): { values: Float64Array, indices: Int32Array } {
  const values = new Float64Array(k).fill(DBL_MAX)
  const indices = new Int32Array(k)
  for (let j = 0; j < dist.length; j++) heapPush(values, indices, 0, k, dist[j]!, j)
  return { values, indices }
}
