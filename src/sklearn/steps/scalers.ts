/**
 * Scaling steps on sparse rows, as scikit-learn 1.2 to 1.9 compute them:
 *
 * - MaxAbsScaler and StandardScaler(with_mean=False) multiply each column by the reciprocal
 *   of `scale_` (`inplace_column_scale(X, 1 / scale_)`: the reciprocal in scale_'s dtype, the
 *   product stored in the row's dtype), not divide by it; MaxAbsScaler(clip=True) (1.9) then
 *   clips to [-1, 1];
 * - Normalizer: l1 and l2 as TfidfTransformer's norm; 'max' divides by the largest absolute
 *   value, counting the implicit zeros of a row that does not fill every column.
 */
import type { PyObject } from '../../pickle/values.js'
import { defineEstimator, type EstimatorState, type Step } from '../estimator.js'
import { attr, bool, choice, float64Array, int, isFloat32, numericArray, unsupported } from '../record.js'
import type { SparseRow } from '../sparse-row.js'
import { normalizeInPlace } from '../vectorizers/tfidf-transformer.js'
import { Fields, MAX_FEATURES, shapeProblem } from '../state-fields.js'

interface ColumnScaleState extends EstimatorState {
  /** 1 / scale_ per column, or an empty array for no scaling. */
  readonly reciprocal: Float64Array
  readonly nFeatures: number
  readonly clip: boolean
}

function buildColumnScale (obj: PyObject): ColumnScaleState {
  const nFeatures = int(obj, 'n_features_in_', -1)
  if (obj.name === 'StandardScaler') {
    if (bool(obj, 'with_mean', true)) unsupported('StandardScaler with with_mean=True cannot take sparse rows (scikit-learn refuses them)')
    if (!bool(obj, 'with_std', true) || obj.get('scale_') === null) return { type: 'column-scale', kind: obj.name, reciprocal: new Float64Array(0), nFeatures, clip: false }
  }
  const scaleValue = attr(obj, 'scale_')
  const scale = float64Array(scaleValue, `${obj.name}.scale_`, [nFeatures])
  const float32 = isFloat32(numericArray(scaleValue, `${obj.name}.scale_`, 1))
  const reciprocal = scale.map(s => float32 ? Math.fround(1 / s) : 1 / s)
  return { type: 'column-scale', kind: obj.name, reciprocal, nFeatures: scale.length, clip: bool(obj, 'clip', false) }
}

function createColumnScale (state: ColumnScaleState): Step {
  const { reciprocal, clip } = state
  return {
    kind: state.kind,
    nFeaturesIn: state.nFeatures,
    nFeaturesOut: state.nFeatures,
    params: clip ? { clip } : {},
    sourceFeature: (j: number) => j,
    transform: (row: SparseRow): SparseRow => {
      if (reciprocal.length === 0) return row
      const values = row.values.map((v, e) => {
        const x = row.float32 ? Math.fround(v * reciprocal[row.indices[e]!]!) : v * reciprocal[row.indices[e]!]!
        return clip ? Math.min(1, Math.max(-1, x)) : x
      })
      return { indices: row.indices, values, float32: row.float32 }
    }
  }
}

/** What create and scoring rely on in a ColumnScaleState (from a compiled file, or just built). */
function checkColumnScale (state: unknown, where: string): asserts state is ColumnScaleState {
  const f = new Fields(state, where)
  const n = f.int('nFeatures', -1, MAX_FEATURES)
  const reciprocal = f.array('reciprocal', Float64Array)
  if (reciprocal.length !== 0 && reciprocal.length !== n) throw shapeProblem(`${where}.reciprocal`, `has ${reciprocal.length} values for ${n} features`)
  f.bool('clip')
}

export const columnScale = defineEstimator<ColumnScaleState, 'step'>({
  type: 'column-scale',
  role: 'step',
  names: ['MaxAbsScaler', 'StandardScaler'],
  build: buildColumnScale,
  check: checkColumnScale,
  create: createColumnScale
})

interface NormalizerState extends EstimatorState {
  readonly norm: 'l1' | 'l2' | 'max'
  readonly nFeatures: number
}

/** normalize(norm='max') of one sparse row: min and max over the row, implicit zeros included. */
function maxNormalizeInPlace (values: Float64Array, nFeatures: number, float32: boolean): void {
  let min = values.length < nFeatures ? 0 : Infinity
  let max = values.length < nFeatures ? 0 : -Infinity
  for (const v of values) {
    if (v < min) min = v
    if (v > max) max = v
  }
  const norm = Math.max(Math.abs(min), max)
  if (norm === 0) return
  for (let k = 0; k < values.length; k++) values[k] = float32 ? Math.fround(values[k]! / norm) : values[k]! / norm
}

/** What create and scoring rely on in a NormalizerState (from a compiled file, or just built). */
function checkNormalizer (state: unknown, where: string): asserts state is NormalizerState {
  const f = new Fields(state, where)
  f.oneOf('norm', ['l1', 'l2', 'max'])
  f.int('nFeatures', -1, MAX_FEATURES)
}

export const normalizer = defineEstimator<NormalizerState, 'step'>({
  type: 'normalizer',
  role: 'step',
  names: ['Normalizer'],
  build: obj => ({ type: 'normalizer', kind: obj.name, norm: choice(obj, 'norm', ['l1', 'l2', 'max'], 'l2'), nFeatures: int(obj, 'n_features_in_', -1) }),
  check: checkNormalizer,
  create: state => ({
    kind: state.kind,
    nFeaturesIn: state.nFeatures,
    nFeaturesOut: state.nFeatures,
    params: { norm: state.norm },
    sourceFeature: (j: number) => j,
    transform: (row: SparseRow): SparseRow => {
      if (state.norm === 'max') maxNormalizeInPlace(row.values, state.nFeatures, row.float32)
      else normalizeInPlace(row.values, state.norm, row.float32)
      return row
    }
  })
})
