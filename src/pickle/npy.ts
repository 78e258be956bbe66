/**
 * numpy's `.npy` format (`numpy/lib/format.py`, versions 1.0, 2.0 and 3.0): the magic
 * `\x93NUMPY`, a version, a little-endian header length (2 bytes in 1.0, 4 after), a header
 * that is a Python dict literal `{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }`,
 * then the array's raw bytes. Read for joblib < 0.10 files, which kept each array in one.
 * Only the literals numpy writes are accepted; arrays of objects (pickled inside the file)
 * never are: joblib wrote those into the pickle itself.
 */
import { ServiceError } from '../errors.js'
import { DType, NdArray, arrayFromBytes, readShape } from './numpy.js'
import { PyTuple, type PyValue } from './values.js'

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59] // \x93NUMPY

/** Most bytes of a header accepted: numpy itself refuses headers past 10,000 bytes (max_header_size). */
const MAX_HEADER = 10_000

const MAX_NESTING = 8

function invalid (what: string, detail: string): never {
  throw new ServiceError('ERR_PICKLE_INVALID', `${what}: ${detail}`)
}

/**
 * The array an `.npy` file holds, C-ordered, in native byte order.
 * @param what names the file in messages.
 * @throws ServiceError ERR_PICKLE_INVALID for anything but a well-formed .npy file of a
 * numeric, string or structured dtype.
 */
export function parseNpy (bytes: Uint8Array, what: string): NdArray {
  if (bytes.length < 10 || !MAGIC.every((b, i) => bytes[i] === b)) invalid(what, 'not a .npy file')
  const major = bytes[6]!
  const wide = major >= 2
  if (major < 1 || major > 3) invalid(what, `.npy format version ${major}.${bytes[7]!} is not known`)
  const start = wide ? 12 : 10
  if (bytes.length < start) invalid(what, 'the .npy header is cut short')
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const length = wide ? view.getUint32(8, true) : view.getUint16(8, true)
  if (length > MAX_HEADER) invalid(what, `a .npy header of ${length} bytes is over numpy's ${MAX_HEADER}`)
  if (start + length > bytes.length) invalid(what, 'the .npy header is cut short')
  const header = new TextDecoder(major === 3 ? 'utf-8' : 'latin1', { fatal: true }).decode(bytes.subarray(start, start + length))
  const dict = parseLiteral(header, what)
  if (!(dict instanceof Map)) invalid(what, 'the .npy header is not a dict')
  const descr = dict.get('descr')
  const fortran = dict.get('fortran_order')
  if (typeof fortran !== 'boolean') invalid(what, 'the .npy header has no fortran_order')
  const dtype = dtypeOf(descr, what)
  const shape = readShape(dict.get('shape'))
  const array = arrayFromBytes(bytes.subarray(start + length), dtype, shape, fortran ? 'F' : 'C')
  // np.load keeps the file's byte order; its values are the same, and ours are already native.
  array.dtype = dtype.toNative()
  array.fortranOrder = fortran
  return array
}

/** `descr` as numpy's `descr_to_dtype` reads it: a type string, or a list of (name, type) fields. */
function dtypeOf (descr: PyValue, what: string): DType {
  if (typeof descr === 'string') {
    if (/^[|<>=]?O/.test(descr)) invalid(what, 'arrays of objects are not read from .npy files')
    return new DType(descr)
  }
  if (!Array.isArray(descr) || descr.length === 0) return invalid(what, 'the .npy header has no descr')
  // Fields lie one after the other; unnamed ('') ones are padding (numpy's dtype.descr).
  const names: string[] = []
  const fields = new Map<PyValue, PyValue>()
  let offset = 0
  for (const field of descr) {
    if (!(field instanceof PyTuple) || field.length !== 2 || typeof field.items[0] !== 'string' || typeof field.items[1] !== 'string') {
      return invalid(what, 'a .npy field that is not a (name, type) pair (sub-arrays and nested records are not read)')
    }
    const [name, type] = field.items as [string, string]
    const dtype = dtypeOf(type, what)
    if (name !== '') {
      if (fields.has(name)) invalid(what, `the .npy field '${name}' comes twice`)
      names.push(name)
      fields.set(name, new PyTuple([dtype, offset]))
    }
    offset += dtype.itemsize
  }
  const record = new DType(`V${offset}`)
  record.setState(new PyTuple([3, '|', null, new PyTuple(names), fields, offset, 1, 16]))
  return record
}

/**
 * A Python literal of the kinds a .npy header holds: dicts, lists, tuples, strings (quoted
 * with ' or ", with backslash escapes), ints, True, False and None.
 */
function parseLiteral (text: string, what: string): PyValue {
  let pos = 0
  const skip = (): void => { while (pos < text.length && /\s/.test(text[pos]!)) pos++ }
  const fail = (): never => invalid(what, `the .npy header is not a literal numpy writes (at character ${pos})`)
  // numpy's headers nest three deep (a dict of a list of tuples); deeper is refused, not recursed into.
  let depth = 0
  const value = (): PyValue => {
    skip()
    const c = text[pos]
    if (c === '{' || c === '[' || c === '(') {
      if (++depth > MAX_NESTING) fail()
      const made = c === '{' ? sequence('}', true) : c === '[' ? sequence(']', false) : new PyTuple(sequence(')', false) as PyValue[])
      depth--
      return made
    }
    if (c === "'" || c === '"') return string(c)
    const word = /^(True|False|None|-?\d+)/.exec(text.slice(pos, pos + 32))
    if (word === null) return fail()
    pos += word[0].length
    if (word[0] === 'True') return true
    if (word[0] === 'False') return false
    if (word[0] === 'None') return null
    const n = Number(word[0])
    return Number.isSafeInteger(n) ? n : fail()
  }
  const sequence = (close: string, isDict: boolean): PyValue => {
    pos++
    const items: PyValue[] = []
    const map = new Map<PyValue, PyValue>()
    for (;;) {
      skip()
      if (text[pos] === close) { pos++; break }
      const item = value()
      if (isDict) {
        skip()
        if (text[pos] !== ':') fail()
        pos++
        map.set(item, value())
      } else {
        items.push(item)
      }
      skip()
      if (text[pos] === ',') pos++
      else if (text[pos] !== close) fail()
    }
    return isDict ? map : items
  }
  const string = (quote: string): string => {
    let out = ''
    for (pos++; pos < text.length && text[pos] !== quote; pos++) {
      if (text[pos] === '\\') pos++
      out += text[pos] ?? ''
    }
    if (pos >= text.length) fail()
    pos++
    return out
  }
  const result = value()
  skip()
  return pos === text.length ? result : fail()
}
