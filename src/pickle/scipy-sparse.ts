/**
 * scipy.sparse matrices and arrays (csr, csc, coo, dia; `*_matrix` and `*_array`),
 * built from their pickled `__dict__` and checked so that later code can index them
 * without bounds checks: a hostile file cannot point outside the data.
 */
import { ServiceError } from '../errors.js'
import { NdArray, type NumericArray } from './numpy.js'
import { SUMMARY, type Summarizable } from './summarize.js'
import { PyTuple, type Buildable, type PyValue } from './values.js'

export type SparseFormat = 'csr' | 'csc' | 'coo' | 'dia'

export class SparseMatrix implements Buildable, Summarizable {
  readonly format: SparseFormat
  /** Whether it was a `*_array` (scipy >= 1.8) rather than a `*_matrix`. */
  readonly isArray: boolean
  shape: [number, number] = [0, 0]
  /** The stored values (csr, csc, coo: one per entry; dia: one row per diagonal). */
  data: NdArray = new NdArray()
  /** csr/csc: column/row index of each entry. coo: row and col. dia: offsets. */
  indices: NdArray | undefined
  indptr: NdArray | undefined
  row: NdArray | undefined
  col: NdArray | undefined
  offsets: NdArray | undefined
  /** The whole pickled __dict__, for attributes not read above (maxprint, ...). */
  state: Map<PyValue, PyValue> = new Map()

  constructor (format: SparseFormat, isArray: boolean) {
    this.format = format
    this.isArray = isArray
  }

  /** For messages: its format, never its contents. */
  [SUMMARY] (): string {
    return `a sparse ${this.format} matrix`
  }

  setState (state: PyValue): void {
    if (!(state instanceof Map)) throw new ServiceError('ERR_PICKLE_INVALID', `scipy ${this.format} state is not a dict`)
    this.state = state
    this.shape = readMatrixShape(state.get('_shape') ?? state.get('shape'))
    this.data = arrayField(state, 'data', this.format)
    const [rows, cols] = this.shape
    switch (this.format) {
      case 'csr': case 'csc': {
        const [major, minor] = this.format === 'csr' ? [rows, cols] : [cols, rows]
        this.indices = arrayField(state, 'indices', this.format)
        this.indptr = arrayField(state, 'indptr', this.format)
        checkCompressed(this.format, this.indptr, this.indices, this.data, major, minor)
        break
      }
      case 'coo': {
        this.row = arrayField(state, 'row', this.format)
        this.col = arrayField(state, 'col', this.format)
        if (this.row.size !== this.data.size || this.col.size !== this.data.size) {
          throw new ServiceError('ERR_PICKLE_INVALID', 'scipy coo row, col and data differ in length')
        }
        checkIndices(this.row, rows, 'coo row')
        checkIndices(this.col, cols, 'coo col')
        break
      }
      case 'dia': {
        this.offsets = arrayField(state, 'offsets', this.format)
        const diagonals = this.data.shape.length === 2 ? this.data.shape[0] : -1
        if (diagonals !== this.offsets.size) throw new ServiceError('ERR_PICKLE_INVALID', 'scipy dia data and offsets differ in length')
        break
      }
    }
  }

  get nnz (): number {
    return this.format === 'csr' || this.format === 'csc' ? indexAt(this.indptr!, this.indptr!.size - 1) : this.data.size
  }
}

function readMatrixShape (value: PyValue): [number, number] {
  if (!(value instanceof PyTuple) || value.length !== 2) throw new ServiceError('ERR_PICKLE_INVALID', 'scipy sparse shape is not a pair')
  const [r, c] = value.items
  if (typeof r !== 'number' || typeof c !== 'number' || !Number.isSafeInteger(r) || !Number.isSafeInteger(c) || r < 0 || c < 0) {
    throw new ServiceError('ERR_PICKLE_INVALID', 'scipy sparse shape is not two non-negative integers')
  }
  return [r, c]
}

function arrayField (state: Map<PyValue, PyValue>, name: string, format: string): NdArray {
  const value = state.get(name)
  if (!(value instanceof NdArray) || value.data instanceof Map || Array.isArray(value.data)) {
    throw new ServiceError('ERR_PICKLE_INVALID', `scipy ${format} '${name}' is not a numeric array`)
  }
  return value
}

/** An integer array element as a number. */
export function indexAt (array: NdArray, i: number): number {
  return Number((array.data as NumericArray)[i])
}

function checkIndices (array: NdArray, bound: number, what: string): void {
  if (array.dtype.kind !== 'i' && array.dtype.kind !== 'u') throw new ServiceError('ERR_PICKLE_INVALID', `${what} is not an integer array`)
  for (let i = 0; i < array.size; i++) {
    const v = indexAt(array, i)
    if (v < 0 || v >= bound) throw new ServiceError('ERR_PICKLE_INVALID', `${what} index ${v} is outside 0..${bound - 1}`)
  }
}

function checkCompressed (format: string, indptr: NdArray, indices: NdArray, data: NdArray, major: number, minor: number): void {
  if (indptr.size !== major + 1) throw new ServiceError('ERR_PICKLE_INVALID', `scipy ${format} indptr has ${indptr.size} entries for ${major} rows`)
  if (indptr.dtype.kind !== 'i' && indptr.dtype.kind !== 'u') throw new ServiceError('ERR_PICKLE_INVALID', `scipy ${format} indptr is not an integer array`)
  let previous = 0
  for (let i = 0; i <= major; i++) {
    const p = indexAt(indptr, i)
    if (p < previous || (i === 0 && p !== 0)) throw new ServiceError('ERR_PICKLE_INVALID', `scipy ${format} indptr is not monotonic from 0`)
    previous = p
  }
  if (previous !== indices.size || previous !== data.size) {
    throw new ServiceError('ERR_PICKLE_INVALID', `scipy ${format} has ${previous} entries by indptr, ${indices.size} indices and ${data.size} values`)
  }
  checkIndices(indices, minor, `scipy ${format} indices`)
}
