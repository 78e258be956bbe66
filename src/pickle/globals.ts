/**
 * The allow-list: which Python globals a model file may name, and what calling each
 * one builds. Modelled on KServe's safe unpickler: scikit-learn, numpy, scipy.sparse
 * and joblib classes plus a few named reconstructors. Nothing is ever executed: a
 * class becomes a plain record, a reconstructor is a function of ours that checks
 * its arguments. Any other name (os.system, builtins.getattr, numpy.load, a
 * `__main__` class, a custom tokenizer) fails the load with ERR_PICKLE_GLOBAL_NOT_ALLOWED,
 * or, where the reader defers refusals, becomes an inert placeholder (unresolved.ts).
 */
import { ServiceError } from '../errors.js'
import { DType, MaskedArray, NdArray, latin1Bytes, numpyFromBuffer, numpyScalar, readShape } from './numpy.js'
import { SparseMatrix, type SparseFormat } from './scipy-sparse.js'
import { PyByteArray, PyComplex, PyFrozenSet, PyGlobal, PyObject, PySlice, PyTuple, type PyValue } from './values.js'
import { summarize } from './summarize.js'

/**
 * - `class`: REDUCE and NEWOBJ make an instance (a record or one of our classes).
 * - `function`: only REDUCE calls it.
 * - `value`: may only be referred to (a dtype parameter such as numpy.float64).
 */
export type GlobalSpec =
  | { readonly kind: 'class', readonly create: (args: readonly PyValue[], kwargs?: Map<PyValue, PyValue>) => PyValue }
  | { readonly kind: 'function', readonly call: (args: readonly PyValue[]) => PyValue }
  | { readonly kind: 'value' }

/** An allowed global: its name and what it does. */
export class AllowedGlobal extends PyGlobal {
  constructor (module: string, name: string, readonly spec: GlobalSpec) {
    super(module, name)
  }
}

const VALUE: GlobalSpec = Object.freeze({ kind: 'value' })

/** Python 2 names that Python 3's unpickler maps (fix_imports). A Map: module names come from the file. */
const PY2_MODULES: ReadonlyMap<string, string> = new Map([['__builtin__', 'builtins'], ['copy_reg', 'copyreg']])

const NUMPY_CORE = ['numpy.core', 'numpy._core']

const NUMPY_SCALAR_TYPES = [
  'bool_', 'bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64',
  'float16', 'float32', 'float64', 'longdouble', 'complex64', 'complex128', 'object_', 'str_', 'bytes_',
  'unicode_', 'string_', 'intc', 'uintc', 'intp', 'uintp', 'int_', 'uint', 'longlong', 'ulonglong',
  'short', 'ushort', 'byte', 'ubyte', 'single', 'double', 'half', 'void', 'datetime64', 'timedelta64',
  'generic', 'number', 'integer', 'floating', 'signedinteger', 'unsignedinteger', 'inexact'
]

const OLD_JOBLIB = new Set(['NDArrayWrapper', 'ZNDArrayWrapper'])

function fail (detail: string): never {
  throw new ServiceError('ERR_PICKLE_INVALID', detail)
}

function arg (args: readonly PyValue[], i: number, name: string): PyValue {
  if (i >= args.length) fail(`${name} takes at least ${i + 1} arguments, got ${args.length}`)
  return args[i]
}

function checkArity (args: readonly PyValue[], min: number, max: number, name: string): void {
  if (args.length < min || args.length > max) fail(`${name} takes ${min}..${max} arguments, got ${args.length}`)
}

/** Items of a list, tuple, set or dict (its keys), as Python's iter() gives them. */
function iterate (value: PyValue, name: string): PyValue[] {
  if (Array.isArray(value)) return value
  if (value instanceof PyTuple) return [...value.items]
  if (value instanceof Set || value instanceof Map) return [...value.keys()]
  if (typeof value === 'string') return [...value]
  if (value instanceof Uint8Array) return [...value]
  return fail(`${name} argument is not iterable`)
}

function bytesFromArgs (args: readonly PyValue[], name: string): Uint8Array {
  checkArity(args, 0, 3, name)
  if (args.length === 0) return new Uint8Array(0)
  const [source, encoding] = args
  if (source instanceof Uint8Array) return source.slice()
  if (source instanceof PyByteArray) return source.bytes.slice()
  if (typeof source === 'string') return encode(source, encoding, name)
  if (Array.isArray(source)) {
    return Uint8Array.from(source, v => (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < 256) ? v : fail(`${name} item ${summarize(v)} is not a byte`))
  }
  return fail(`${name} argument is not bytes, a string or a list of bytes`)
}

/** `_codecs.encode(text, encoding)` for the encodings pickles use to carry bytes. */
function encode (text: PyValue, encoding: PyValue, name: string): Uint8Array {
  if (typeof text !== 'string') fail(`${name} takes a string`)
  const enc = typeof encoding === 'string' ? encoding.toLowerCase().replace('_', '-') : 'utf-8'
  if (enc === 'latin1' || enc === 'latin-1' || enc === 'iso-8859-1') return latin1Bytes(text, name)
  if (enc === 'utf-8' || enc === 'utf8') {
    if (/[\ud800-\udfff]/u.test(text.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''))) fail(`${name}: lone surrogate cannot be encoded`)
    return new TextEncoder().encode(text)
  }
  return fail(`${name}: encoding ${summarize(encoding)} is not supported`)
}

function record (module: string, name: string): GlobalSpec {
  return { kind: 'class', create: (args, kwargs) => new PyObject(module, name, args, kwargs) }
}

function toNumber (value: PyValue, name: string): number {
  if (typeof value === 'number') return value
  if (typeof value === 'boolean') return value ? 1 : 0
  if (typeof value === 'bigint') return Number(value)
  return fail(`${name} takes numbers`)
}

const BUILTINS: Readonly<Record<string, GlobalSpec>> = Object.freeze({
  set: { kind: 'class', create: args => { checkArity(args, 0, 1, 'set'); return new Set(args.length === 0 ? [] : iterate(args[0], 'set')) } },
  frozenset: { kind: 'class', create: args => { checkArity(args, 0, 1, 'frozenset'); return new PyFrozenSet(args.length === 0 ? [] : iterate(args[0], 'frozenset')) } },
  tuple: { kind: 'class', create: args => { checkArity(args, 0, 1, 'tuple'); return new PyTuple(args.length === 0 ? [] : iterate(args[0], 'tuple')) } },
  list: { kind: 'class', create: args => { checkArity(args, 0, 1, 'list'); return args.length === 0 ? [] : iterate(args[0], 'list').slice() } },
  dict: { kind: 'class', create: (args, kwargs) => { checkArity(args, 0, 0, 'dict'); return new Map(kwargs ?? []) } },
  bytes: { kind: 'class', create: args => bytesFromArgs(args, 'bytes') },
  bytearray: { kind: 'class', create: args => new PyByteArray(bytesFromArgs(args, 'bytearray')) },
  complex: { kind: 'class', create: args => { checkArity(args, 0, 2, 'complex'); return new PyComplex(toNumber(args[0] ?? 0, 'complex'), toNumber(args[1] ?? 0, 'complex')) } },
  slice: { kind: 'class', create: args => { checkArity(args, 1, 3, 'slice'); return args.length === 1 ? new PySlice(null, args[0], null) : new PySlice(args[0], args[1], args[2] ?? null) } },
  object: VALUE,
  int: VALUE,
  float: VALUE,
  str: VALUE,
  bool: VALUE,
  type: VALUE
})

function newDType (args: readonly PyValue[]): DType {
  checkArity(args, 1, 3, 'numpy.dtype')
  const typestr = args[0]
  if (typeof typestr !== 'string') return fail('numpy.dtype takes a type string')
  return new DType(typestr)
}

/** `_reconstruct(subtype, shape, dtype_char)`: an empty array that BUILD fills. */
function reconstructArray (args: readonly PyValue[]): NdArray {
  checkArity(args, 3, 3, '_reconstruct')
  const subtype = args[0]
  if (!(subtype instanceof AllowedGlobal) || !isNdarrayType(subtype)) {
    fail(`_reconstruct of ${subtype instanceof PyGlobal ? subtype.qualifiedName : 'a non-class'}`)
  }
  readShape(args[1])
  return subtype.name === 'MaskedArray' ? new MaskedArray() : new NdArray()
}

function isNdarrayType (g: PyGlobal): boolean {
  return g.qualifiedName === 'numpy.ndarray' || g.name === 'MaskedArray' || g.name === 'memmap'
}

/** `numpy.ma.core._mareconstruct(subtype, baseclass, baseshape, basetype)`. */
function reconstructMasked (args: readonly PyValue[]): MaskedArray {
  checkArity(args, 4, 4, '_mareconstruct')
  readShape(args[2])
  return new MaskedArray()
}

/** `copyreg._reconstructor(cls, base, state)`: object.__new__(cls) for an allowed class. */
function reconstructor (args: readonly PyValue[]): PyValue {
  checkArity(args, 3, 3, '_reconstructor')
  const [cls, base, state] = args
  if (!(cls instanceof AllowedGlobal) || cls.spec.kind !== 'class') return fail('_reconstructor of a non-class')
  if (!(base instanceof PyGlobal) || base.qualifiedName !== 'builtins.object' || state !== null) {
    throw new ServiceError('ERR_PICKLE_UNSUPPORTED', `_reconstructor with base ${summarize(base)}`)
  }
  return cls.spec.create([])
}

/** `copyreg.__newobj__(cls, *args)`, which protocol 2 writes as NEWOBJ. */
function newobj (args: readonly PyValue[]): PyValue {
  const cls = arg(args, 0, '__newobj__')
  if (!(cls instanceof AllowedGlobal) || cls.spec.kind !== 'class') return fail('__newobj__ of a non-class')
  return cls.spec.create(args.slice(1))
}

const CYTHON_LOSS = /^Cy[A-Za-z]+Loss$/

const SCORE_FUNCTIONS: ReadonlySet<string> = new Set(['chi2', 'f_classif', 'f_oneway', 'f_regression', 'r_regression', 'mutual_info_classif', 'mutual_info_regression'])

/**
 * Cython's `__pyx_unpickle_<Class>(cls, checksum, state)`: an instance of an allowed class
 * of that family (`classes`) as a record holding its state tuple. Nothing is executed.
 */
function pyxUnpickle (args: readonly PyValue[], name: string, classes: RegExp): PyValue {
  checkArity(args, 3, 3, name)
  const [cls, checksum, state] = args
  if (!(cls instanceof AllowedGlobal) || cls.spec.kind !== 'class' || !classes.test(cls.name)) return fail(`${name} of a class it does not make`)
  if (typeof checksum !== 'number' && typeof checksum !== 'bigint') fail(`${name} checksum is not an integer`)
  const made = cls.spec.create([])
  if (made instanceof PyObject && state !== null) made.setState(new Map([['__pyx_state__', state]]))
  return made
}

function sparseSpec (format: SparseFormat, isArray: boolean): GlobalSpec {
  return { kind: 'class', create: () => new SparseMatrix(format, isArray) }
}

function lookup (module: string, name: string): GlobalSpec | undefined {
  if (module === 'builtins') return Object.hasOwn(BUILTINS, name) ? BUILTINS[name] : undefined
  if (module === 'copyreg') {
    if (name === '_reconstructor') return { kind: 'function', call: reconstructor }
    if (name === '__newobj__') return { kind: 'function', call: newobj }
    return undefined
  }
  if (module === 'collections') {
    if (name === 'OrderedDict') return { kind: 'class', create: args => { checkArity(args, 0, 0, 'OrderedDict'); return new Map() } }
    if (name === 'defaultdict') {
      return {
        kind: 'class',
        create: args => {
          checkArity(args, 0, 1, 'defaultdict')
          if (args.length === 1 && args[0] !== null && !(args[0] instanceof PyGlobal)) fail('defaultdict factory is not a class')
          return new Map()
        }
      }
    }
    return undefined
  }
  if (module === '_codecs' && name === 'encode') {
    return { kind: 'function', call: args => { checkArity(args, 1, 2, '_codecs.encode'); return encode(args[0], args[1], '_codecs.encode') } }
  }
  if (NUMPY_CORE.some(m => module === `${m}.multiarray`)) {
    if (name === '_reconstruct') return { kind: 'function', call: reconstructArray }
    if (name === 'scalar') return { kind: 'function', call: args => { checkArity(args, 1, 2, 'scalar'); return numpyScalar(args[0], args[1] ?? null) } }
    return undefined
  }
  if (NUMPY_CORE.some(m => module === `${m}.numeric`) && name === '_frombuffer') {
    return { kind: 'function', call: args => { checkArity(args, 4, 4, '_frombuffer'); return numpyFromBuffer(args[0], args[1], args[2], args[3]) } }
  }
  if (module === 'numpy') {
    if (name === 'dtype') return { kind: 'class', create: newDType }
    if (name === 'ndarray' || name === 'memmap' || NUMPY_SCALAR_TYPES.includes(name)) return VALUE
    return undefined
  }
  if (module === 'numpy.ma.core' || module === 'numpy.ma') {
    if (name === '_mareconstruct') return { kind: 'function', call: reconstructMasked }
    if (name === 'MaskedArray') return VALUE
    return undefined
  }
  if (module === 'numpy.core.memmap' || module === 'numpy._core.memmap') return name === 'memmap' ? VALUE : undefined
  if (module === 'numpy.random._pickle' || module === 'numpy.random') {
    if (/^__(randomstate|bit_generator|generator|RandomState)_ctor$/.test(name)) return record(module, name)
    return undefined
  }
  if (module === 'numpy.random.bit_generator') {
    // The SeedSequence a Generator or RandomState carries (numpy 2): kept as data, never used.
    if (name === 'SeedSequence') return record(module, name)
    if (name === '__pyx_unpickle_SeedSequence') return { kind: 'function', call: args => pyxUnpickle(args, name, /^SeedSequence$/) }
    return undefined
  }
  if (module === '_loss' || module === 'sklearn._loss._loss') {
    // scikit-learn's Cython loss objects (1.4+; 1.6 names the module '_loss'): data only.
    if (CYTHON_LOSS.test(name)) return record(module, name)
    if (name.startsWith('__pyx_unpickle_') && CYTHON_LOSS.test(name.slice('__pyx_unpickle_'.length))) {
      return { kind: 'function', call: args => pyxUnpickle(args, name, CYTHON_LOSS) }
    }
    return undefined
  }
  if (/^numpy\.random\.(_mt19937|_pcg64|_philox|_sfc64|mtrand|_generator)$/.test(module)) {
    return /^(MT19937|PCG64|PCG64DXSM|Philox|SFC64|RandomState|Generator)$/.test(name) ? record(module, name) : undefined
  }
  const sparse = /^scipy\.sparse(?:\._?(csr|csc|coo|dia|arrays|_arrays))?$/.exec(module)
  if (sparse !== null) {
    const kind = /^(csr|csc|coo|dia)_(matrix|array)$/.exec(name)
    return kind === null ? undefined : sparseSpec(kind[1] as SparseFormat, kind[2] === 'array')
  }
  if (/^(sklearn\.externals\.)?joblib\.numpy_pickle(_compat)?$/.test(module)) {
    if (name === 'NumpyArrayWrapper') return record('joblib.numpy_pickle', name)
    // joblib < 0.10's wrappers of arrays kept in files beside the pickle (old-joblib.ts reads them).
    if (OLD_JOBLIB.has(name)) return record('joblib.numpy_pickle', name)
    return undefined
  }
  // The score functions a fitted univariate selector names as a parameter: referred to, never called.
  if (/^sklearn\.feature_selection\.(_univariate_selection|_mutual_info)$/.test(module) && SCORE_FUNCTIONS.has(name)) return VALUE
  // imbalanced-learn's classes (its Pipeline, the samplers prediction skips), never its functions.
  if (module.startsWith('imblearn.') && /^_?[A-Z][A-Za-z0-9_]*$/.test(name)) return record(module, name)
  // scikit-learn classes (estimators, Cython helpers such as Tree or Hinge), never its functions.
  if ((module === 'sklearn' || module.startsWith('sklearn.')) && /^_?[A-Z][A-Za-z0-9_]*$/.test(name)) return record(module, name)
  // xgboost's classifier and its Booster (whose state holds the model as UBJSON bytes): records only.
  if ((module === 'xgboost.sklearn' && name === 'XGBClassifier') || (module === 'xgboost.core' && name === 'Booster')) return record(module, name)
  // LightGBM's classifier and its Booster (whose state holds the model as its text): records only.
  if ((module === 'lightgbm.sklearn' && name === 'LGBMClassifier') || (module === 'lightgbm.basic' && name === 'Booster')) return record(module, name)
  // NLTK's stemmers and lemmatizer, which an app's Pipeline step class may hold: records only,
  // handed to its port as the built-in stemmer their state describes (sklearn/text/nltk-state.ts).
  if (NLTK_STEMMERS.test(`${module}.${name}`)) return record(module, name)
  return undefined
}

const NLTK_STEMMERS = /^nltk\.stem\.(porter\.PorterStemmer|lancaster\.LancasterStemmer|wordnet\.WordNetLemmatizer|snowball\.[A-Z][a-z]*Stemmer)$/

/** Modules whose globals are libraries' own: anything else a model names is the app's code. */
const LIBRARY_MODULES = /^(sklearn|numpy|scipy|joblib|builtins|copyreg|collections|_codecs|__builtin__|copy_reg|_loss|os|posix|nt|subprocess|sys|io|pickle|importlib|functools|operator|types|codecs|xgboost|lightgbm|catboost|imblearn|nltk|pandas|torch|tensorflow|keras|dill|cloudpickle)(\.|$)/

/** Whether a module is the app's own code (`__main__`, `utils`, ...) rather than a library's. */
export function isAppModule (module: string): boolean {
  return !LIBRARY_MODULES.test(PY2_MODULES.get(module) ?? module)
}

/**
 * Resolves a GLOBAL / STACK_GLOBAL name against the allow-list, and `userGlobals`: the
 * app's own functions and classes that the settings' functions module ports, which become
 * records (a class) or references (a function) and are never called here.
 * @throws ServiceError ERR_PICKLE_GLOBAL_NOT_ALLOWED naming the global when it is not allowed.
 */
export function resolveGlobal (module: string, name: string, userGlobals?: ReadonlySet<string>): AllowedGlobal {
  const mod = PY2_MODULES.get(module) ?? module
  const spec = lookup(mod, name) ?? (userGlobals?.has(`${mod}.${name}`) === true ? record(mod, name) : undefined)
  if (spec === undefined) {
    const hint = /^catboost(\.|$)/.test(mod)
      ? ' (CatBoost models are not served: CatBoost cannot be run here to check answers against, so none could be promised exact; to serve the app here, fit a served classifier on the same features instead (a scikit-learn one, XGBClassifier or LGBMClassifier) and save that; CatBoost exports (save_model as json, onnx or cpp) are not read either)'
      : !isAppModule(mod) ? '' : ' (the app\'s own code: port it to JavaScript in a functions module named in model-settings.json)'
    throw new ServiceError('ERR_PICKLE_GLOBAL_NOT_ALLOWED', `unsupported object '${module}.${name}'${hint}`)
  }
  return new AllowedGlobal(mod, name, spec)
}
