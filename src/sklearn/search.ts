/**
 * scikit-learn's hyper-parameter searches pickled whole: GridSearchCV, RandomizedSearchCV,
 * HalvingGridSearchCV, HalvingRandomSearchCV. Their predict, predict_proba and
 * decision_function call `best_estimator_`, the best candidate refitted on all the data
 * when `refit` is not False (a bool, a scorer's name or a callable: `BaseSearchCV.fit`,
 * sklearn/model_selection/_search.py, 1.2 to 1.9; `sklearn.grid_search` before 0.20 alike).
 * So that is the model served. Everything else a search holds is data no prediction reads
 * (`SEARCH_INERT_ATTRIBUTES`).
 */
import { NdArray, elementAt } from '../pickle/numpy.js'
import { PyObject, PyTuple, type PyValue } from '../pickle/values.js'
import { describe, sklearnClass, unsupported } from './record.js'

const SEARCH_CLASSES: ReadonlySet<string> = new Set(['GridSearchCV', 'RandomizedSearchCV', 'HalvingGridSearchCV', 'HalvingRandomSearchCV'])

/** Whether a value is one of scikit-learn's search objects. */
export function isSearch (value: PyValue): value is PyObject {
  const name = sklearnClass(value)
  return name !== undefined && SEARCH_CLASSES.has(name)
}

/**
 * A search's attributes that no prediction reads: the results of every candidate, the scorers
 * (and the metric functions they name), the grid or the scipy.stats distributions sampled,
 * the splitter, the unfitted template estimator, and `refit`, which is only compared with
 * False (a callable there, the app's own function, is never looked at). Values that the
 * allow-list refuses may sit here without refusing the file (refused-globals.ts); everything
 * else in the file, `best_estimator_` and `best_params_` included, is held to the allow-list.
 */
export const SEARCH_INERT_ATTRIBUTES: ReadonlySet<string> = new Set([
  'cv_results_', 'scorer_', 'scoring', 'param_grid', 'param_distributions', 'cv', '_checked_cv_orig',
  'estimator', 'refit', 'error_score', 'random_state',
  // sklearn.grid_search (< 0.20): the results as _CVScoreTuple records, and the fit's keyword arguments.
  'grid_scores_', 'fit_params'
])

/** What `inspect` shows of the search that wrapped the model. */
export interface SearchInfo {
  /** The search's class, e.g. 'GridSearchCV'. */
  readonly wrappedBy: string
  /** `best_params_` as plain data (estimators by class name), or null when the search has none. */
  readonly bestParams: Readonly<Record<string, unknown>> | null
}

/**
 * The fitted model a search serves: its `best_estimator_`.
 * @throws ServiceError ERR_MODEL_UNSUPPORTED for a search fitted with refit=False (it keeps
 * no model) or not fitted at all.
 */
export function bestEstimator (search: PyObject): PyValue {
  // The search's own predict refuses then (`_check_is_fitted`: `if not self.refit`), whatever else it holds.
  const refit = search.has('refit') ? search.get('refit') : true
  if (refit === false || refit === 0 || refit === '' || refit === null) {
    unsupported(`${search.name} was fitted with refit=False, so it holds no fitted model: fit it with refit=True and save it or its best_estimator_`)
  }
  if (!search.has('best_estimator_')) unsupported(`${search.name} is not fitted (no best_estimator_): fit it before saving it`)
  return search.get('best_estimator_')
}

/** The search's class and its `best_params_` as plain data. */
export function searchInfo (search: PyObject): SearchInfo {
  const params = search.get('best_params_')
  return Object.freeze({
    wrappedBy: search.name,
    bestParams: params instanceof Map ? plainParams(params) : null
  })
}

function plainParams (params: Map<PyValue, PyValue>): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>
  for (const [key, value] of params) out[typeof key === 'string' ? key : describe(key)] = plainParam(value)
  return out
}

/**
 * A parameter value as JSON shows it: numbers, strings, booleans and None as they are,
 * tuples and lists as arrays, an estimator by its class name. The decoded value was checked
 * not to nest more than 100 deep (value-walk.ts), so this recursion is bounded.
 */
function plainParam (value: PyValue): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString()
  if (Array.isArray(value)) return value.map(plainParam)
  if (value instanceof PyTuple) return value.items.map(plainParam)
  if (value instanceof Map) return plainParams(value)
  if (value instanceof NdArray && value.shape.length === 0 && 'biuf'.includes(value.dtype.kind)) return Number(elementAt(value.data, 0, value.dtype))
  if (value instanceof PyObject) return sklearnClass(value) ?? value.qualifiedName
  return describe(value)
}
