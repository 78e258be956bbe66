/**
 * numpy dtypes, arrays and scalars rebuilt from their pickled form into aligned,
 * native-endian typed arrays, mirroring numpy's own `dtype.__setstate__`,
 * `ndarray.__setstate__`, `_frombuffer` and `multiarray.scalar` (numpy 1.x and 2.x).
 * Data is always copied, and always stored in C order: a Fortran-ordered array is
 * transposed on load, as joblib and numpy do when they hand it back.
 */
import { ServiceError } from '../errors.js'
import { PyByteArray, PyTuple, type Buildable, type PyValue } from './values.js'
import { SUMMARY, summarize, type Summarizable } from './summarize.js'

export type NumericArray = Uint8Array | Int8Array | Int16Array | Int32Array | Uint16Array | Uint32Array |
Float32Array | Float64Array | BigInt64Array | BigUint64Array

/** A structured array: one column per named field, each in C order. */
export type StructuredColumns = Map<string, ArrayData>

export type ArrayData = NumericArray | PyValue[] | string[] | Uint8Array[] | StructuredColumns

export interface DTypeField {
  readonly name: string
  readonly dtype: DType
  readonly offset: number
}

const KINDS = new Set(['b', 'i', 'u', 'f', 'c', 'O', 'U', 'S', 'V', 'M', 'm'])

/** numpy.dtype: kind, byte order, item size and, for structured dtypes, the fields. */
export class DType implements Buildable {
  kind: string
  itemsize: number
  byteOrder: '<' | '>' | '|' = '|'
  fields: DTypeField[] | undefined

  /** From `numpy.dtype(typestr, align, copy)`, e.g. 'f8', 'U5', 'O8', 'V16'. */
  constructor (typestr: string) {
    const match = /^([<>|=]?)([a-zA-Z])(\d*)$/.exec(typestr)
    const kind = match?.[2] === '?' ? 'b' : match?.[2]
    if (match === null || kind === undefined || !KINDS.has(kind)) {
      throw new ServiceError('ERR_PICKLE_UNSUPPORTED', `unsupported numpy dtype '${typestr}'`)
    }
    this.kind = kind
    const size = match[3] === '' ? defaultSize(kind) : Number(match[3])
    // 'U5' counts characters; numpy stores 4 bytes (UCS-4) for each.
    this.itemsize = kind === 'U' ? size * 4 : size
    if (match[1] === '>' || match[1] === '<') this.byteOrder = match[1]
    else if (this.itemsize > 1 && kind !== 'O' && kind !== 'V' && kind !== 'S') this.byteOrder = '<'
  }

  /** `dtype.__setstate__`: (version, endian, subarray, names, fields, elsize, alignment, flags[, metadata]). */
  setState (state: PyValue): void {
    if (!(state instanceof PyTuple) || state.length < 6) {
      throw new ServiceError('ERR_PICKLE_INVALID', 'numpy dtype state is not a tuple of 6 or more items')
    }
    const [, endian, subarray, names, fields, elsize] = state.items
    if (endian === '<' || endian === '>' || endian === '|') this.byteOrder = endian
    else if (endian !== '=') throw new ServiceError('ERR_PICKLE_INVALID', `numpy dtype byte order ${summarize(endian)}`)
    if (subarray !== null) throw new ServiceError('ERR_PICKLE_UNSUPPORTED', 'numpy sub-array dtypes are not supported')
    if (typeof elsize === 'number' && elsize >= 0) {
      if (!Number.isSafeInteger(elsize)) throw new ServiceError('ERR_PICKLE_INVALID', `numpy dtype item size ${elsize}`)
      if (this.kind !== 'V' && this.kind !== 'U' && this.kind !== 'S' && elsize !== this.itemsize) {
        throw new ServiceError('ERR_PICKLE_INVALID', `numpy dtype '${this.kind}${this.itemsize}' with item size ${elsize}`)
      }
      this.itemsize = elsize
    }
    if (names !== null) this.fields = readFields(names, fields, this.itemsize)
  }

  /** The same dtype in native (little-endian) byte order, as numpy's `newbyteorder('=')` on x86/arm. */
  toNative (): DType {
    if (this.byteOrder !== '>' && this.fields === undefined) return this
    const copy = Object.assign(Object.create(DType.prototype) as DType, this)
    if (copy.byteOrder === '>') copy.byteOrder = '<'
    copy.fields = this.fields?.map(f => ({ ...f, dtype: f.dtype.toNative() }))
    return copy
  }

  get isObject (): boolean {
    return this.kind === 'O' || (this.fields?.some(f => f.dtype.isObject) ?? false)
  }

  /** numpy's `dtype.str`, e.g. '<f8', '|b1', '|O'. */
  get str (): string {
    if (this.kind === 'O') return '|O'
    const size = this.kind === 'U' ? this.itemsize / 4 : this.itemsize
    return `${this.byteOrder}${this.kind}${size}`
  }
}

function defaultSize (kind: string): number {
  switch (kind) {
    case 'b': return 1
    case 'O': return 8
    case 'f': return 8
    case 'i': case 'u': return 8
    case 'c': return 16
    default: return 0
  }
}

function readFields (names: PyValue, fields: PyValue, itemsize: number): DTypeField[] {
  if (!(names instanceof PyTuple) || !(fields instanceof Map)) {
    throw new ServiceError('ERR_PICKLE_INVALID', 'numpy structured dtype without names and fields')
  }
  return names.items.map(name => {
    const entry = fields.get(name)
    if (typeof name !== 'string' || !(entry instanceof PyTuple) || entry.length < 2) {
      throw new ServiceError('ERR_PICKLE_INVALID', `numpy dtype field ${summarize(name)} is malformed`)
    }
    const [dtype, offset] = entry.items
    if (!(dtype instanceof DType) || typeof offset !== 'number' || !Number.isSafeInteger(offset) ||
        offset < 0 || offset + dtype.itemsize > itemsize) {
      throw new ServiceError('ERR_PICKLE_INVALID', `numpy dtype field '${name}' lies outside its record`)
    }
    return { name, dtype, offset }
  })
}

/** numpy.ndarray, always C-ordered, with the dtype it was saved with. */
export class NdArray implements Buildable, Summarizable {
  dtype: DType
  shape: number[]
  data: ArrayData
  /** Whether the array was Fortran-ordered when saved (its data here is C-ordered). */
  fortranOrder = false

  constructor (dtype: DType = new DType('u1'), shape: number[] = [0], data: ArrayData = new Uint8Array(0)) {
    this.dtype = dtype
    this.shape = shape
    this.data = data
  }

  get size (): number {
    return this.shape.reduce((a, b) => a * b, 1)
  }

  /** For messages: its shape, never its contents. */
  [SUMMARY] (): string {
    return `an array of shape (${this.shape.join(', ')})`
  }

  /** `ndarray.__setstate__`: ([version,] shape, dtype, is_fortran, data). */
  setState (state: PyValue): void {
    if (!(state instanceof PyTuple) || (state.length !== 4 && state.length !== 5)) {
      throw new ServiceError('ERR_PICKLE_INVALID', 'numpy array state is not a tuple of 4 or 5 items')
    }
    const [shape, dtype, isFortran, raw] = state.items.slice(state.length - 4)
    if (!(dtype instanceof DType)) throw new ServiceError('ERR_PICKLE_INVALID', 'numpy array state has no dtype')
    const dims = readShape(shape)
    const order = isFortran === true || isFortran === 1 ? 'F' : 'C'
    const built = dtype.isObject ? objectArray(dtype, dims, raw) : arrayFromBytes(toBytes(raw, 'numpy array data'), dtype, dims, order)
    // numpy's array_setstate byte-swaps non-native data and hands back a native dtype.
    this.dtype = built.dtype.toNative()
    this.shape = built.shape
    this.data = built.data
    this.fortranOrder = order === 'F'
  }
}

/** A tuple of non-negative integers as a shape; its size must be a safe integer. */
export function readShape (value: PyValue): number[] {
  const items = value instanceof PyTuple ? value.items : Array.isArray(value) ? value : typeof value === 'number' ? [value] : undefined
  if (items === undefined) throw new ServiceError('ERR_PICKLE_INVALID', 'numpy shape is not a tuple')
  let size = 1
  const shape = items.map(d => {
    const n = typeof d === 'bigint' ? Number(d) : d
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
      throw new ServiceError('ERR_PICKLE_INVALID', `numpy shape has dimension ${summarize(d)}`)
    }
    size *= n
    return n
  })
  if (!Number.isSafeInteger(size)) throw new ServiceError('ERR_PICKLE_INVALID', 'numpy shape is too large')
  return shape
}

/** bytes, bytearray or a latin-1 str (how protocol 0-2 pickles carry bytes) as bytes. */
export function toBytes (value: PyValue, what: string): Uint8Array {
  if (value instanceof Uint8Array) return value
  if (value instanceof PyByteArray) return value.bytes
  if (typeof value === 'string') return latin1Bytes(value, what)
  throw new ServiceError('ERR_PICKLE_INVALID', `${what} is not bytes`)
}

export function latin1Bytes (text: string, what: string): Uint8Array {
  const out = new Uint8Array(text.length)
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c > 0xff) throw new ServiceError('ERR_PICKLE_INVALID', `${what} has a character outside latin-1`)
    out[i] = c
  }
  return out
}

/** `numpy.frombuffer(bytes, dtype).reshape(shape, order)`, as a C-ordered copy. */
export function arrayFromBytes (bytes: Uint8Array, dtype: DType, shape: number[], order: 'C' | 'F'): NdArray {
  const count = shape.reduce((a, b) => a * b, 1)
  if (dtype.isObject) throw new ServiceError('ERR_PICKLE_INVALID', 'object array data cannot come from bytes')
  if (count * dtype.itemsize !== bytes.length) {
    throw new ServiceError('ERR_PICKLE_INVALID', `numpy array of shape (${shape.join(', ')}) and dtype ${dtype.str} needs ${count * dtype.itemsize} bytes, got ${bytes.length}`)
  }
  const data = decodeElements(bytes, dtype, count, 0, dtype.itemsize)
  return new NdArray(dtype, shape, order === 'F' ? fortranToC(data, shape) : data)
}

function objectArray (dtype: DType, shape: number[], raw: PyValue): NdArray {
  const count = shape.reduce((a, b) => a * b, 1)
  if (dtype.kind !== 'O') throw new ServiceError('ERR_PICKLE_UNSUPPORTED', 'structured arrays holding objects are not supported')
  if (!Array.isArray(raw) || raw.length !== count) {
    throw new ServiceError('ERR_PICKLE_INVALID', `object array of ${count} items has ${Array.isArray(raw) ? raw.length : 'no'} list of items`)
  }
  // numpy writes and reads the item list in C order whatever the array's own order (_getlist_pkl).
  return new NdArray(dtype, shape, raw.slice())
}

/** Decodes `count` records of `stride` bytes starting at `offset`, one field of `dtype` each. */
function decodeElements (bytes: Uint8Array, dtype: DType, count: number, offset: number, stride: number): ArrayData {
  if (dtype.fields !== undefined) {
    const columns: StructuredColumns = new Map()
    for (const field of dtype.fields) {
      columns.set(field.name, decodeElements(bytes, field.dtype, count, offset + field.offset, stride))
    }
    return columns
  }
  const size = dtype.itemsize
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const little = dtype.byteOrder !== '>'
  switch (dtype.kind) {
    case 'b': return fill(new Uint8Array(count), i => view.getUint8(offset + i * stride) === 0 ? 0 : 1)
    case 'i':
      switch (size) {
        case 1: return fill(new Int8Array(count), i => view.getInt8(offset + i * stride))
        case 2: return fill(new Int16Array(count), i => view.getInt16(offset + i * stride, little))
        case 4: return fill(new Int32Array(count), i => view.getInt32(offset + i * stride, little))
        case 8: return fillBig(new BigInt64Array(count), i => view.getBigInt64(offset + i * stride, little))
      }
      break
    case 'u':
      switch (size) {
        case 1: return fill(new Uint8Array(count), i => view.getUint8(offset + i * stride))
        case 2: return fill(new Uint16Array(count), i => view.getUint16(offset + i * stride, little))
        case 4: return fill(new Uint32Array(count), i => view.getUint32(offset + i * stride, little))
        case 8: return fillBig(new BigUint64Array(count), i => view.getBigUint64(offset + i * stride, little))
      }
      break
    case 'f':
      switch (size) {
        // Every float16 is exactly a float32, and Node 20 has no Float16Array.
        case 2: return fill(new Float32Array(count), i => halfToFloat(view.getUint16(offset + i * stride, little)))
        case 4: return fill(new Float32Array(count), i => view.getFloat32(offset + i * stride, little))
        case 8: return fill(new Float64Array(count), i => view.getFloat64(offset + i * stride, little))
      }
      break
    case 'U': {
      const out: string[] = new Array<string>(count)
      for (let i = 0; i < count; i++) out[i] = decodeUcs4(view, offset + i * stride, size, little)
      return out
    }
    case 'S': case 'V': {
      const out: Uint8Array[] = new Array<Uint8Array>(count)
      for (let i = 0; i < count; i++) {
        const item = bytes.slice(offset + i * stride, offset + i * stride + size)
        out[i] = dtype.kind === 'S' ? stripTrailingZeros(item) : item
      }
      return out
    }
  }
  throw new ServiceError('ERR_PICKLE_UNSUPPORTED', `numpy dtype ${dtype.str} is not supported`)
}

function fill<T extends { length: number, [i: number]: number }> (out: T, at: (i: number) => number): T {
  for (let i = 0; i < out.length; i++) out[i] = at(i)
  return out
}

function fillBig<T extends { length: number, [i: number]: bigint }> (out: T, at: (i: number) => bigint): T {
  for (let i = 0; i < out.length; i++) out[i] = at(i)
  return out
}

/** IEEE 754 binary16 to a JS number (exact). */
export function halfToFloat (h: number): number {
  const sign = (h & 0x8000) !== 0 ? -1 : 1
  const exp = (h >> 10) & 0x1f
  const frac = h & 0x3ff
  if (exp === 0) return sign * frac * 2 ** -24
  if (exp === 0x1f) return frac === 0 ? sign * Infinity : NaN
  return sign * (1 + frac / 1024) * 2 ** (exp - 15)
}

/** numpy 'U' items are UCS-4 code points, NUL-padded; numpy drops the trailing NULs. */
function decodeUcs4 (view: DataView, offset: number, size: number, little: boolean): string {
  let end = size / 4
  while (end > 0 && view.getUint32(offset + (end - 1) * 4, little) === 0) end--
  let out = ''
  for (let j = 0; j < end; j++) {
    const cp = view.getUint32(offset + j * 4, little)
    if (cp > 0x10ffff) throw new ServiceError('ERR_PICKLE_INVALID', `numpy string holds code point ${cp}`)
    out += String.fromCodePoint(cp)
  }
  return out
}

function stripTrailingZeros (item: Uint8Array): Uint8Array {
  let end = item.length
  while (end > 0 && item[end - 1] === 0) end--
  return end === item.length ? item : item.slice(0, end)
}

/** Reorders data stored in Fortran order (first index fastest) into C order. */
export function fortranToC<T extends ArrayData> (data: T, shape: number[]): T {
  if (shape.length < 2) return data
  if (data instanceof Map) {
    const out: StructuredColumns = new Map()
    for (const [name, column] of data as StructuredColumns) out.set(name, fortranToC(column, shape))
    return out as T
  }
  const source = data as unknown as { length: number, [i: number]: unknown }
  const target = (Array.isArray(data) ? new Array(source.length) : new (data.constructor as new (n: number) => typeof source)(source.length)) as typeof source
  const n = shape.length
  const index = new Array<number>(n).fill(0)
  const fStrides = new Array<number>(n)
  fStrides[0] = 1
  for (let d = 1; d < n; d++) fStrides[d] = fStrides[d - 1]! * shape[d - 1]!
  for (let c = 0; c < source.length; c++) {
    let f = 0
    for (let d = 0; d < n; d++) f += index[d]! * fStrides[d]!
    target[c] = source[f]
    for (let d = n - 1; d >= 0; d--) {
      if (++index[d]! < shape[d]!) break
      index[d] = 0
    }
  }
  return target as unknown as T
}

/** `numpy.core.multiarray.scalar(dtype, data)`: one element as a plain JS value. */
export function numpyScalar (dtype: PyValue, data: PyValue): PyValue {
  if (!(dtype instanceof DType)) throw new ServiceError('ERR_PICKLE_INVALID', 'numpy scalar without a dtype')
  if (dtype.kind === 'O') return data
  const bytes = toBytes(data, 'numpy scalar data')
  return plainScalar(bytes, dtype) ?? elementAt(arrayFromBytes(bytes, dtype, [], 'C').data, 0, dtype)
}

/** Eight bytes to read one scalar through, so a scalar costs no array of its own. */
const SCRATCH = new Uint8Array(8)
const SCRATCH_VIEW = new DataView(SCRATCH.buffer)

/**
 * A bool, integer or float scalar read straight from its bytes, the value elementAt would
 * give (a vocabulary's 200,000 int64 indices are such scalars); undefined for any other dtype.
 */
function plainScalar (bytes: Uint8Array, dtype: DType): PyValue | undefined {
  const size = dtype.itemsize
  if (dtype.fields !== undefined || bytes.length !== size || (size !== 1 && size !== 2 && size !== 4 && size !== 8)) return undefined
  SCRATCH.set(bytes)
  const little = dtype.byteOrder !== '>'
  const v = SCRATCH_VIEW
  switch (dtype.kind) {
    case 'b': return size === 1 ? v.getUint8(0) !== 0 : undefined
    case 'i':
    case 'u': {
      if (size === 1) return dtype.kind === 'i' ? v.getInt8(0) : v.getUint8(0)
      if (size === 2) return dtype.kind === 'i' ? v.getInt16(0, little) : v.getUint16(0, little)
      if (size === 4) return dtype.kind === 'i' ? v.getInt32(0, little) : v.getUint32(0, little)
      // Exact below 2^53 in magnitude (the high word has at most 21 bits), a bigint past it.
      const high = dtype.kind === 'i' ? v.getInt32(little ? 4 : 0, little) : v.getUint32(little ? 4 : 0, little)
      const n = high * 4294967296 + v.getUint32(little ? 0 : 4, little)
      if (Number.isSafeInteger(n)) return n
      return dtype.kind === 'i' ? v.getBigInt64(0, little) : v.getBigUint64(0, little)
    }
    case 'f':
      if (size === 2) return halfToFloat(v.getUint16(0, little))
      if (size === 4) return v.getFloat32(0, little)
      if (size === 8) return v.getFloat64(0, little)
      return undefined
  }
  return undefined
}

/** Element `i` of decoded data as a plain value: numbers where exact, bigint past 2^53. */
export function elementAt (data: ArrayData, i: number, dtype: DType): PyValue {
  if (data instanceof Map) {
    const record = new Map<PyValue, PyValue>()
    for (const field of dtype.fields ?? []) record.set(field.name, elementAt(data.get(field.name)!, i, field.dtype))
    return record
  }
  const value = (data as ArrayLike<unknown>)[i]
  if (dtype.kind === 'b') return value === 1
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value
  return value
}

/** numpy 2's `_frombuffer(buffer, dtype, shape, order)`, used by protocol 5 pickles. */
export function numpyFromBuffer (buffer: PyValue, dtype: PyValue, shape: PyValue, order: PyValue): NdArray {
  if (!(dtype instanceof DType)) throw new ServiceError('ERR_PICKLE_INVALID', '_frombuffer without a dtype')
  if (order !== 'C' && order !== 'F') throw new ServiceError('ERR_PICKLE_INVALID', `_frombuffer order ${summarize(order)}`)
  const array = arrayFromBytes(toBytes(buffer, '_frombuffer data'), dtype, readShape(shape), order)
  array.fortranOrder = order === 'F'
  return array
}


/** numpy.ma.MaskedArray: the data as an NdArray plus its boolean mask. */
export class MaskedArray extends NdArray {
  /** One entry per element, true where masked; undefined when nothing is masked (numpy's nomask). */
  mask: Uint8Array | undefined
  fillValue: PyValue = null

  /** `MaskedArray.__setstate__`: (version, shape, dtype, is_fortran, data, mask, fill_value). */
  override setState (state: PyValue): void {
    if (!(state instanceof PyTuple) || state.length !== 7) {
      throw new ServiceError('ERR_PICKLE_INVALID', 'numpy masked array state is not a tuple of 7 items')
    }
    const [version, shape, dtype, isFortran, raw, mask, fillValue] = state.items
    super.setState(new PyTuple([version, shape, dtype, isFortran, raw]))
    const maskBytes = toBytes(mask, 'numpy mask')
    if (maskBytes.length === this.size) {
      this.mask = arrayFromBytes(maskBytes, new DType('b1'), this.shape, this.fortranOrder ? 'F' : 'C').data as Uint8Array
    } else if (maskBytes.length > 1) {
      throw new ServiceError('ERR_PICKLE_INVALID', `numpy mask has ${maskBytes.length} bytes for ${this.size} items`)
    }
    this.fillValue = fillValue
  }
}
