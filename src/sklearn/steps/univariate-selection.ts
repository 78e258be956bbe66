/**
 * Feature selection by a fitted score per feature: SelectKBest, SelectPercentile, SelectFpr,
 * SelectFdr, SelectFwe, GenericUnivariateSelect and VarianceThreshold. The support mask is
 * `_get_support_mask` of scikit-learn 1.2 to 1.9 (identical in those versions), ties
 * included, computed once at load:
 *
 * - k best: a stable ascending sort of the scores (NaN as the dtype's lowest finite
 *   value), the last k, so tied features with the highest indices win;
 * - percentile: scores above numpy's linear-interpolated percentile, plus tied features
 *   (lowest indices first) up to int(n * percentile / 100), through a Python slice;
 * - fpr: p < alpha; fwe: p < alpha / n; fdr: Benjamini-Hochberg, p <= the largest sorted
 *   p-value under alpha / n * rank; variance threshold: variance > threshold.
 */
import type { PyObject } from '../../pickle/values.js'
import { defineEstimator, type EstimatorState, type Step } from '../estimator.js'
import { attr, choice, float64Array, isFloat32, num, numericArray, param, unsupported } from '../record.js'
import { createSelection } from './column-selection.js'
import { summarize } from '../../pickle/summarize.js'
import { checkMask } from './column-selection.js'
import { Fields } from '../state-fields.js'

interface SelectionState extends EstimatorState {
  readonly mask: Uint8Array
  readonly params: Readonly<Record<string, unknown>>
}

/** `_clean_nans`: NaN scores rank as the lowest finite value of their dtype. */
function cleanScores (obj: PyObject): Float64Array {
  const array = numericArray(attr(obj, 'scores_'), `${obj.name}.scores_`, 1)
  const lowest = isFloat32(array) ? -3.4028234663852886e38 : -Number.MAX_VALUE
  return float64Array(array, `${obj.name}.scores_`, [-1]).map(v => Number.isNaN(v) ? lowest : v)
}

function kBest (scores: Float64Array, k: number | 'all'): Uint8Array {
  const mask = new Uint8Array(scores.length)
  if (k === 'all') return mask.fill(1)
  if (k === 0) return mask
  // np.argsort(kind='mergesort') is stable, as Array#sort is.
  const order = Array.from(scores.keys()).sort((a, b) => scores[a]! < scores[b]! ? -1 : scores[a]! > scores[b]! ? 1 : 0)
  for (const j of order.slice(-k)) mask[j] = 1
  return mask
}

/** np.percentile(a, q), method 'linear'. */
function percentileOf (a: Float64Array, q: number): number {
  const s = a.slice().sort()
  const vi = (s.length - 1) * (q / 100)
  const prev = Math.max(0, Math.min(Math.floor(vi), s.length - 1))
  const next = Math.min(prev + 1, s.length - 1)
  const g = vi - Math.floor(vi)
  const lo = s[prev]!
  const hi = s[next]!
  const d = hi - lo
  return g >= 0.5 ? hi - d * (1 - g) : lo + d * g
}

function percentile (scores: Float64Array, p: number): Uint8Array {
  const mask = new Uint8Array(scores.length)
  if (p === 100) return mask.fill(1)
  if (p === 0) return mask
  const threshold = percentileOf(scores, 100 - p)
  let kept = 0
  const ties: number[] = []
  scores.forEach((v, j) => {
    if (v > threshold) { mask[j] = 1; kept++ } else if (v === threshold) ties.push(j)
  })
  if (ties.length > 0) {
    const maxFeatures = Math.trunc(scores.length * p / 100)
    for (const j of ties.slice(0, maxFeatures - kept)) mask[j] = 1
  }
  return mask
}

function fdr (p: Float64Array, alpha: number): Uint8Array {
  const n = p.length
  const sorted = p.slice().sort()
  let largest = -Infinity
  sorted.forEach((v, i) => { if (v <= alpha / n * (i + 1)) largest = Math.max(largest, v) })
  return Uint8Array.from(p, v => largest !== -Infinity && v <= largest ? 1 : 0)
}

function pvalues (obj: PyObject): Float64Array {
  return float64Array(attr(obj, 'pvalues_'), `${obj.name}.pvalues_`, [-1])
}

function kParam (obj: PyObject, name: string, n: number): number | 'all' {
  const k = param(obj, name, 10)
  if (k === 'all') return 'all'
  if (typeof k !== 'number' || !Number.isInteger(k) || k < 0) return unsupported(`${obj.name}.${name} is ${summarize(k)}`)
  return Math.min(k, n)
}

/** SelectFpr / SelectFdr / SelectFwe's support: p-values under alpha, Benjamini-Hochberg, or under alpha / n. */
function pValueMask (mode: 'fpr' | 'fdr' | 'fwe', p: Float64Array, alpha: number): Uint8Array {
  if (mode === 'fdr') return fdr(p, alpha)
  const bound = mode === 'fpr' ? alpha : alpha / p.length
  return Uint8Array.from(p, v => v < bound ? 1 : 0)
}

function maskOf (obj: PyObject): { mask: Uint8Array, params: Record<string, unknown> } {
  switch (obj.name) {
    case 'VarianceThreshold': {
      const threshold = num(obj, 'threshold', 0)
      return { mask: Uint8Array.from(float64Array(attr(obj, 'variances_'), `${obj.name}.variances_`, [-1]), v => v > threshold ? 1 : 0), params: { threshold } }
    }
    case 'SelectKBest': {
      const scores = cleanScores(obj)
      const k = kParam(obj, 'k', scores.length)
      return { mask: kBest(scores, k), params: { k } }
    }
    case 'SelectPercentile': {
      const p = num(obj, 'percentile', 10)
      return { mask: percentile(cleanScores(obj), p), params: { percentile: p } }
    }
    case 'SelectFpr': case 'SelectFdr': case 'SelectFwe': {
      const alpha = num(obj, 'alpha', 0.05)
      const mode = obj.name === 'SelectFpr' ? 'fpr' : obj.name === 'SelectFdr' ? 'fdr' : 'fwe'
      return { mask: pValueMask(mode, pvalues(obj), alpha), params: { alpha } }
    }
    default: { // GenericUnivariateSelect
      const mode = choice(obj, 'mode', ['percentile', 'k_best', 'fpr', 'fdr', 'fwe'], 'percentile')
      const value = param(obj, 'param', 1e-5)
      if (mode === 'k_best') {
        const scores = cleanScores(obj)
        return { mask: kBest(scores, kParam(obj, 'param', scores.length)), params: { mode, param: value } }
      }
      const x = num(obj, 'param', 1e-5)
      if (mode === 'percentile') return { mask: percentile(cleanScores(obj), x), params: { mode, param: x } }
      return { mask: pValueMask(mode, pvalues(obj), x), params: { mode, param: x } }
    }
  }
}

function build (obj: PyObject): SelectionState {
  const { mask, params } = maskOf(obj)
  if (!mask.includes(1)) unsupported(`${obj.name} selects no feature, so scikit-learn itself cannot predict with this model`)
  return { type: 'univariate-selection', kind: obj.name, mask, params }
}

function create (state: SelectionState): Step {
  return createSelection(state.kind, state.mask, state.params)
}

/** What create and scoring rely on in a SelectionState (from a compiled file, or just built). */
function check (state: unknown, where: string): asserts state is SelectionState {
  const f = new Fields(state, where)
  checkMask(f)
  f.object('params')
}

export const univariateSelection = defineEstimator<SelectionState, 'step'>({
  type: 'univariate-selection',
  role: 'step',
  names: ['SelectKBest', 'SelectPercentile', 'SelectFpr', 'SelectFdr', 'SelectFwe', 'GenericUnivariateSelect', 'VarianceThreshold'],
  build,
  check,
  create
})
