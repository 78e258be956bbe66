/**
 * numpy's portable `np.argpartition` (introselect) and `np.argsort` (kind 'quicksort':
 * introsort) on a float row, ported from numpy's `npysort/selection.cpp` and
 * `npysort/quicksort.cpp` (identical in numpy 1.24.2 and 2.4.6), so that elements that
 * compare equal end up where numpy puts them. That is what scikit-learn's brute-force
 * `kneighbors` keeps when the k-th distance is shared by several training rows
 * (`np.argpartition(dist, k - 1)[:, :k]`, then `np.argsort`).
 *
 * numpy 2 on x86-64 with AVX2 or AVX-512 replaces both by x86-simd-sort's vectorised
 * selection and sort, which leave equal elements elsewhere; these are the paths numpy 1.x
 * takes everywhere and numpy 2 takes on other CPUs or with
 * `NPY_DISABLE_CPU_FEATURES="X86_V4 X86_V3"`.
 */

import { dualSwap } from './arg-kmin.js'

/** numpy's float `Tag::less`: NaN sorts last. */
function less (a: number, b: number): boolean {
  // x !== x is NaN's test, without a call
  return a < b || (b !== b && a === a)
}

/** `npy_get_msb`: the index of the highest set bit. */
function msb (n: number): number {
  let depth = 0
  for (let u = n >>> 0; (u >>>= 1) !== 0;) depth++
  return depth
}

function swap (a: Int32Array, i: number, j: number): void {
  const t = a[i]!
  a[i] = a[j]!
  a[j] = t
}

/* numpy's arg* selection permutes `tosort` (indices) and compares `v[tosort[i]]`. Here the
 * values travel with their indices instead (`vs` beside `ts`, swapped together): the same
 * comparisons in the same order, so the same permutation, without the indirection (half the
 * time of kneighbors' selection, measured). `b` is the offset numpy's pointer arithmetic
 * (`tosort + low`) adds. */

function median3Swap (vs: Float64Array, ts: Int32Array, b: number, low: number, mid: number, high: number): void {
  if (less(vs[b + high]!, vs[b + mid]!)) dualSwap(vs, ts, b + high, b + mid)
  if (less(vs[b + high]!, vs[b + low]!)) dualSwap(vs, ts, b + high, b + low)
  // the median goes to low, the smallest to low + 1
  if (less(vs[b + low]!, vs[b + mid]!)) dualSwap(vs, ts, b + low, b + mid)
  dualSwap(vs, ts, b + mid, b + low + 1)
}

function median5 (vs: Float64Array, ts: Int32Array, b: number): number {
  if (less(vs[b + 1]!, vs[b]!)) dualSwap(vs, ts, b + 1, b)
  if (less(vs[b + 4]!, vs[b + 3]!)) dualSwap(vs, ts, b + 4, b + 3)
  if (less(vs[b + 3]!, vs[b]!)) dualSwap(vs, ts, b + 3, b)
  if (less(vs[b + 4]!, vs[b + 1]!)) dualSwap(vs, ts, b + 4, b + 1)
  if (less(vs[b + 2]!, vs[b + 1]!)) dualSwap(vs, ts, b + 2, b + 1)
  if (less(vs[b + 3]!, vs[b + 2]!)) return less(vs[b + 3]!, vs[b + 1]!) ? 1 : 3
  return 2
}

function medianOfMedian5 (vs: Float64Array, ts: Int32Array, b: number, num: number): number {
  const nmed = Math.trunc(num / 5)
  for (let i = 0, subleft = 0; i < nmed; i++, subleft += 5) {
    const m = median5(vs, ts, b + subleft)
    dualSwap(vs, ts, b + subleft + m, b + i)
  }
  if (nmed > 2) introselect(vs, ts, b, nmed, Math.trunc(nmed / 2))
  return Math.trunc(nmed / 2)
}

function dumbSelect (vs: Float64Array, ts: Int32Array, b: number, num: number, kth: number): void {
  for (let i = 0; i <= kth; i++) {
    let minidx = i
    let minval = vs[b + i]!
    for (let k = i + 1; k < num; k++) {
      if (less(vs[b + k]!, minval)) {
        minidx = k
        minval = vs[b + k]!
      }
    }
    dualSwap(vs, ts, b + i, b + minidx)
  }
}

/**
 * numpy's `introselect_<Tag, true>` for one kth (its pivot stack only serves later kths):
 * median-of-3 quickselect, median-of-medians when it stops making progress, and the
 * O(n k) `dumb_select` when kth is within 3 of the start.
 */
function introselect (vs: Float64Array, ts: Int32Array, b: number, num: number, kth: number): void {
  let low = 0
  let high = num - 1
  if (kth - low < 3) {
    dumbSelect(vs, ts, b + low, high - low + 1, kth - low)
    return
  }
  if (kth === num - 1) {
    // numpy's shortcut for the last element (floats only): the last maximum
    let maxidx = low
    let maxval = vs[b + low]!
    for (let k = low + 1; k < num; k++) {
      if (!less(vs[b + k]!, maxval)) {
        maxidx = k
        maxval = vs[b + k]!
      }
    }
    dualSwap(vs, ts, b + kth, b + maxidx)
    return
  }
  let depthLimit = msb(num) * 2
  while (low + 1 < high) {
    let ll = low + 1
    let hh = high
    if (depthLimit > 0 || hh - ll < 5) {
      const mid = low + Math.trunc((high - low) / 2)
      median3Swap(vs, ts, b, low, mid, high)
    } else {
      const mid = ll + medianOfMedian5(vs, ts, b + ll, hh - ll)
      dualSwap(vs, ts, b + mid, b + low)
      ll--
      hh++
    }
    depthLimit--
    // unguarded partition around the pivot now at low
    const pivot = vs[b + low]!
    for (;;) {
      do ll++; while (less(vs[b + ll]!, pivot))
      do hh--; while (less(pivot, vs[b + hh]!))
      if (hh < ll) break
      dualSwap(vs, ts, b + ll, b + hh)
    }
    dualSwap(vs, ts, b + low, b + hh)
    if (hh >= kth) high = hh - 1
    if (hh <= kth) low = ll
  }
  if (high === low + 1 && less(vs[b + high]!, vs[b + low]!)) dualSwap(vs, ts, b + high, b + low)
}

/**
 * `np.argpartition(v, kth)` of a 1-d float array: the index permutation numpy returns.
 * @param v the values (not modified)
 */
export function argpartition (v: ArrayLike<number>, kth: number): Int32Array {
  const ts = new Int32Array(v.length)
  argpartitionInPlace(Float64Array.from(v), ts, kth)
  return ts
}

/**
 * `np.argpartition` with the values permuted in place alongside: `ts` gets the permutation
 * numpy returns and `vs[i]` ends up holding the value of `ts[i]` (no copy of the values).
 */
export function argpartitionInPlace (vs: Float64Array, ts: Int32Array, kth: number): void {
  for (let i = 0; i < ts.length; i++) ts[i] = i
  introselect(vs, ts, 0, vs.length, kth)
}

/** numpy's `aheapsort_` on `ts[b .. b + n)`. */
function aheapsort (v: ArrayLike<number>, ts: Int32Array, b: number, n: number): void {
  // numpy indexes the heap from 1: a[i] is ts[b + i - 1]
  const a = b - 1
  for (let l = n >> 1; l > 0; --l) siftDown(v, ts, a, ts[a + l]!, l, n)
  for (; n > 1;) {
    const tmp = ts[a + n]!
    ts[a + n] = ts[a + 1]!
    n -= 1
    siftDown(v, ts, a, tmp, 1, n)
  }
}

/** The sift-down both of `aheapsort_`'s loops run: `tmp` goes down from heap slot `i` of `n`. */
function siftDown (v: ArrayLike<number>, ts: Int32Array, a: number, tmp: number, i: number, n: number): void {
  for (let j = i << 1; j <= n;) {
    if (j < n && less(v[ts[a + j]!]!, v[ts[a + j + 1]!]!)) j += 1
    if (less(v[tmp]!, v[ts[a + j]!]!)) {
      ts[a + i] = ts[a + j]!
      i = j
      j += j
    } else {
      break
    }
  }
  ts[a + i] = tmp
}

const SMALL_QUICKSORT = 15

/** `np.argsort(v)` (kind 'quicksort'): numpy's `aquicksort_`, insertion sort below 16. */
export function argsort (v: ArrayLike<number>): Int32Array {
  const num = v.length
  const ts = new Int32Array(num)
  for (let i = 0; i < num; i++) ts[i] = i
  if (num < 2) return ts
  let pl = 0
  let pr = num - 1
  const stack: number[] = []
  const depths: number[] = []
  let cdepth = msb(num) * 2
  for (;;) {
    if (cdepth < 0) {
      aheapsort(v, ts, pl, pr - pl + 1)
    } else {
      while (pr - pl > SMALL_QUICKSORT) {
        const pm = pl + ((pr - pl) >> 1)
        if (less(v[ts[pm]!]!, v[ts[pl]!]!)) swap(ts, pm, pl)
        if (less(v[ts[pr]!]!, v[ts[pm]!]!)) swap(ts, pr, pm)
        if (less(v[ts[pm]!]!, v[ts[pl]!]!)) swap(ts, pm, pl)
        const vp = v[ts[pm]!]!
        let pi = pl
        let pj = pr - 1
        swap(ts, pm, pj)
        for (;;) {
          do ++pi; while (less(v[ts[pi]!]!, vp))
          do --pj; while (less(vp, v[ts[pj]!]!))
          if (pi >= pj) break
          swap(ts, pi, pj)
        }
        swap(ts, pi, pr - 1)
        // the larger side waits on the stack
        if (pi - pl < pr - pi) {
          stack.push(pi + 1, pr)
          pr = pi - 1
        } else {
          stack.push(pl, pi - 1)
          pl = pi + 1
        }
        depths.push(--cdepth)
      }
      for (let pi = pl + 1; pi <= pr; ++pi) {
        const vi = ts[pi]!
        const vp = v[vi]!
        let pj = pi
        let pk = pi - 1
        while (pj > pl && less(vp, v[ts[pk]!]!)) ts[pj--] = ts[pk--]!
        ts[pj] = vi
      }
    }
    if (stack.length === 0) break
    pr = stack.pop()!
    pl = stack.pop()!
    cdepth = depths.pop()!
  }
  return ts
}
