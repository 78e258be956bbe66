/**
 * TruncatedSVD.transform: `X @ components_.T` (scipy's csr_matvecs: the row's entries in
 * stored order, products then sums, in float32 when both are float32), a dense row of
 * n_components values that later steps and the classifier take as every column present.
 */
import type { PyObject } from '../../pickle/values.js'
import { defineEstimator, type EstimatorState, type Step } from '../estimator.js'
import { sparseDotFloat32, sparseDotPlus, transposed } from '../math.js'
import { attr, isFloat32, numericArray, toFloat64 } from '../record.js'
import { denseRow, type SparseRow } from '../sparse-row.js'
import { Fields, MAX_FEATURES } from '../state-fields.js'

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
  const componentsT = transposed(toFloat64(array, `${obj.name}.components_`), k, n)
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
      return denseRow(sparseDotFloat32(row.indices, row.values, componentsT, k), true)
    }
  }
}

/** What create and scoring rely on in a TruncatedSvdState (from a compiled file, or just built). */
function check (state: unknown, where: string): asserts state is TruncatedSvdState {
  const f = new Fields(state, where)
  const n = f.int('nFeatures', 0, MAX_FEATURES)
  const k = f.int('nComponents', 1, MAX_FEATURES)
  f.array('componentsT', Float64Array, n * k)
  f.bool('float32')
}

export const truncatedSvd = defineEstimator<TruncatedSvdState, 'step'>({
  type: 'truncated-svd',
  role: 'step',
  names: ['TruncatedSVD'],
  build,
  check,
  create
})
