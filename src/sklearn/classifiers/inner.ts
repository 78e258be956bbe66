/**
 * What ensembles and meta-estimators need of the estimators inside them: built through the
 * registry, their labels mapped onto the outer classes, and one input width they all share.
 */
import type { PyObject } from '../../pickle/values.js'
import type { BuildContext, CheckContext, Classifier, EstimatorState } from '../estimator.js'
import { attr, items, shapeError, unsupported } from '../record.js'
import { type Fields } from '../state-fields.js'

/**
 * The outer class index of each inner label, for an estimator fitted on encoded labels
 * (LabelEncoder, LabelBinarizer columns): its labels must be '0'..'K-1', mapped by value.
 * @throws ServiceError ERR_MODEL_SHAPE naming `where` when a label is not one of them.
 */
export function encodedClassIndices (labels: readonly string[], nClasses: number, where: string): Int32Array {
  return Int32Array.from(labels, label => {
    const k = Number(label)
    if (!(Number.isSafeInteger(k) && String(k) === label && k >= 0 && k < nClasses)) {
      shapeError(`${where} has class ${label}, not one of the encoded classes 0..${nClasses - 1}`)
    }
    return k
  })
}

/**
 * The outer class index of each inner label, matched by value (as Python prints them).
 * @throws ServiceError ERR_MODEL_SHAPE naming `where` when a label is not an outer class.
 */
export function labelClassIndices (labels: readonly string[], classes: readonly string[], where: string): Int32Array {
  return Int32Array.from(labels, label => {
    const k = classes.indexOf(label)
    if (k < 0) shapeError(`${where} has class ${label}, which is not one of the classes (${classes.join(', ')})`)
    return k
  })
}

/**
 * The feature width inner estimators share (-1 when none states one).
 * @throws ServiceError ERR_MODEL_SHAPE naming both estimators when two widths differ.
 */
export function commonWidth (members: readonly Classifier[], where: (i: number) => string): number {
  let width = -1
  let from = -1
  members.forEach((m, i) => {
    if (m.nFeatures < 0) return
    if (width >= 0 && m.nFeatures !== width) shapeError(`${where(i)} (${m.kind}) expects ${m.nFeatures} features but ${where(from)} expects ${width}`)
    if (width < 0) {
      width = m.nFeatures
      from = i
    }
  })
  return width
}

/** Builds each fitted inner estimator of `name` through the registry. */
export function buildMembers (obj: PyObject, name: string, ctx: BuildContext): EstimatorState[] {
  const fitted = items(attr(obj, name), `${obj.name}.${name}`)
  if (fitted.length === 0) unsupported(`${obj.name}.${name} is empty`)
  return fitted.map((e, i) => ctx.build('classifier', e, `${obj.name}.${name}[${i}]`))
}

/** A meta-estimator's inner classifiers, each checked through the registry. */
export function checkMembers (f: Fields, name: string, ctx: CheckContext): readonly unknown[] {
  const list = f.list(name, 1)
  list.forEach((s, i) => ctx.check('classifier', s, `${f.where}.${name}[${i}]`))
  return list
}
