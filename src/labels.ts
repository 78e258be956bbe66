/**
 * The labels the HTTP API shows (docs/http-api.md, "Answers"): the class as Python's str() prints it,
 * lowercased, with runs of white space replaced by '_'; LABEL_NAMES renames them in class order.
 */
import { ServiceError } from './errors.js'
import { pyLower } from './python/python-str.js'

export function displayLabel (label: string): string {
  return pyLower(label).replace(/[\s\u001c-\u001f\u0085]+/gu, '_')
}

/** @throws ServiceError ERR_CONFIG_INVALID when LABEL_NAMES does not name every class. */
export function displayLabels (classes: readonly string[], labelNames: readonly string[] | null): readonly string[] {
  if (labelNames === null) return Object.freeze(classes.map(displayLabel))
  if (labelNames.length !== classes.length) {
    throw new ServiceError('ERR_CONFIG_INVALID', `invalid configuration: LABEL_NAMES has ${labelNames.length} names but the model has ${classes.length} classes (${classes.join(', ')})`)
  }
  return Object.freeze(labelNames.map(displayLabel))
}
