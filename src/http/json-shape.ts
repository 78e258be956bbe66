/**
 * A check of a JSON body's shape on its raw bytes, before JSON.parse: how deep arrays and
 * objects nest and how many values it holds. A 1 MB body of arrays nested 520,000 deep
 * costs about 108 ms of JSON.parse on the one front thread before its 422; this refuses it
 * after the first few dozen bytes (docs/http-api.md, "Limits and timeouts": a refused request costs almost nothing).
 * It is fed the body chunk by chunk as it arrives, so a refusal comes before the upload
 * ends. Strings are skipped with indexOf; only the bytes outside them are looked at.
 */

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c

export interface JsonShapeLimits {
  /** Deepest nesting of arrays and objects accepted. */
  readonly maxDepth: number
  /** Most values (array items and object members) accepted. */
  readonly maxValues: number
}

export class JsonShapeScanner {
  readonly #limits: JsonShapeLimits
  #depth = 0
  #values = 0
  #inString = false
  /** The last byte seen inside a string was a backslash, so the next byte is escaped. */
  #escaped = false
  /** Where the next backslash of the current chunk is (-1: none left), so no string scans for it twice. */
  #nextBackslash = -1

  constructor (limits: JsonShapeLimits) {
    this.#limits = limits
  }

  /**
   * Scans the next chunk of the body; returns what is wrong once a limit is passed
   * (the rest need not be scanned), else undefined. Malformed JSON is left to JSON.parse.
   */
  feed (chunk: Uint8Array): string | undefined {
    const n = chunk.length
    let i = 0
    this.#nextBackslash = chunk.indexOf(BACKSLASH)
    while (i < n) {
      if (this.#inString) {
        i = this.#skipString(chunk, i)
        continue
      }
      const b = chunk[i++]!
      if (b === QUOTE) {
        this.#inString = true
      } else if (b === 0x5b || b === 0x7b) {
        if (++this.#depth > this.#limits.maxDepth) return `body nests arrays and objects more than ${this.#limits.maxDepth} deep`
        if (++this.#values > this.#limits.maxValues) return this.#tooMany()
      } else if (b === 0x5d || b === 0x7d) {
        this.#depth--
      } else if (b === COMMA) {
        if (++this.#values > this.#limits.maxValues) return this.#tooMany()
      }
    }
    return undefined
  }

  #tooMany (): string {
    return `body holds more than ${this.#limits.maxValues} values`
  }

  /** From `i` inside a string: the index after its closing quote, or `n` if it goes on past the chunk. */
  #skipString (chunk: Uint8Array, i: number): number {
    const n = chunk.length
    if (this.#escaped) {
      this.#escaped = false
      i++
    }
    while (i < n) {
      const quote = chunk.indexOf(QUOTE, i)
      if (this.#nextBackslash >= 0 && this.#nextBackslash < i) this.#nextBackslash = chunk.indexOf(BACKSLASH, i)
      const backslash = this.#nextBackslash
      if (backslash >= 0 && (quote < 0 || backslash < quote)) {
        // An escape: skip it and the byte it escapes (which may be in the next chunk).
        if (backslash + 1 >= n) {
          this.#escaped = true
          return n
        }
        i = backslash + 2
        continue
      }
      if (quote < 0) return n
      this.#inString = false
      return quote + 1
    }
    return n
  }
}
