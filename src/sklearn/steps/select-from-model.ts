/**
 * SelectFromModel: its support mask as `_get_support_mask` of scikit-learn 1.2 to 1.9
 * computes it, once at load. Scores are |coef_| (the `norm_order` norm over classes, rows
 * added in order, for a 2-d coef_) or the model's feature_importances_; the threshold is a
 * number, 'mean', 'median' or 'scale*mean|median' of the scores, or by default 1e-5 for an
 * l1-penalised model (and Lasso, l1 ElasticNet, LogisticRegression with l1_ratio 1) and
 * 'mean' otherwise. With max_features, the highest scores first (a stable sort: ties keep
 * the lower index), then every score below the threshold dropped. float32 coefficients
 * (1.9's LogisticRegression on float32 rows) give float32 scores and thresholds.
 */
import { NdArray } from '../../pickle/numpy.js'
import { PyObject } from '../../pickle/values.js'
import { defineEstimator, type EstimatorState, type Step } from '../estimator.js'
import { numpySumFloat32 } from '../float32.js'
import { numpySum } from '../math.js'
import { describe, int, isFloat32, numericArray, param, toFloat64, unsupported } from '../record.js'
import { createSelection } from './column-selection.js'
import { featureImportances } from './feature-importances.js'
import { summarize } from '../../pickle/summarize.js'
import { checkMask } from './column-selection.js'
import { Fields } from '../state-fields.js'

interface SelectFromModelState extends EstimatorState {
  readonly mask: Uint8Array
  readonly threshold: number
}

/** The estimator's scores per feature, and whether they are float32. */
function scoresOf (est: PyObject, obj: PyObject): { scores: Float64Array, float32: boolean } {
  const getter = param(obj, 'importance_getter', 'auto')
  if (getter !== 'auto' && getter !== 'coef_' && getter !== 'feature_importances_') unsupported(`${obj.name}.importance_getter ${describe(getter)} is not supported`)
  if (getter !== 'feature_importances_' && est.has('coef_')) {
    const coef = est.get('coef_')
    if (!(coef instanceof NdArray)) return unsupported(`${obj.name} over a ${describe(coef)} coef_ is not supported`)
    const array = numericArray(coef, `${est.name}.coef_`, coef.shape.length === 1 ? 1 : 2)
    const float32 = isFloat32(array)
    const round = float32 ? Math.fround : (x: number) => x
    const values = toFloat64(array, `${est.name}.coef_`)
    if (array.shape.length === 1) return { scores: values.map(Math.abs), float32 }
    const [rows, cols] = array.shape as [number, number]
    const order = param(obj, 'norm_order', 1)
    if (order !== 1 && order !== 2 && order !== Infinity) unsupported(`${obj.name}.norm_order ${summarize(order)} is not supported`)
    const scores = new Float64Array(cols)
    for (let j = 0; j < cols; j++) {
      let acc = 0
      for (let r = 0; r < rows; r++) {
        const c = values[r * cols + j]!
        acc = order === 1 ? round(acc + Math.abs(c)) : order === 2 ? round(acc + round(c * c)) : Math.max(acc, Math.abs(c))
      }
      scores[j] = order === 2 ? round(Math.sqrt(acc)) : acc
    }
    return { scores, float32 }
  }
  return { scores: featureImportances(est, int(obj, 'n_features_in_', -1) >= 0 ? int(obj, 'n_features_in_') : int(est, 'n_features_in_')), float32: false }
}

function isClose (a: unknown, b: number): boolean {
  return typeof a === 'number' && Math.abs(a - b) <= 1e-8 + 1e-5 * Math.abs(b)
}

/** `_calculate_threshold`. */
function thresholdOf (est: PyObject, scores: Float64Array, setting: unknown, float32: boolean): number {
  const round = float32 ? Math.fround : (x: number) => x
  if (setting === null) {
    const l1 = est.get('penalty') === 'l1' || est.name.includes('Lasso') ||
      (est.name === 'ElasticNet' && isClose(est.get('l1_ratio'), 1)) ||
      (est.name === 'LogisticRegression' && isClose(est.get('l1_ratio'), 1))
    setting = l1 ? 1e-5 : 'mean'
  }
  if (typeof setting === 'number') return setting
  if (typeof setting !== 'string') return unsupported(`SelectFromModel.threshold is ${describe(setting)}`)
  const mean = (): number => round((float32 ? numpySumFloat32(scores) : numpySum(scores)) / scores.length)
  const median = (): number => {
    const s = scores.slice().sort()
    const mid = s.length >> 1
    return s.length % 2 === 1 ? s[mid]! : round(round(s[mid - 1]! + s[mid]!) / 2)
  }
  const [scale, reference] = setting.includes('*') ? setting.split('*').map(x => x.trim()) as [string, string] : ['1', setting]
  const ref = reference === 'mean' ? mean() : reference === 'median' ? median() : unsupported(`SelectFromModel.threshold '${setting}' is not supported`)
  return setting.includes('*') ? round(Number(scale) * ref) : ref
}

function build (obj: PyObject): SelectFromModelState {
  const estValue = obj.has('estimator_') ? obj.get('estimator_') : obj.get('estimator')
  if (!(estValue instanceof PyObject)) return unsupported(`${obj.name} has no fitted estimator_`)
  const { scores, float32 } = scoresOf(estValue, obj)
  const threshold = thresholdOf(estValue, scores, param(obj, 'threshold', null), float32)
  const maxFeatures = obj.has('max_features_') ? obj.get('max_features_') : param(obj, 'max_features', null)
  let mask: Uint8Array
  if (maxFeatures === null) {
    mask = new Uint8Array(scores.length).fill(1)
  } else {
    if (typeof maxFeatures !== 'number' || !Number.isInteger(maxFeatures)) return unsupported(`${obj.name}.max_features is ${describe(maxFeatures)}`)
    mask = new Uint8Array(scores.length)
    // np.argsort(-scores, kind='mergesort')[:max_features]: stable, so ties keep the lower index.
    const order = Array.from(scores.keys()).sort((a, b) => scores[b]! < scores[a]! ? -1 : scores[b]! > scores[a]! ? 1 : 0)
    for (const j of order.slice(0, maxFeatures)) mask[j] = 1
  }
  scores.forEach((s, j) => { if (s < threshold) mask[j] = 0 })
  if (!mask.includes(1)) unsupported(`${obj.name} selects no feature, so scikit-learn itself cannot predict with this model`)
  return { type: 'select-from-model', kind: obj.name, mask, threshold }
}

function create (state: SelectFromModelState): Step {
  return createSelection(state.kind, state.mask, { threshold: state.threshold })
}

/** What create and scoring rely on in a SelectFromModelState (from a compiled file, or just built). */
function check (state: unknown, where: string): asserts state is SelectFromModelState {
  const f = new Fields(state, where)
  checkMask(f)
  f.number('threshold')
}

export const selectFromModel = defineEstimator<SelectFromModelState, 'step'>({
  type: 'select-from-model',
  role: 'step',
  names: ['SelectFromModel'],
  build,
  check,
  create
})
