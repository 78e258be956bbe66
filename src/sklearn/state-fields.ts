/**
 * The estimator layer's field kit: the two errors every reader reports (ERR_MODEL_UNSUPPORTED
 * for what we do not serve, ERR_MODEL_SHAPE for what does not fit together), and the checks of
 * one state object field by field (the kind of each value, numbers in range, typed arrays of
 * the right kind and length), each failure naming the field's path. record.ts reads pickle
 * records with the same errors; each estimator module's `check` reads its state with Fields,
 * whether the state was just built or read from a compiled file.
 */
import { ServiceError } from '../errors.js'

export function unsupported (detail: string): never {
  throw new ServiceError('ERR_MODEL_UNSUPPORTED', detail)
}

export function shapeError (detail: string): never {
  throw new ServiceError('ERR_MODEL_SHAPE', detail)
}

/** The widest feature count a state may declare: indices are int32. */
export const MAX_FEATURES = 2 ** 31 - 1

/** The error of a field at `where` (a path such as 'compiled model: state.classifier.coefT'). */
export function shapeProblem (where: string, detail: string): ServiceError {
  return new ServiceError('ERR_MODEL_SHAPE', `${where} ${detail}`)
}

type ArrayKind = Int8ArrayConstructor | Uint8ArrayConstructor | Int32ArrayConstructor | Float32ArrayConstructor | Float64ArrayConstructor | Uint16ArrayConstructor

/** The fields of one object of the tree, each read through a check. */
export class Fields {
  readonly where: string
  readonly #object: Readonly<Record<string, unknown>>

  /** @throws ServiceError when `value` is not a plain object. */
  constructor (value: unknown, where: string) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || ArrayBuffer.isView(value)) throw shapeProblem(where, 'is not an object')
    this.where = where
    this.#object = value as Record<string, unknown>
  }

  #at (name: string): string {
    return `${this.where}.${name}`
  }

  has (name: string): boolean {
    return Object.hasOwn(this.#object, name) && this.#object[name] !== undefined
  }

  value (name: string): unknown {
    return Object.hasOwn(this.#object, name) ? this.#object[name] : undefined
  }

  object (name: string): Fields {
    return new Fields(this.value(name), this.#at(name))
  }

  nullable<T> (name: string, read: (name: string) => T): T | null {
    return this.value(name) === null ? null : read(name)
  }

  int (name: string, min: number, max: number = 2 ** 31 - 1): number {
    const v = this.value(name)
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw shapeProblem(this.#at(name), `is ${describeValue(v)}, not an integer in ${min}..${max}`)
    return v
  }

  number (name: string): number {
    const v = this.value(name)
    if (typeof v !== 'number') throw shapeProblem(this.#at(name), `is ${describeValue(v)}, not a number`)
    return v
  }

  bool (name: string): boolean {
    const v = this.value(name)
    if (typeof v !== 'boolean') throw shapeProblem(this.#at(name), `is ${describeValue(v)}, not a boolean`)
    return v
  }

  string (name: string): string {
    const v = this.value(name)
    if (typeof v !== 'string') throw shapeProblem(this.#at(name), `is ${describeValue(v)}, not a string`)
    return v
  }

  oneOf<T extends string | null> (name: string, allowed: readonly T[]): T {
    const v = this.value(name)
    if (!allowed.includes(v as T)) throw shapeProblem(this.#at(name), `is ${describeValue(v)}, not one of ${allowed.map(a => JSON.stringify(a)).join(', ')}`)
    return v as T
  }

  strings (name: string, min = 0): readonly string[] {
    const v = this.value(name)
    if (!Array.isArray(v) || v.length < min || !v.every(s => typeof s === 'string')) throw shapeProblem(this.#at(name), `is ${describeValue(v)}, not a list of at least ${min} strings`)
    return v as string[]
  }

  numbers (name: string): readonly number[] {
    const v = this.value(name)
    if (!Array.isArray(v) || !v.every(s => typeof s === 'number')) throw shapeProblem(this.#at(name), `is ${describeValue(v)}, not a list of numbers`)
    return v as number[]
  }

  list (name: string, min = 0): readonly unknown[] {
    const v = this.value(name)
    if (!Array.isArray(v) || v.length < min) throw shapeProblem(this.#at(name), `is ${describeValue(v)}, not a list of at least ${min}`)
    return v
  }

  /** A typed array of `Kind`, of `length` elements when given. */
  array<K extends ArrayKind> (name: string, Kind: K, length?: number): InstanceType<K> {
    return typedArray(this.value(name), this.#at(name), Kind, length)
  }

  /** An Int32Array whose every value lies in min..max. */
  indices (name: string, min: number, max: number, length?: number): Int32Array {
    const a = this.array(name, Int32Array, length)
    checkRange(a, this.#at(name), min, max)
    return a
  }
}

export function typedArray<K extends ArrayKind> (v: unknown, where: string, Kind: K, length?: number): InstanceType<K> {
  if (!(v instanceof Kind)) throw shapeProblem(where, `is ${describeValue(v)}, not a ${Kind.name}`)
  if (length !== undefined && v.length !== length) throw shapeProblem(where, `has ${v.length} values, not ${length}`)
  return v as InstanceType<K>
}

export function checkRange (a: ArrayLike<number>, where: string, min: number, max: number): void {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!
    if (!(x >= min && x <= max)) throw shapeProblem(where, `[${i}] is ${x}, outside ${min}..${max}`)
  }
}

export function describeValue (v: unknown): string {
  if (v === null || v === undefined || typeof v === 'boolean' || typeof v === 'number') return String(v)
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v)
  if (ArrayBuffer.isView(v)) return `a ${v.constructor.name} of ${(v as unknown as ArrayLike<number>).length}`
  if (Array.isArray(v)) return `a list of ${v.length}`
  return 'an object'
}
