/**
 * TruncatedSVD.transform: `X @ components_.T` (scipy's csr_matvecs: the row's entries in
 * stored order, products then sums, in float32 when both are float32), a dense row of
 * n_components values that later steps and the classifier take as every column present.
 */
import type { PyObject } from '../../pickle/values.js'
import { defineEstimator, type EstimatorState, type Step } from '../estimator.js'
import { sparseDotPlus } from '../math.js'
import { attr, isFloat32, numericArray, toFloat64 } from '../record.js'
import { denseRow, type SparseRow } from '../sparse-row.js'

interface TruncatedSvdState extends EstimatorState {
  /** components_ transposed: nFeatures rows of nComponents values. */
  readonly componentsT: Float64Array
  readonly nFeatures: number
  readonly nComponents: number
  readonly float32: boolean
}

function build (obj: PyObject): TruncatedSvdState {
  const array = numericArray(attr(obj, 'components_'), `${obj.name}.components_`, 2)
  const [k, n] = array.shape as [number, number]
  const flat = toFloat64(array, `${obj.name}.components_`)
  const componentsT = new Float64Array(k * n)
  for (let c = 0; c < k; c++) for (let j = 0; j < n; j++) componentsT[j * k + c] = flat[c * n + j]!
  return { type: 'truncated-svd', kind: obj.name, componentsT, nFeatures: n, nComponents: k, float32: isFloat32(array) }
}

function create (state: TruncatedSvdState): Step {
  const { componentsT, nComponents: k } = state
  const zeros = new Float64Array(k)
  return {
    kind: state.kind,
    nFeaturesIn: state.nFeatures,
    nFeaturesOut: k,
    params: { n_components: k },
    transform: (row: SparseRow): SparseRow => {
      if (!(row.float32 && state.float32)) return denseRow(sparseDotPlus(row.indices, row.values, componentsT, k, zeros))
      const y = new Float64Array(k)
      for (let e = 0; e < row.indices.length; e++) {
        const base = row.indices[e]! * k
        for (let c = 0; c < k; c++) y[c] = Math.fround(y[c]! + Math.fround(row.values[e]! * componentsT[base + c]!))
      }
      return denseRow(y, true)
    }
  }
}

export const truncatedSvd = defineEstimator<TruncatedSvdState, 'step'>({
  type: 'truncated-svd',
  role: 'step',
  names: ['TruncatedSVD'],
  build,
  create
})
