/**
 * The JavaScript shapes of unpickled Python values.
 *
 * | Python                 | here                                   |
 * |------------------------|----------------------------------------|
 * | None, bool, str, float | null, boolean, string, number          |
 * | int                    | number when a safe integer, else bigint |
 * | bytes                  | Uint8Array (always a copy)             |
 * | bytearray              | PyByteArray                            |
 * | list                   | Array                                  |
 * | tuple                  | PyTuple                                |
 * | dict, OrderedDict, ... | Map (keys of any kind, never an object) |
 * | set / frozenset        | Set / PyFrozenSet                      |
 * | complex, slice         | PyComplex, PySlice                     |
 * | a class or function    | PyGlobal (a reference, never called)   |
 * | any other object       | PyObject (module, name, args, state)   |
 *
 * numpy and scipy values have their own classes (numpy.ts, scipy-sparse.ts).
 */

export type PyValue = unknown

export class PyTuple {
  readonly items: readonly PyValue[]
  constructor (items: readonly PyValue[]) {
    this.items = items
  }

  get length (): number {
    return this.items.length
  }
}

export class PyFrozenSet extends Set<PyValue> {}

export class PyByteArray {
  bytes: Uint8Array
  constructor (bytes: Uint8Array) {
    this.bytes = bytes
  }
}

export class PyComplex {
  constructor (readonly real: number, readonly imag: number) {}
}

export class PySlice {
  constructor (readonly start: PyValue, readonly stop: PyValue, readonly step: PyValue) {}
}

/** A class or function named by GLOBAL / STACK_GLOBAL, as a value. */
export class PyGlobal {
  constructor (readonly module: string, readonly name: string) {}

  get qualifiedName (): string {
    return `${this.module}.${this.name}`
  }
}

/** Something BUILD can set state on. */
export interface Buildable {
  setState (state: PyValue): void
}

/**
 * A Python object of an allowed class, kept as a plain record: the class, the
 * arguments it was made with and the state BUILD gave it (for scikit-learn
 * estimators, the instance `__dict__` as a Map, `_sklearn_version` included).
 */
export class PyObject implements Buildable {
  readonly module: string
  readonly name: string
  readonly args: readonly PyValue[]
  readonly kwargs: Map<PyValue, PyValue> | undefined
  state: PyValue = undefined
  /** Items added by APPEND(S) / SETITEM(S) to a list or dict subclass. */
  listItems: PyValue[] | undefined
  dictItems: Map<PyValue, PyValue> | undefined

  constructor (module: string, name: string, args: readonly PyValue[] = [], kwargs?: Map<PyValue, PyValue>) {
    this.module = module
    this.name = name
    this.args = args
    this.kwargs = kwargs
  }

  get qualifiedName (): string {
    return `${this.module}.${this.name}`
  }

  setState (state: PyValue): void {
    // A (dict, slots) pair is how objects with __slots__ pickle; merge both into one Map.
    if (state instanceof PyTuple && state.length === 2 && (state.items[0] === null || state.items[0] instanceof Map) && state.items[1] instanceof Map) {
      const merged = new Map<PyValue, PyValue>(state.items[0] ?? [])
      for (const [k, v] of state.items[1]) merged.set(k, v)
      this.state = merged
      return
    }
    if (this.state instanceof Map && state instanceof Map) {
      for (const [k, v] of state) this.state.set(k, v)
      return
    }
    this.state = state
  }

  /** An attribute from the state dict, or undefined. */
  get (name: string): PyValue {
    return this.state instanceof Map ? this.state.get(name) : undefined
  }

  has (name: string): boolean {
    return this.state instanceof Map && this.state.has(name)
  }
}

export function isPyObject (value: unknown, qualifiedName?: string): value is PyObject {
  return value instanceof PyObject && (qualifiedName === undefined || value.qualifiedName === qualifiedName)
}
