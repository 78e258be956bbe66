/**
 * A bounded reader for UBJSON (Universal Binary JSON, big-endian), the format xgboost 1.6+
 * writes a Booster in when it is pickled (`XGBoosterSerializeToBuffer`, `UBJWriter` in
 * xgboost's src/common/json.cc). It knows nothing of xgboost: it turns bytes into values,
 * and every declared length or count is checked against the bytes left before anything is
 * allocated, as the pickle reader does.
 *
 * | UBJSON                          | here                                   |
 * |---------------------------------|----------------------------------------|
 * | Z, T/F                          | null, boolean                          |
 * | i, U, I, l, L (int8 ... int64)  | number (bigint past 2^53)              |
 * | d, D (float32, float64)         | number (a float32 is exact in a double) |
 * | C, S                            | string (strict UTF-8)                  |
 * | [ ... ] untyped                 | Array                                  |
 * | [$d#n, [$l#n, ... typed         | Float32Array, Int32Array, ... (int64: BigInt64Array) |
 * | { ... }                         | Map (keys of any text, never an object) |
 */
import { ServiceError } from '../errors.js'
import { ByteReader } from './byte-reader.js'

export type UbjTypedArray = Int8Array | Uint8Array | Int16Array | Int32Array | BigInt64Array | Float32Array | Float64Array

export type UbjValue = null | boolean | number | bigint | string | UbjValue[] | UbjTypedArray | Map<string, UbjValue>

export interface UbjsonOptions {
  /** Deepest nesting of arrays and objects. Defaults to 64 (xgboost writes 8). */
  readonly maxDepth?: number
}

const DEFAULTS = { maxDepth: 64 } as const

/** Payload width of each fixed-size scalar type, and how a typed array of it is made. */
const SCALARS: Readonly<Record<string, { readonly width: number, readonly make?: (n: number) => UbjTypedArray }>> = Object.freeze({
  i: { width: 1, make: n => new Int8Array(n) },
  U: { width: 1, make: n => new Uint8Array(n) },
  I: { width: 2, make: n => new Int16Array(n) },
  l: { width: 4, make: n => new Int32Array(n) },
  L: { width: 8, make: n => new BigInt64Array(n) },
  d: { width: 4, make: n => new Float32Array(n) },
  D: { width: 8, make: n => new Float64Array(n) },
  C: { width: 1 }
})

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)
const UTF8 = new TextDecoder('utf-8', { fatal: true })

class UbjsonReader {
  readonly #in: ByteReader
  readonly #view: DataView
  readonly #maxDepth: number

  constructor (bytes: Uint8Array, maxDepth: number) {
    this.#in = new ByteReader(bytes)
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    this.#maxDepth = maxDepth
  }

  get done (): boolean {
    return !this.#in.hasRemaining(1)
  }

  get pos (): number {
    return this.#in.pos
  }

  fail (detail: string, at = this.#in.pos): never {
    throw new ServiceError('ERR_PICKLE_INVALID', `UBJSON ${detail} at byte ${at} of the value`)
  }

  /** One value, its type marker first (no-op markers skipped). */
  value (depth: number): UbjValue {
    let marker = this.#marker('value')
    while (marker === 'N') marker = this.#marker('value')
    return this.#payload(marker, depth)
  }

  #marker (what: string): string {
    this.#need(1, what)
    return String.fromCharCode(this.#in.readU8())
  }

  #need (n: number, what: string): void {
    if (!this.#in.hasRemaining(n)) {
      throw new ServiceError('ERR_PICKLE_TRUNCATED', `UBJSON ${what} needs ${n} bytes, ${this.#in.length - this.#in.pos} left, at byte ${this.#in.pos} of the value`)
    }
  }

  #payload (marker: string, depth: number): UbjValue {
    switch (marker) {
      case 'Z': return null
      case 'T': return true
      case 'F': return false
      case 'S': return this.#string()
      case '[': return this.#array(depth + 1)
      case '{': return this.#object(depth + 1)
      case 'H': return this.fail('high-precision number (H) is not supported', this.#in.pos - 1)
      default: {
        if (!Object.hasOwn(SCALARS, marker)) return this.fail(`unknown type marker 0x${marker.charCodeAt(0).toString(16).padStart(2, '0')}`, this.#in.pos - 1)
        return this.#scalar(marker)
      }
    }
  }

  #scalar (marker: string): number | bigint | string {
    const { width } = SCALARS[marker]!
    this.#need(width, `${marker} value`)
    const at = this.#in.pos
    this.#in.pos += width
    switch (marker) {
      case 'i': return this.#view.getInt8(at)
      case 'U': return this.#view.getUint8(at)
      case 'I': return this.#view.getInt16(at, false)
      case 'l': return this.#view.getInt32(at, false)
      case 'd': return this.#view.getFloat32(at, false)
      case 'D': return this.#view.getFloat64(at, false)
      case 'C': return String.fromCharCode(this.#view.getUint8(at))
      default: {
        const v = this.#view.getBigInt64(at, false)
        return v > MAX_SAFE || v < -MAX_SAFE ? v : Number(v)
      }
    }
  }

  /** A length or count: an integer value with its own marker, at least 0. */
  #count (what: string): number {
    const at = this.#in.pos
    const marker = this.#marker(what)
    if (!'iUIlL'.includes(marker)) this.fail(`${what} has type ${JSON.stringify(marker)}, not an integer`, at)
    const n = this.#scalar(marker)
    if (typeof n !== 'number' || n < 0) return this.fail(`${what} is ${String(n)}`, at)
    return n
  }

  #string (): string {
    const n = this.#count('string length')
    this.#need(n, 'string')
    const at = this.#in.pos
    try {
      return UTF8.decode(this.#in.readView(n, 'UBJSON string'))
    } catch {
      return this.fail('string is not valid UTF-8', at)
    }
  }

  #enter (depth: number): void {
    if (depth > this.#maxDepth) {
      throw new ServiceError('ERR_PICKLE_LIMIT', `UBJSON nests deeper than ${this.#maxDepth} at byte ${this.#in.pos} of the value`)
    }
  }

  /** After '[' or '{': the optional `$type` and `#count`. */
  #header (): { type: string | undefined, count: number | undefined } {
    let type: string | undefined
    if (this.#peek() === '$') {
      this.#in.pos++
      const at = this.#in.pos
      type = this.#marker('container type')
      if (!Object.hasOwn(SCALARS, type) && type !== 'S') this.fail(`containers typed ${JSON.stringify(type)} are not supported`, at)
      if (this.#peek() !== '#') this.fail('typed container without a count')
    }
    let count: number | undefined
    if (this.#peek() === '#') {
      this.#in.pos++
      count = this.#count('container count')
    }
    return { type, count }
  }

  #peek (): string {
    this.#need(1, 'container')
    return String.fromCharCode(this.#in.bytes[this.#in.pos]!)
  }

  #array (depth: number): UbjValue[] | UbjTypedArray {
    this.#enter(depth)
    const { type, count } = this.#header()
    if (type !== undefined && count !== undefined) return this.#typed(type, count)
    const out: UbjValue[] = []
    if (count !== undefined) {
      // Every element takes at least one byte: a count past the bytes left is a lie.
      this.#need(count, `array of ${count} items`)
      for (let k = 0; k < count; k++) out.push(this.value(depth))
      return out
    }
    while (this.#peek() !== ']') out.push(this.value(depth))
    this.#in.pos++
    return out
  }

  #typed (type: string, count: number): UbjValue[] | UbjTypedArray {
    if (type === 'S') {
      this.#need(count, `array of ${count} strings`)
      return Array.from({ length: count }, () => this.#string())
    }
    const { width, make } = SCALARS[type]!
    this.#need(count * width, `array of ${count} ${type} values`)
    if (make === undefined) return Array.from({ length: count }, () => this.#scalar(type))
    const out = make(count)
    const start = this.#in.pos
    const v = this.#view
    for (let k = 0; k < count; k++) {
      const at = start + k * width
      switch (type) {
        case 'i': out[k] = v.getInt8(at); break
        case 'U': out[k] = v.getUint8(at); break
        case 'I': out[k] = v.getInt16(at, false); break
        case 'l': out[k] = v.getInt32(at, false); break
        case 'L': (out as BigInt64Array)[k] = v.getBigInt64(at, false); break
        case 'd': out[k] = v.getFloat32(at, false); break
        default: out[k] = v.getFloat64(at, false)
      }
    }
    this.#in.pos = start + count * width
    return out
  }

  #object (depth: number): Map<string, UbjValue> {
    this.#enter(depth)
    const { type, count } = this.#header()
    if (type !== undefined) this.fail('typed objects are not supported')
    const out = new Map<string, UbjValue>()
    if (count !== undefined) {
      this.#need(count, `object of ${count} entries`)
      for (let k = 0; k < count; k++) out.set(this.#string(), this.value(depth))
      return out
    }
    while (this.#peek() !== '}') out.set(this.#string(), this.value(depth))
    this.#in.pos++
    return out
  }
}

/**
 * Decodes one UBJSON value that fills `bytes` exactly.
 * @throws ServiceError ERR_PICKLE_TRUNCATED when the bytes end early, ERR_PICKLE_INVALID for
 * an unknown marker, a bad length or bytes after the value, ERR_PICKLE_LIMIT past `maxDepth`.
 */
export function readUbjson (bytes: Uint8Array, options: UbjsonOptions = {}): UbjValue {
  const maxDepth = options.maxDepth ?? DEFAULTS.maxDepth
  if (!Number.isSafeInteger(maxDepth) || maxDepth < 1) throw new RangeError(`maxDepth must be a positive integer, got ${String(maxDepth)}`)
  const reader = new UbjsonReader(bytes, maxDepth)
  const value = reader.value(0)
  if (!reader.done) reader.fail(`holds ${bytes.length - reader.pos} bytes after its value`)
  return value
}
