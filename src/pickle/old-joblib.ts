/**
 * joblib < 0.10 files (joblib 0.9.4 `numpy_pickle.py`, also vendored as
 * `sklearn.externals.joblib`): `joblib.dump` kept each numpy array (of type ndarray or
 * memmap, holding no objects) in a file beside the pickle, and pickled a wrapper naming it:
 *
 * - uncompressed, an `NDArrayWrapper(filename, subclass, allow_mmap)` for the `.npy` file
 *   `np.save` wrote, `<pickle name>_NN.npy`;
 * - compressed (arrays above `cache_size`), a `ZNDArrayWrapper(filename, init_args, state)`
 *   for `<pickle name>_NN.npy.z`, a z-file holding the array's raw bytes, its dtype, shape
 *   and order kept in `state` as `ndarray.__reduce__` gives them.
 *
 * Mirrors `NumpyUnpickler.load_build` and both wrappers' `read` there. A pickle chooses which
 * file to read, so only a plain file name is accepted (no path separator, not '.' or '..'),
 * ending as joblib names them (.npy, .z), and it is looked up in the pickle's own folder only.
 */
import { ServiceError } from '../errors.js'
import { inflateZfile } from './decompress.js'
import { NdArray } from './numpy.js'
import { parseNpy } from './npy.js'
import type { RawStream } from './unpickler.js'
import { PyGlobal, PyTuple, isPyObject, type PyValue } from './values.js'
import { summarize } from './summarize.js'

/**
 * Reads a file beside the pickle, given a name `sideFileName` accepted; bounds the total read.
 * @throws ServiceError ERR_MODEL_READ when it cannot be read, ERR_PICKLE_LIMIT past the bound.
 */
export interface SideFiles {
  read: (name: string) => Uint8Array
  /** Largest decompressed `.npy.z` data accepted. */
  readonly maxDecompressedBytes: number
}

const ND = 'joblib.numpy_pickle.NDArrayWrapper'
const ZND = 'joblib.numpy_pickle.ZNDArrayWrapper'

function invalid (detail: string): never {
  throw new ServiceError('ERR_PICKLE_INVALID', detail)
}

/**
 * A wrapper's `filename` if it names a file in the pickle's own folder with joblib's ending.
 * @throws ServiceError ERR_PICKLE_INVALID for any other name: a path, '..', another ending.
 */
export function sideFileName (value: PyValue, ending: string, wrapper: string): string {
  if (typeof value !== 'string') return invalid(`${wrapper}.filename is ${summarize(value)}, not a file name`)
  if (value === '' || value === '.' || value === '..' || /[/\\\0]/.test(value) || !value.endsWith(ending)) {
    return invalid(`${wrapper} names ${summarize(value)}: only a ${ending} file beside the pickle is read (no path, no '..')`)
  }
  return value
}

function isArrayClass (value: PyValue): boolean {
  return value instanceof PyGlobal && (value.qualifiedName === 'numpy.ndarray' || value.name === 'memmap')
}

/**
 * The BUILD hook that swaps each NDArrayWrapper or ZNDArrayWrapper for the array in the file
 * it names; other values pass through.
 * @param side the pickle's folder, or undefined when the pickle has none (decoded from bytes).
 */
export function readOldJoblibArray (built: PyValue, stream: RawStream, side: SideFiles | undefined): PyValue {
  if (!isPyObject(built) || (built.qualifiedName !== ND && built.qualifiedName !== ZND)) return built
  const isNd = built.qualifiedName === ND
  const wrapper = built.name
  if (side === undefined) {
    throw new ServiceError('ERR_PICKLE_UNSUPPORTED', `joblib < 0.10 keeps this array in a file beside the pickle (${wrapper}), and these bytes come from no folder`)
  }
  let array: NdArray
  if (isNd) {
    const name = sideFileName(built.get('filename'), '.npy', wrapper)
    // joblib rebuilds other subclasses (numpy.matrix) from the file's array; none is allowed here.
    if (!isArrayClass(built.get('subclass'))) invalid(`${wrapper}.subclass is ${summarize(built.get('subclass'))}, not numpy.ndarray`)
    array = parseNpy(side.read(name), name)
  } else {
    const name = sideFileName(built.get('filename'), '.z', wrapper)
    const init = built.get('init_args')
    const state = built.get('state')
    // init_args is `ndarray.__reduce__`'s (numpy.core.multiarray._reconstruct's arguments).
    if (!(init instanceof PyTuple) || !isArrayClass(init.items[0])) invalid(`${wrapper}.init_args is ${summarize(init)}, not an ndarray's`)
    if (!(state instanceof PyTuple) || state.length !== 4) invalid(`${wrapper}.state is ${summarize(state)}, not an ndarray's (version, shape, dtype, fortran)`)
    const data = inflateZfile(side.read(name), side.maxDecompressedBytes)
    array = new NdArray()
    array.setState(new PyTuple([...state.items, data]))
  }
  // The array came from outside the pickle: its elements are charged against budget it brings.
  stream.grant(array.size)
  return array
}
