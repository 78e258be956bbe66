/**
 * A strict pickle machine for protocols 0-5: the stack/memo/dispatch loop of CPython's
 * `pickle._Unpickler`, with every length checked before use, every global resolved
 * through the allow-list, and the total work bounded, so a hostile file fails in
 * bounded time and memory with a ServiceError carrying the opcode's byte offset.
 */
import { ServiceError } from '../errors.js'
import { ByteReader, latin1 } from './byte-reader.js'
import { AllowedGlobal, resolveGlobal } from './globals.js'
import { NdArray } from './numpy.js'
import { HIGHEST_PROTOCOL, OP, hexByte } from './opcodes.js'
import { SparseMatrix } from './scipy-sparse.js'
import { RefusedGlobal, Unresolved } from './unresolved.js'
import { decodeUtf8SurrogatePass } from './utf8.js'
import { memoReads } from './memo-reads.js'
import { PyByteArray, PyFrozenSet, PyGlobal, PyObject, PyTuple, type Buildable, type PyValue } from './values.js'

export interface UnpicklerLimits {
  /** Most memo entries. Defaults to 2^26. */
  readonly maxMemo: number
  /** Most values on the stack, and most open MARKs. Defaults to 2^22. */
  readonly maxStack: number
  /**
   * Budget of work units: one per opcode plus one per element a call or BUILD is given
   * or makes. Defaults to 4 per input byte plus 2^20: the real-world files the tests read
   * need at most 1.5 per byte, and re-using one big memoized value over and over runs
   * out quickly.
   */
  readonly maxWork: number
  /** Most bytes of one integer (LONG, LONG4): no model needs more. Defaults to 65536. */
  readonly maxIntBytes: number
  /** Most nested pickles (joblib object arrays hold a pickle in the pickle). Defaults to 16. */
  readonly maxNesting: number
}

/**
 * The raw bytes after the current opcode, for data a container writes outside the
 * pickle opcodes (joblib's array bytes). Reading is refused in the middle of a FRAME,
 * since Python would read past the frame there.
 */
export interface RawStream {
  readU8: () => number
  readView: (n: number, what: string) => Uint8Array
  /** A whole pickle that starts here (joblib's object arrays). */
  loadNested: () => PyValue
  /**
   * Adds `units` to the work budget, for a hook that brings in data from outside the pickle
   * (joblib < 0.10's array files): building what it read is then charged as usual.
   */
  grant: (units: number) => void
}

/**
 * Called after every BUILD with the built object; what it returns replaces the object
 * on the stack (joblib reads its array data from the stream here).
 */
export type BuildHook = (built: PyValue, stream: RawStream) => PyValue

export interface UnpicklerOptions extends Partial<UnpicklerLimits> {
  readonly afterBuild?: BuildHook
  /** The app's own globals (qualified names) the file may name: see globals.ts resolveGlobal. */
  readonly userGlobals?: ReadonlySet<string>
  /**
   * Defers refusals: when given, a global the allow-list refuses is reported here and becomes
   * an inert `Unresolved` placeholder (unresolved.ts), and so does every value made from it,
   * instead of failing the load; the caller must then refuse the file if it uses one. A load
   * that fails anyway after such a global fails with that global's error, as the strict
   * reader would have. Defaults to none: the first refused global fails the load.
   */
  readonly onRefusedGlobal?: (global: RefusedGlobal) => void
  /**
   * When given, the only globals (qualified names, as the file spells them) the file may name,
   * on top of the allow-list's own checks: a data file of a known shape (NLTK's Punkt pickles)
   * is read with exactly the classes that shape needs and nothing else.
   */
  readonly onlyGlobals?: ReadonlySet<string>
}

export function defaultLimits (inputLength: number): UnpicklerLimits {
  return {
    maxMemo: 2 ** 26,
    maxStack: 2 ** 22,
    maxWork: 4 * inputLength + 2 ** 20,
    maxIntBytes: 65536,
    maxNesting: 16
  }
}

/** Memo indices below this live in an array (grown as they come; larger ones in a Map). */
const MEMO_ARRAY_LIMIT = 1 << 24

/** Python's sys.int_info.default_max_str_digits: a longer decimal is refused, as Python does. */
const MAX_INT_DIGITS = 4300

interface Work {
  used: number
  /** Budget added to maxWork by hooks that read data from outside the pickle. */
  granted: number
}

/**
 * Reads one pickle from `bytes` (from its start to STOP).
 * @throws ServiceError (ERR_PICKLE_*) with the offset of the failing opcode.
 */
export function unpickle (bytes: Uint8Array, options: UnpicklerOptions = {}): PyValue {
  // Keeping only the memo entries read back is exact when the walk saw every opcode: a file
  // with raw data (joblib's arrays, which name their wrapper) is run keeping them all, and so
  // is any file that reads back an entry the walk missed.
  const reads = mayHoldRawData(bytes) ? null : memoReads(bytes, 0)
  if (reads === null) return run(bytes, options, null)
  // Refused globals are reported once, from the run whose value is returned.
  const report = options.onRefusedGlobal
  const refused: RefusedGlobal[] = []
  let value: PyValue
  try {
    value = run(bytes, report === undefined ? options : { ...options, onRefusedGlobal: global => { refused.push(global) } }, reads)
  } catch (err) {
    if (err instanceof UnkeptMemoRead) return run(bytes, options, null)
    for (const global of refused) report!(global)
    throw err
  }
  for (const global of refused) report!(global)
  return value
}

/** Whether the file may hold data outside its opcodes: joblib's array wrappers name themselves. */
function mayHoldRawData (bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf('ArrayWrapper', 0, 'latin1') >= 0
}

/** One run of the pickle machine, keeping the memo entries `reads` marks (all when null). */
function run (bytes: Uint8Array, options: UnpicklerOptions, reads: Uint8Array | null): PyValue {
  const reader = new ByteReader(bytes)
  const limits = { ...defaultLimits(bytes.length), ...stripUndefined(options) }
  const report = options.onRefusedGlobal
  let first: RefusedGlobal | undefined
  const onRefused = report === undefined ? undefined : (global: RefusedGlobal): void => { first ??= global; report(global) }
  try {
    return new Unpickler(reader, limits, options.afterBuild, { used: 0, granted: 0 }, 0, options.userGlobals, onRefused, reads, options.onlyGlobals).load()
  } catch (err) {
    if (err instanceof UnkeptMemoRead) throw err
    // The strict reader would have stopped at the first refused global, before this error.
    if (first !== undefined) throw first.toError()
    throw err
  }
}

/** Thrown when a memo entry the walk said is never read is read: the pickle runs again keeping all. */
class UnkeptMemoRead extends Error {}

/** Stands in the memo for a value not kept (unpickled values are never this object). */
const UNKEPT = Object.freeze(new PyTuple([]))

function stripUndefined (options: UnpicklerOptions): Partial<UnpicklerLimits> {
  const out: Record<string, number> = {}
  for (const [k, v] of Object.entries(options)) if (typeof v === 'number') out[k] = v
  return out
}

class Unpickler {
  readonly #reader: ByteReader
  readonly #limits: UnpicklerLimits
  readonly #afterBuild: BuildHook | undefined
  readonly #work: Work
  readonly #depth: number
  #stack: PyValue[] = []
  readonly #marks: PyValue[][] = []
  // The memo: an array for the small dense indices pickles use (800,000 MEMOIZEs for a
  // 200,000-term vocabulary: a Map of that size costs more than the rest of the decode),
  // a Map for others. Unpickled values are never undefined, so undefined means unset.
  readonly #memo: PyValue[] = []
  readonly #memoFar = new Map<number, PyValue>()
  #memoCount = 0
  #frameEnd = -1
  readonly #userGlobals: ReadonlySet<string> | undefined
  readonly #onRefused: ((global: RefusedGlobal) => void) | undefined
  /** Where the opcode being run starts (a deferred refusal keeps it). */
  #opStart = 0
  /** The memo entries worth keeping (memo-reads.ts), or null: keep all. */
  readonly #reads: Uint8Array | null
  readonly #onlyGlobals: ReadonlySet<string> | undefined

  constructor (reader: ByteReader, limits: UnpicklerLimits, afterBuild: BuildHook | undefined, work: Work, depth: number, userGlobals?: ReadonlySet<string>, onRefused?: (global: RefusedGlobal) => void, reads: Uint8Array | null = null, onlyGlobals?: ReadonlySet<string>) {
    if (depth > limits.maxNesting) throw new ServiceError('ERR_PICKLE_LIMIT', `pickles nested more than ${limits.maxNesting} deep`, { offset: reader.pos })
    this.#reader = reader
    this.#limits = limits
    this.#afterBuild = afterBuild
    this.#work = work
    this.#depth = depth
    this.#userGlobals = userGlobals
    this.#onRefused = onRefused
    this.#reads = reads
    this.#onlyGlobals = onlyGlobals
  }

  load (): PyValue {
    const r = this.#reader
    for (;;) {
      const start = r.pos
      this.#opStart = start
      try {
        if (++this.#work.used > this.#limits.maxWork + this.#work.granted) {
          throw new ServiceError('ERR_PICKLE_LIMIT', `pickle needs more than ${this.#limits.maxWork + this.#work.granted} steps`)
        }
        const op = r.readU8()
        if (op === OP.STOP) return this.#pop()
        this.#dispatch(op)
        if (this.#stack.length > this.#limits.maxStack) {
          throw new ServiceError('ERR_PICKLE_LIMIT', `pickle stack holds more than ${this.#limits.maxStack} values`)
        }
      } catch (err) {
        if (err instanceof ServiceError && err.offset === undefined) {
          throw new ServiceError(err.code, err.detail, { offset: start, cause: err.cause })
        }
        throw err
      }
    }
  }

  #push (value: PyValue): void {
    this.#stack.push(value)
  }

  #pop (): PyValue {
    if (this.#stack.length === 0) throw new ServiceError('ERR_PICKLE_INVALID', 'unpickling stack underflow')
    return this.#stack.pop()
  }

  #top (): PyValue {
    if (this.#stack.length === 0) throw new ServiceError('ERR_PICKLE_INVALID', 'unpickling stack underflow')
    return this.#stack[this.#stack.length - 1]
  }

  #mark (): void {
    if (this.#marks.length >= this.#limits.maxStack) throw new ServiceError('ERR_PICKLE_LIMIT', `more than ${this.#limits.maxStack} open marks`)
    this.#marks.push(this.#stack)
    this.#stack = []
  }

  /** The values pushed since the last MARK, which is closed. */
  #popMark (): PyValue[] {
    const items = this.#stack
    const previous = this.#marks.pop()
    if (previous === undefined) throw new ServiceError('ERR_PICKLE_INVALID', 'could not find MARK')
    this.#stack = previous
    return items
  }

  #charge (units: number): void {
    this.#work.used += units
    if (this.#work.used > this.#limits.maxWork + this.#work.granted) throw new ServiceError('ERR_PICKLE_LIMIT', `pickle needs more than ${this.#limits.maxWork + this.#work.granted} steps`)
  }

  #memoPut (index: number, value: PyValue): void {
    const near = index < MEMO_ARRAY_LIMIT
    const isNew = near ? this.#memo[index] === undefined : !this.#memoFar.has(index)
    if (isNew) {
      if (this.#memoCount >= this.#limits.maxMemo) throw new ServiceError('ERR_PICKLE_LIMIT', `pickle memo holds more than ${this.#limits.maxMemo} values`)
      this.#memoCount++
    }
    if (near) this.#memo[index] = this.#reads === null || this.#reads[index] === 1 ? value : UNKEPT
    else this.#memoFar.set(index, value)
  }

  #memoGet (index: number): PyValue {
    const value = index < MEMO_ARRAY_LIMIT ? this.#memo[index] : this.#memoFar.get(index)
    if (value === undefined) throw new ServiceError('ERR_PICKLE_INVALID', `memo key ${index} is not defined`)
    if (value === UNKEPT) throw new UnkeptMemoRead()
    return value
  }

  #dispatch (op: number): void {
    const r = this.#reader
    switch (op) {
      case OP.PROTO: {
        const proto = r.readU8()
        if (proto > HIGHEST_PROTOCOL) throw new ServiceError('ERR_PICKLE_UNSUPPORTED', `unsupported pickle protocol ${proto}`)
        return
      }
      case OP.FRAME: {
        const length = r.readU64()
        r.need(length, 'FRAME')
        this.#frameEnd = r.pos + length
        return
      }
      case OP.MARK: return this.#mark()
      case OP.POP:
        if (this.#stack.length > 0) this.#stack.pop()
        else this.#popMark()
        return
      case OP.POP_MARK: this.#popMark(); return
      case OP.DUP: return this.#push(this.#top())
      case OP.NONE: return this.#push(null)
      case OP.NEWTRUE: return this.#push(true)
      case OP.NEWFALSE: return this.#push(false)
      case OP.INT: return this.#push(this.#readTextInt())
      case OP.LONG: return this.#push(parseDecimal(stripSuffix(r.readLine('LONG'), 'L')))
      case OP.BININT: return this.#push(r.readI32())
      case OP.BININT1: return this.#push(r.readU8())
      case OP.BININT2: return this.#push(r.readU16())
      case OP.LONG1: return this.#push(decodeLong(r.readView(r.readU8(), 'LONG1')))
      case OP.LONG4: {
        const n = r.readI32()
        if (n < 0) throw new ServiceError('ERR_PICKLE_INVALID', 'LONG pickle has negative byte count')
        if (n > this.#limits.maxIntBytes) throw new ServiceError('ERR_PICKLE_LIMIT', `integer of ${n} bytes is over the ${this.#limits.maxIntBytes}-byte limit`)
        return this.#push(decodeLong(r.readView(n, 'LONG4')))
      }
      case OP.FLOAT: return this.#push(parsePythonFloat(r.readLine('FLOAT')))
      case OP.BINFLOAT: return this.#push(r.readF64BE())
      case OP.STRING: return this.#push(decodeEscapedString(r.readLine('STRING')))
      case OP.BINSTRING: {
        const n = r.readI32()
        if (n < 0) throw new ServiceError('ERR_PICKLE_INVALID', 'BINSTRING pickle has negative byte count')
        return this.#push(latin1(r.readView(n, 'BINSTRING')))
      }
      case OP.SHORT_BINSTRING: return this.#push(latin1(r.readView(r.readU8(), 'SHORT_BINSTRING')))
      case OP.UNICODE: return this.#push(decodeRawUnicodeEscape(r.readLine('UNICODE')))
      case OP.BINUNICODE: return this.#push(this.#readUnicode(r.readU32()))
      case OP.SHORT_BINUNICODE: return this.#push(this.#readUnicode(r.readU8()))
      case OP.BINUNICODE8: return this.#push(this.#readUnicode(r.readU64()))
      case OP.BINBYTES: return this.#push(r.readCopy(r.readU32(), 'BINBYTES'))
      case OP.SHORT_BINBYTES: return this.#push(r.readCopy(r.readU8(), 'SHORT_BINBYTES'))
      case OP.BINBYTES8: return this.#push(r.readCopy(r.readU64(), 'BINBYTES8'))
      case OP.BYTEARRAY8: return this.#push(new PyByteArray(r.readCopy(r.readU64(), 'BYTEARRAY8')))
      case OP.NEXT_BUFFER: throw new ServiceError('ERR_PICKLE_UNSUPPORTED', 'out-of-band buffers (protocol 5 NEXT_BUFFER) are not supported')
      case OP.READONLY_BUFFER: this.#top(); return
      case OP.EMPTY_TUPLE: return this.#push(new PyTuple([]))
      case OP.TUPLE: return this.#push(new PyTuple(this.#popMark()))
      case OP.TUPLE1: return this.#push(new PyTuple([this.#pop()]))
      case OP.TUPLE2: { const b = this.#pop(); const a = this.#pop(); return this.#push(new PyTuple([a, b])) }
      case OP.TUPLE3: { const c = this.#pop(); const b = this.#pop(); const a = this.#pop(); return this.#push(new PyTuple([a, b, c])) }
      case OP.EMPTY_LIST: return this.#push([])
      case OP.LIST: return this.#push(this.#popMark())
      case OP.EMPTY_DICT: return this.#push(new Map())
      case OP.DICT: return this.#push(this.#setItems(new Map(), this.#popMark()))
      case OP.EMPTY_SET: return this.#push(new Set())
      case OP.FROZENSET: return this.#push(new PyFrozenSet(this.#popMark()))
      case OP.APPEND: { const value = this.#pop(); return this.#appendTo(this.#top(), [value]) }
      case OP.APPENDS: { const items = this.#popMark(); return this.#appendTo(this.#top(), items) }
      case OP.SETITEM: { const value = this.#pop(); const key = this.#pop(); this.#setItems(this.#top(), [key, value]); return }
      case OP.SETITEMS: { const items = this.#popMark(); this.#setItems(this.#top(), items); return }
      case OP.ADDITEMS: {
        const items = this.#popMark()
        const target = this.#top()
        if (!(target instanceof Set) || target instanceof PyFrozenSet) throw new ServiceError('ERR_PICKLE_INVALID', 'ADDITEMS on a non-set')
        for (const item of items) target.add(item)
        return
      }
      case OP.GET: return this.#push(this.#memoGet(parseIndex(r.readLine('GET'))))
      case OP.BINGET: return this.#push(this.#memoGet(r.readU8()))
      case OP.LONG_BINGET: return this.#push(this.#memoGet(r.readU32()))
      case OP.PUT: return this.#memoPut(parseIndex(r.readLine('PUT')), this.#top())
      case OP.BINPUT: return this.#memoPut(r.readU8(), this.#top())
      case OP.LONG_BINPUT: return this.#memoPut(r.readU32(), this.#top())
      case OP.MEMOIZE: return this.#memoPut(this.#memoCount, this.#top())
      case OP.GLOBAL: {
        const module = r.readLine('GLOBAL module')
        const name = r.readLine('GLOBAL name')
        return this.#push(this.#resolve(module, name))
      }
      case OP.STACK_GLOBAL: {
        const name = this.#pop()
        const module = this.#pop()
        if (typeof module !== 'string' || typeof name !== 'string') throw new ServiceError('ERR_PICKLE_INVALID', 'STACK_GLOBAL requires str')
        return this.#push(this.#resolve(module, name))
      }
      case OP.REDUCE: {
        const args = this.#pop()
        const callable = this.#pop()
        if (!(args instanceof PyTuple)) throw new ServiceError('ERR_PICKLE_INVALID', 'REDUCE arguments are not a tuple')
        return this.#push(this.#call(callable, args.items, undefined, 'REDUCE'))
      }
      case OP.NEWOBJ: {
        const args = this.#pop()
        const cls = this.#pop()
        if (!(args instanceof PyTuple)) throw new ServiceError('ERR_PICKLE_INVALID', 'NEWOBJ arguments are not a tuple')
        return this.#push(this.#instantiate(cls, args.items, undefined))
      }
      case OP.NEWOBJ_EX: {
        const kwargs = this.#pop()
        const args = this.#pop()
        const cls = this.#pop()
        if (!(args instanceof PyTuple) || !(kwargs instanceof Map)) throw new ServiceError('ERR_PICKLE_INVALID', 'NEWOBJ_EX arguments are not a tuple and a dict')
        return this.#push(this.#instantiate(cls, args.items, kwargs))
      }
      case OP.INST: {
        const cls = this.#resolve(r.readLine('INST module'), r.readLine('INST name'))
        return this.#push(this.#instantiate(cls, this.#popMark(), undefined))
      }
      case OP.OBJ: {
        const [cls, ...args] = this.#popMark()
        return this.#push(this.#instantiate(cls, args, undefined))
      }
      case OP.BUILD: return this.#build()
      case OP.PERSID: case OP.BINPERSID:
        throw new ServiceError('ERR_PICKLE_UNSUPPORTED', 'persistent IDs are not supported')
      case OP.EXT1: case OP.EXT2: case OP.EXT4:
        throw new ServiceError('ERR_PICKLE_UNSUPPORTED', 'the copyreg extension registry is not supported')
      default:
        throw new ServiceError('ERR_PICKLE_UNKNOWN_OPCODE', `unknown pickle opcode ${hexByte(op)}`)
    }
  }

  /** An allowed global, or (when refusals are deferred) a placeholder for a refused one. */
  #resolve (module: string, name: string): AllowedGlobal | Unresolved {
    try {
      if (this.#onlyGlobals !== undefined && !this.#onlyGlobals.has(`${module}.${name}`)) {
        throw new ServiceError('ERR_PICKLE_GLOBAL_NOT_ALLOWED', `unsupported object '${module}.${name}' (this file may name only ${[...this.#onlyGlobals].join(', ')})`)
      }
      return resolveGlobal(module, name, this.#userGlobals)
    } catch (err) {
      if (this.#onRefused === undefined || !(err instanceof ServiceError) || err.code !== 'ERR_PICKLE_GLOBAL_NOT_ALLOWED') throw err
      const global = new RefusedGlobal(module, name, err.detail, this.#opStart)
      this.#onRefused(global)
      return new Unresolved(global)
    }
  }

  #readTextInt (): PyValue {
    const line = this.#reader.readLine('INT')
    if (line === '00') return false
    if (line === '01') return true
    return parseDecimal(line)
  }

  #readUnicode (length: number): string {
    const start = this.#reader.pos
    const view = this.#reader.readView(length, 'unicode string')
    const text = decodeUtf8SurrogatePass(view)
    if (text === undefined) throw new ServiceError('ERR_PICKLE_INVALID', 'string is not valid UTF-8', { offset: start })
    return text
  }

  #appendTo (target: PyValue, items: PyValue[]): void {
    if (Array.isArray(target)) {
      for (const item of items) target.push(item)
    } else if (target instanceof Unresolved) {
      for (const item of items) target.parts.push(item)
    } else if (target instanceof PyObject) {
      target.listItems ??= []
      for (const item of items) target.listItems.push(item)
    } else {
      throw new ServiceError('ERR_PICKLE_INVALID', 'APPEND to a non-list')
    }
  }

  #setItems (target: PyValue, items: PyValue[]): Map<PyValue, PyValue> {
    if (items.length % 2 !== 0) throw new ServiceError('ERR_PICKLE_INVALID', 'odd number of items for a dict')
    let map: Map<PyValue, PyValue>
    if (target instanceof Unresolved) {
      for (const item of items) target.parts.push(item)
      return new Map()
    }
    if (target instanceof Map) map = target
    else if (target instanceof PyObject) map = target.dictItems ??= new Map()
    else throw new ServiceError('ERR_PICKLE_INVALID', 'SETITEM on a non-dict')
    for (let i = 0; i < items.length; i += 2) map.set(items[i], items[i + 1])
    return map
  }

  #call (callable: PyValue, args: readonly PyValue[], kwargs: Map<PyValue, PyValue> | undefined, how: string): PyValue {
    // A call of a placeholder, or a call given one (copyreg._reconstructor(cls, ...) of a
    // refused class), is not made: its result is a placeholder of that global.
    const unresolved = callable instanceof Unresolved ? callable : firstUnresolved(args, kwargs)
    if (unresolved !== undefined) {
      this.#charge(costOf(args))
      return new Unresolved(unresolved.global, kwargs === undefined ? [callable, ...args] : [callable, ...args, kwargs])
    }
    if (!(callable instanceof AllowedGlobal) || callable.spec.kind === 'value') {
      const name = callable instanceof PyGlobal ? `'${callable.qualifiedName}'` : 'a value that is not a class'
      throw new ServiceError('ERR_PICKLE_INVALID', `${how} calls ${name}, which cannot be called`)
    }
    // Charged before the call, whose cost grows with what it is given (list(big_bytes)).
    this.#charge(costOf(args))
    const result = callable.spec.kind === 'class' ? callable.spec.create(args, kwargs) : callable.spec.call(args)
    this.#charge(sizeOf(result))
    return result
  }

  #instantiate (cls: PyValue, args: readonly PyValue[], kwargs: Map<PyValue, PyValue> | undefined): PyValue {
    if (cls instanceof Unresolved) return this.#call(cls, args, kwargs, 'NEWOBJ')
    if (!(cls instanceof AllowedGlobal) || cls.spec.kind !== 'class') {
      const name = cls instanceof PyGlobal ? `'${cls.qualifiedName}'` : 'a value'
      throw new ServiceError('ERR_PICKLE_INVALID', `cannot instantiate ${name}: it is not a class`)
    }
    return this.#call(cls, args, kwargs, 'NEWOBJ')
  }

  #build (): void {
    const state = this.#pop()
    const target = this.#top() as Partial<Buildable>
    if (typeof target !== 'object' || target === null || typeof target.setState !== 'function') {
      throw new ServiceError('ERR_PICKLE_INVALID', 'BUILD on a value that takes no state')
    }
    this.#charge(costOf([state]))
    target.setState(state)
    this.#charge(sizeOf(target))
    if (this.#afterBuild !== undefined) {
      const replaced = this.#afterBuild(target, this.#rawStream())
      this.#stack[this.#stack.length - 1] = replaced
      this.#charge(sizeOf(replaced))
    }
  }

  #rawStream (): RawStream {
    const reader = this.#reader
    const outsideFrame = (): void => {
      if (this.#frameEnd > reader.pos) throw new ServiceError('ERR_PICKLE_INVALID', 'raw data inside a pickle frame')
    }
    return {
      readU8: () => { outsideFrame(); return reader.readU8() },
      readView: (n, what) => { outsideFrame(); return reader.readView(n, what) },
      loadNested: () => {
        outsideFrame()
        return new Unpickler(reader, this.#limits, this.#afterBuild, this.#work, this.#depth + 1, this.#userGlobals, this.#onRefused, null, this.#onlyGlobals).load()
      },
      grant: units => { this.#work.granted += units }
    }
  }
}

/** The first placeholder among a call's arguments (keyword values included), if any. */
function firstUnresolved (args: readonly PyValue[], kwargs: Map<PyValue, PyValue> | undefined): Unresolved | undefined {
  for (const a of args) if (a instanceof Unresolved) return a
  if (kwargs !== undefined) for (const v of kwargs.values()) if (v instanceof Unresolved) return v
  return undefined
}

/** Work units for handing `values` to a call: their sizes and their items' sizes, one level down. */
function costOf (values: readonly PyValue[]): number {
  let cost = 0
  for (const v of values) {
    cost += sizeOf(v)
    if (v instanceof PyTuple) for (const item of v.items) cost += sizeOf(item)
  }
  return cost
}

/** Work units for building `value`: its element count. */
function sizeOf (value: PyValue): number {
  if (value instanceof NdArray) return value.size
  if (value instanceof SparseMatrix) return value.data.size
  if (Array.isArray(value)) return value.length
  if (value instanceof PyTuple) return value.length
  if (value instanceof Set || value instanceof Map) return value.size
  if (value instanceof Uint8Array) return value.length
  if (value instanceof PyByteArray) return value.bytes.length
  return 1
}

/** Two's-complement little-endian bytes (LONG1, LONG4) as a number, or a bigint past 2^53. */
export function decodeLong (bytes: Uint8Array): number | bigint {
  const n = bytes.length
  if (n === 0) return 0
  if (n <= 6) {
    let v = 0
    for (let i = n - 1; i >= 0; i--) v = v * 256 + bytes[i]!
    return (bytes[n - 1]! & 0x80) !== 0 ? v - 2 ** (8 * n) : v
  }
  let hex = ''
  for (let i = n - 1; i >= 0; i--) hex += bytes[i]!.toString(16).padStart(2, '0')
  let v = BigInt('0x' + hex)
  if ((bytes[n - 1]! & 0x80) !== 0) v -= 1n << BigInt(8 * n)
  return normaliseInt(v)
}

function normaliseInt (v: bigint): number | bigint {
  return v >= -BigInt(Number.MAX_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v
}

/** Python's int() of a protocol-0 INT/LONG argument. */
function parseDecimal (text: string): number | bigint {
  const t = text.trim().replace(/_/g, '')
  if (!/^[+-]?\d+$/.test(t)) throw new ServiceError('ERR_PICKLE_INVALID', `invalid integer literal '${text.slice(0, 40)}'`)
  if (t.replace(/^[+-]/, '').length > MAX_INT_DIGITS) {
    throw new ServiceError('ERR_PICKLE_LIMIT', `integer literal of more than ${MAX_INT_DIGITS} digits`)
  }
  return normaliseInt(BigInt(t))
}

function stripSuffix (text: string, suffix: string): string {
  return text.endsWith(suffix) ? text.slice(0, -suffix.length) : text
}

function parseIndex (text: string): number {
  const v = parseDecimal(text)
  if (typeof v !== 'number' || v < 0) throw new ServiceError('ERR_PICKLE_INVALID', `invalid memo index '${text.slice(0, 40)}'`)
  return v
}

/** Python's float() of a protocol-0 FLOAT argument ('1.5', 'inf', '-nan', '1e300'). */
function parsePythonFloat (text: string): number {
  const t = text.trim().toLowerCase()
  if (/^[+-]?(inf|infinity)$/.test(t)) return t.startsWith('-') ? -Infinity : Infinity
  if (/^[+-]?nan$/.test(t)) return NaN
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(t)) throw new ServiceError('ERR_PICKLE_INVALID', `invalid float literal '${text.slice(0, 40)}'`)
  return Number(t)
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = Object.freeze({
  '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\n': ''
})

/** A protocol-0 STRING argument: a quoted Python 2 str repr with backslash escapes, as latin-1 text. */
function decodeEscapedString (line: string): string {
  const quote = line[0]
  if (line.length < 2 || (quote !== "'" && quote !== '"') || line[line.length - 1] !== quote) {
    throw new ServiceError('ERR_PICKLE_INVALID', 'the STRING opcode argument must be quoted')
  }
  const body = line.slice(1, -1)
  let out = ''
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!
    if (c !== '\\') { out += c; continue }
    const next = body[++i]
    if (next === undefined) throw new ServiceError('ERR_PICKLE_INVALID', 'STRING ends with a backslash')
    if (Object.hasOwn(SIMPLE_ESCAPES, next)) { out += SIMPLE_ESCAPES[next]; continue }
    if (next === 'x') {
      const hex = body.slice(i + 1, i + 3)
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw new ServiceError('ERR_PICKLE_INVALID', 'invalid \\x escape in STRING')
      out += String.fromCharCode(parseInt(hex, 16))
      i += 2
      continue
    }
    if (next >= '0' && next <= '7') {
      let oct = next
      while (oct.length < 3 && body[i + 1] !== undefined && body[i + 1]! >= '0' && body[i + 1]! <= '7') oct += body[++i]
      out += String.fromCharCode(parseInt(oct, 8) & 0xff)
      continue
    }
    out += '\\' + next
  }
  return out
}

/** A protocol-0 UNICODE argument: 'raw-unicode-escape', only \uXXXX and \UXXXXXXXX are escapes. */
function decodeRawUnicodeEscape (line: string): string {
  return line.replace(/\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})/g, (_, hex: string) => {
    const cp = parseInt(hex.slice(1), 16)
    if (cp > 0x10ffff) throw new ServiceError('ERR_PICKLE_INVALID', `\\U escape of code point ${cp}`)
    return String.fromCodePoint(cp)
  })
}
