/**
 * Estimators saved before they were fitted (a notebook that pickled the Pipeline it had
 * only built): one line naming the estimator, instead of the first attribute its module
 * missed.
 */
import { ServiceError } from '../errors.js'
import { PyObject, type PyValue } from '../pickle/values.js'
import type { Role } from './estimator.js'

/** The fitted attribute a user knows each kind of estimator by. */
const FITTED_MARK: Readonly<Record<string, string>> = Object.freeze({
  CountVectorizer: 'vocabulary_',
  TfidfVectorizer: 'vocabulary_',
  TfidfTransformer: 'idf_'
})

/**
 * scikit-learn's `check_is_fitted` test: an estimator is fitted when its `__dict__` holds an
 * attribute whose name ends with '_' and does not start with '__' (1.2 to 1.9).
 */
function hasFittedAttribute (record: PyObject): boolean {
  if (!(record.state instanceof Map)) return true
  for (const key of record.state.keys()) if (typeof key === 'string' && key.endsWith('_') && !key.startsWith('__')) return true
  return false
}

function hasAttribute (record: PyObject, name: string): boolean {
  return !(record.state instanceof Map) || record.state.has(name)
}

/**
 * The error for a stage that failed to build because it was saved unfitted, or undefined
 * when `err` has another cause. Only a missing fitted attribute (`record.ts` attr: "is it
 * fitted?") on a record with no fitted attribute at all (or, for a kind in FITTED_MARK, without
 * its mark) counts, so a stateless estimator (HashingVectorizer) or a fitted one refused for
 * another reason keeps its own message.
 */
export function notFitted (role: Role, value: PyValue, err: ServiceError): ServiceError | undefined {
  if (err.code !== 'ERR_MODEL_UNSUPPORTED' || !err.detail.includes('is it fitted?')) return undefined
  if (!(value instanceof PyObject)) return undefined
  const known = Object.hasOwn(FITTED_MARK, value.name) ? FITTED_MARK[value.name] : undefined
  // A kind known by its mark is unfitted without it, whatever else an interrupted fit left
  // (fixed_vocabulary_ and _tfidf when fit raised "After pruning, no terms remain").
  if (known !== undefined ? hasAttribute(value, known) : hasFittedAttribute(value)) return undefined
  const mark = known ?? (role === 'classifier' ? 'classes_' : 'fitted attributes')
  return new ServiceError('ERR_MODEL_UNSUPPORTED', `${value.name} is not fitted (no ${mark}): fit it before saving it`, { cause: err })
}
