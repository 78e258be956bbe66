/**
 * What ensembles and meta-estimators need of the estimators inside them: their labels
 * mapped onto the outer classes, and one input width they all share.
 */
import type { Classifier } from '../estimator.js'
import { shapeError } from '../record.js'

/**
 * For each of an inner estimator's classes, the index of the same label among `outer`
 * (inner estimators may hold a subset, in another order).
 * @throws ServiceError ERR_MODEL_SHAPE when an inner label is not an outer class.
 */
export function innerClassIndex (inner: readonly string[], outer: readonly string[], where: string): Int32Array {
  return Int32Array.from(inner, label => {
    const i = outer.indexOf(label)
    if (i < 0) shapeError(`${where} predicts class ${label}, which is not one of ${outer.join(', ')}`)
    return i
  })
}

/**
 * The input width every inner estimator shares (-1 when none declares one).
 * @throws ServiceError ERR_MODEL_SHAPE when two of them expect different widths.
 */
export function commonWidth (estimators: readonly Classifier[], owner: string): number {
  let width = -1
  estimators.forEach((e, i) => {
    if (e.nFeatures < 0) return
    if (width >= 0 && e.nFeatures !== width) shapeError(`${owner}: estimator ${i} expects ${e.nFeatures} features, the others ${width}`)
    width = e.nFeatures
  })
  return width
}
