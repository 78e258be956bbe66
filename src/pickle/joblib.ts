/**
 * joblib >= 0.10 files: a pickle in which each numpy array is a NumpyArrayWrapper
 * whose raw bytes follow its BUILD in the stream (after an alignment pad since joblib
 * 1.2), or, for object arrays, a nested pickle. Mirrors joblib's
 * `NumpyUnpickler.load_build` and `NumpyArrayWrapper.read_array` (joblib 1.2-1.5).
 */
import { ServiceError } from '../errors.js'
import { DType, NdArray, arrayFromBytes, readShape } from './numpy.js'
import type { RawStream } from './unpickler.js'
import { isPyObject, type PyValue } from './values.js'
import { summarize } from './summarize.js'

const WRAPPER = 'joblib.numpy_pickle.NumpyArrayWrapper'

/** The BUILD hook that swaps each NumpyArrayWrapper for the array it announces. */
export function readJoblibArray (built: PyValue, stream: RawStream): PyValue {
  if (!isPyObject(built, WRAPPER)) return built
  const dtype = built.get('dtype')
  const order = built.get('order')
  if (!(dtype instanceof DType)) throw new ServiceError('ERR_PICKLE_INVALID', 'NumpyArrayWrapper without a dtype')
  if (order !== 'C' && order !== 'F') throw new ServiceError('ERR_PICKLE_INVALID', `NumpyArrayWrapper order ${summarize(order)}`)
  const shape = readShape(built.get('shape'))
  if (dtype.isObject) {
    const array = stream.loadNested()
    if (!(array instanceof NdArray)) throw new ServiceError('ERR_PICKLE_INVALID', 'joblib object array is not an array')
    return array
  }
  const alignment = built.get('numpy_array_alignment_bytes')
  if (alignment !== undefined && alignment !== null) {
    const padding = stream.readU8()
    stream.readView(padding, 'joblib alignment padding')
  }
  const count = shape.reduce((a, b) => a * b, 1)
  const bytes = stream.readView(count * dtype.itemsize, 'joblib array data')
  const array = arrayFromBytes(bytes, dtype, shape, order)
  // joblib hands arrays back in native byte order (_ensure_native_byte_order); our data already is.
  array.dtype = dtype.toNative()
  return array
}
