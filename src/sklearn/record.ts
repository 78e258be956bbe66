/**
 * Reading scikit-learn records (unpickled estimators) into typed state: attribute and
 * parameter access that names the estimator and attribute when something is missing or
 * of the wrong kind, numeric arrays to typed arrays with their shapes checked, labels as
 * Python prints them. Every failure is one of state-fields.ts's two errors, the ones each
 * module's `check` reports of a state (ERR_MODEL_UNSUPPORTED for what we do not serve,
 * ERR_MODEL_SHAPE for arrays that do not fit together).
 */
import { DType, NdArray, elementAt, type NumericArray } from '../pickle/numpy.js'
import { SparseMatrix, indexAt } from '../pickle/scipy-sparse.js'
import { summarize } from '../pickle/summarize.js'
import { PyFrozenSet, PyGlobal, PyObject, PyTuple, type PyValue } from '../pickle/values.js'
import { pyStr } from './python-repr.js'
import { shapeError, unsupported } from './state-fields.js'

export { shapeError, unsupported }

/** The scikit-learn class name of a record, or undefined for anything else. */
export function sklearnClass (value: PyValue): string | undefined {
  return value instanceof PyObject && (value.module === 'sklearn' || value.module.startsWith('sklearn.')) ? value.name : undefined
}

/** What a value is, for messages, bounded whatever the value: 'sklearn.svm._classes.SVC', 'a list of 3 items', ... */
export function describe (value: PyValue): string {
  return typeof value === 'string' ? `the string ${summarize(value)}` : summarize(value)
}

/** A fitted attribute; its absence means the estimator was saved unfitted. */
export function attr (obj: PyObject, name: string): PyValue {
  if (!obj.has(name)) unsupported(`${obj.name} has no '${name}': is it fitted?`)
  return obj.get(name)
}

/** The first of `names` the record has (attributes renamed between versions). */
export function attrOf (obj: PyObject, names: readonly string[]): PyValue {
  for (const name of names) if (obj.has(name)) return obj.get(name)
  return unsupported(`${obj.name} has none of ${names.map(n => `'${n}'`).join(', ')}: is it fitted?`)
}

export function param<T> (obj: PyObject, name: string, fallback: T): PyValue | T {
  return obj.has(name) ? obj.get(name) : fallback
}

export function bool (obj: PyObject, name: string, fallback: boolean): boolean {
  const v = param(obj, name, fallback)
  if (typeof v === 'boolean') return v
  if (v === 0 || v === 1) return v === 1
  return unsupported(`${obj.name}.${name} is ${describe(v)}, not a bool`)
}

/** A numeric parameter or attribute (numpy scalars arrive as numbers; bigints must be safe). */
export function num (obj: PyObject, name: string, fallback?: number): number {
  const v = fallback === undefined ? attr(obj, name) : param(obj, name, fallback)
  if (typeof v === 'number') return v
  if (typeof v === 'boolean') return v ? 1 : 0
  if (typeof v === 'bigint' && Number.isSafeInteger(Number(v))) return Number(v)
  if (v instanceof NdArray && v.shape.length === 0 && v.dtype.kind !== 'O') return Number(elementAt(v.data, 0, v.dtype))
  return unsupported(`${obj.name}.${name} is ${describe(v)}, not a number`)
}

export function int (obj: PyObject, name: string, fallback?: number): number {
  const v = num(obj, name, fallback)
  if (!Number.isSafeInteger(v)) shapeError(`${obj.name}.${name} is ${v}, not an integer`)
  return v
}

/** A string parameter that must be one of `allowed`. */
export function choice<T extends string> (obj: PyObject, name: string, allowed: readonly T[], fallback: T): T {
  const v = param(obj, name, fallback)
  if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T
  return unsupported(`${obj.name}.${name} is ${summarize(v)}; supported: ${allowed.join(', ')}`)
}

/** A record attribute that must itself be a record. */
export function recordAttr (obj: PyObject, name: string): PyObject {
  const v = attr(obj, name)
  if (!(v instanceof PyObject)) return unsupported(`${obj.name}.${name} is ${describe(v)}, not an object`)
  return v
}

/** Items of a list or tuple. */
export function items (value: PyValue, what: string): readonly PyValue[] {
  if (Array.isArray(value)) return value
  if (value instanceof PyTuple) return value.items
  if (value instanceof NdArray && value.dtype.kind === 'O' && value.shape.length === 1) return value.data as PyValue[]
  return unsupported(`${what} is ${describe(value)}, not a list`)
}

/** Items of a list, tuple, set or frozenset. */
export function setItems (value: PyValue): PyValue[] | undefined {
  if (Array.isArray(value)) return value
  if (value instanceof PyTuple) return [...value.items]
  if (value instanceof Set || value instanceof PyFrozenSet) return [...value]
  return undefined
}

/** A numeric array's values as float64 (exact for every numeric dtype but int64 past 2^53). */
export function toFloat64 (array: NdArray, what: string): Float64Array {
  if (array.data instanceof Map || Array.isArray(array.data)) shapeError(`${what} is not a numeric array`)
  const data = array.data as NumericArray
  if (data instanceof Float64Array) return data
  const out = new Float64Array(data.length)
  for (let i = 0; i < data.length; i++) out[i] = Number(data[i])
  return out
}

/** Whether an array is stored as float32 (scikit-learn then computes with it in float32). */
export function isFloat32 (array: NdArray | SparseMatrix): boolean {
  const dtype = array instanceof SparseMatrix ? array.data.dtype : array.dtype
  return dtype.kind === 'f' && dtype.itemsize === 4
}

/** A numeric (bool, int, uint or float) array of `ndim` dimensions. */
export function numericArray (value: PyValue, what: string, ndim: number): NdArray {
  if (!(value instanceof NdArray) || value.dtype.kind === 'O' || value.dtype.fields !== undefined || !'biuf'.includes(value.dtype.kind)) {
    return shapeError(`${what} is ${describe(value)}, not a numeric array`)
  }
  if (value.shape.length !== ndim) shapeError(`${what} has ${value.shape.length} dimensions, expected ${ndim}`)
  return value
}

/** A numeric array as float64 values, its shape checked against `shape` (-1: any size). */
export function float64Array (value: PyValue, what: string, shape: readonly number[]): Float64Array {
  const array = numericArray(value, what, shape.length)
  shape.forEach((n, d) => {
    if (n >= 0 && array.shape[d] !== n) shapeError(`${what} has shape (${array.shape.join(', ')}), expected (${shape.map(s => s < 0 ? '*' : s).join(', ')})`)
  })
  return toFloat64(array, what)
}

/** An integer array as Int32Array, each value in [min, max]. */
export function int32Array (value: PyValue, what: string, min: number, max: number): Int32Array {
  const array = value instanceof NdArray && value.shape.length === 1 ? value : numericArray(value, what, 1)
  if (!'biu'.includes(array.dtype.kind)) shapeError(`${what} is ${array.dtype.str}, not an integer array`)
  const out = new Int32Array(array.size)
  for (let i = 0; i < out.length; i++) {
    const v = Number((array.data as NumericArray)[i])
    if (!(v >= min && v <= max)) shapeError(`${what}[${i}] is ${v}, outside ${min}..${max}`)
    out[i] = v
  }
  return out
}

/** `classes_` as Python prints each label. */
export function readClasses (value: PyValue, owner: string, min = 2): string[] {
  if (!(value instanceof NdArray) || value.shape.length !== 1) return shapeError(`${owner}.classes_ is not a 1-d array`)
  const isFloat = value.dtype.kind === 'f'
  const labels: string[] = []
  for (let i = 0; i < value.size; i++) labels.push(pyStr(elementAt(value.data, i, value.dtype), isFloat))
  if (labels.length < min) unsupported(`${owner} has ${labels.length} class; at least ${min} are needed`)
  return labels
}

/** Calls `fn(row, col, value)` for each stored entry of a csr, csc or coo matrix. */
export function forEachEntry (m: SparseMatrix, what: string, fn: (i: number, j: number, v: number) => void): void {
  const data = toFloat64(m.data, `${what} data`)
  if (m.format === 'csr' || m.format === 'csc') {
    const major = m.format === 'csr' ? m.shape[0] : m.shape[1]
    for (let i = 0; i < major; i++) {
      for (let p = indexAt(m.indptr!, i); p < indexAt(m.indptr!, i + 1); p++) {
        const j = indexAt(m.indices!, p)
        if (m.format === 'csr') fn(i, j, data[p]!)
        else fn(j, i, data[p]!)
      }
    }
  } else if (m.format === 'coo') {
    for (let p = 0; p < m.data.size; p++) fn(indexAt(m.row!, p), indexAt(m.col!, p), data[p]!)
  } else {
    unsupported(`${what} is a ${m.format} matrix`)
  }
}

/** The vectorizer's `dtype` parameter: a numpy type, a dtype, or its name. */
export function dtypeName (obj: PyObject, fallback = 'float64'): string {
  const v = param(obj, 'dtype', null)
  if (v === null) return fallback
  if (v instanceof PyGlobal) return v.name === 'float_' || v.name === 'double' ? 'float64' : v.name === 'single' ? 'float32' : v.name
  if (v instanceof DType) return v.kind === 'f' ? `float${v.itemsize * 8}` : `${v.kind}${v.itemsize}`
  if (typeof v === 'string') return v
  return unsupported(`${obj.name}.dtype is ${describe(v)}`)
}

/**
 * The scikit-learn version that wrote a record (`_sklearn_version`, e.g. '1.4.1.post1'), as
 * [major, minor, patch]; [0, 0, 0] when absent (files from before 0.18 carry none).
 */
export function sklearnVersion (obj: PyObject): readonly [number, number, number] {
  const v = obj.get('_sklearn_version')
  const m = typeof v === 'string' ? /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(v) : null
  return m === null ? [0, 0, 0] : [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)]
}

/** Whether the record was written by scikit-learn `major.minor.patch` or later. */
export function writtenSince (obj: PyObject, major: number, minor: number, patch = 0): boolean {
  const [a, b, c] = sklearnVersion(obj)
  return a !== major ? a > major : b !== minor ? b > minor : c >= patch
}
