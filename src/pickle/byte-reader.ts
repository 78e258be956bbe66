import { ServiceError } from '../errors.js'

const UTF8 = new TextDecoder('utf-8', { fatal: true })
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)

/**
 * A bounds-checked little-endian cursor over a byte array (pickle is little-endian
 * except BINFLOAT). Every read checks what is left first, so a short or lying file
 * fails with ERR_PICKLE_TRUNCATED and its offset, never a RangeError, and a declared
 * length is checked before anything is allocated for it.
 */
export class ByteReader {
  readonly bytes: Uint8Array
  readonly #view: DataView
  pos = 0

  constructor (bytes: Uint8Array) {
    // A Buffer (what readFile gives) is read as a plain Uint8Array: Buffer's subarray is
    // several times slower per call, and its slice() shares memory where readCopy must copy.
    this.bytes = Object.getPrototypeOf(bytes) === Uint8Array.prototype ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }

  get length (): number {
    return this.bytes.length
  }

  hasRemaining (n: number): boolean {
    return n >= 0 && this.bytes.length - this.pos >= n
  }

  /** @throws ServiceError ERR_PICKLE_TRUNCATED when fewer than `n` bytes remain. */
  need (n: number, what: string): void {
    if (!Number.isSafeInteger(n) || n < 0) {
      throw new ServiceError('ERR_PICKLE_INVALID', `invalid length ${String(n)} for ${what}`, { offset: this.pos })
    }
    if (this.bytes.length - this.pos < n) {
      throw new ServiceError('ERR_PICKLE_TRUNCATED', `${what} needs ${n} bytes, ${this.bytes.length - this.pos} left`, { offset: this.pos })
    }
  }

  readU8 (): number {
    this.need(1, 'byte')
    return this.bytes[this.pos++]!
  }

  readU16 (): number {
    this.need(2, 'uint16')
    const v = this.#view.getUint16(this.pos, true)
    this.pos += 2
    return v
  }

  readU32 (): number {
    this.need(4, 'uint32')
    const v = this.#view.getUint32(this.pos, true)
    this.pos += 4
    return v
  }

  readI32 (): number {
    this.need(4, 'int32')
    const v = this.#view.getInt32(this.pos, true)
    this.pos += 4
    return v
  }

  /** A uint64 length; anything past 2^53 cannot fit in memory and is refused. */
  readU64 (): number {
    this.need(8, 'uint64')
    const v = this.#view.getBigUint64(this.pos, true)
    if (v > MAX_SAFE) {
      throw new ServiceError('ERR_PICKLE_INVALID', `length ${v} is too large`, { offset: this.pos })
    }
    this.pos += 8
    return Number(v)
  }

  readF64BE (): number {
    this.need(8, 'float64')
    const v = this.#view.getFloat64(this.pos, false)
    this.pos += 8
    return v
  }

  /** A view of the next `n` bytes (no copy): callers copy before handing it out. */
  readView (n: number, what: string): Uint8Array {
    this.need(n, what)
    const view = this.bytes.subarray(this.pos, this.pos + n)
    this.pos += n
    return view
  }

  /** A copy of the next `n` bytes, so later mutation never reaches the input. */
  readCopy (n: number, what: string): Uint8Array {
    return this.readView(n, what).slice()
  }

  /** UTF-8 text, strictly: invalid sequences fail rather than becoming U+FFFD. */
  readUtf8 (n: number, what: string): string {
    const start = this.pos
    const view = this.readView(n, what)
    try {
      return UTF8.decode(view)
    } catch {
      throw new ServiceError('ERR_PICKLE_INVALID', `${what} is not valid UTF-8`, { offset: start })
    }
  }

  /** Bytes up to (not including) the next '\n', as latin-1 text (protocol-0 arguments). */
  readLine (what: string): string {
    const end = this.bytes.indexOf(0x0a, this.pos)
    if (end < 0) {
      throw new ServiceError('ERR_PICKLE_TRUNCATED', `${what} has no end of line`, { offset: this.pos })
    }
    const line = latin1(this.bytes.subarray(this.pos, end))
    this.pos = end + 1
    return line
  }
}

/** Bytes as latin-1 text: one code point per byte, as Python's 'latin1' codec does. */
export function latin1 (bytes: Uint8Array): string {
  let out = ''
  for (let i = 0; i < bytes.length; i += 8192) {
    out += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192) as unknown as number[])
  }
  return out
}
