import { expect } from 'chai'
import { ServiceError } from '../../src/errors.js'
import { readUbjson } from '../../src/pickle/ubjson.js'

/** Bytes from a mix of ASCII markers and byte values. */
function ubj (...parts: Array<string | number[]>): Uint8Array {
  return Uint8Array.from(parts.flatMap(p => typeof p === 'string' ? [...p].map(c => c.charCodeAt(0)) : p))
}

/** An int64 count/length marker as xgboost writes them: 'L' + 8 big-endian bytes. */
const L = (n: number): Array<string | number[]> => ['L', [0, 0, 0, 0, 0, 0, 0, n]]

function errorOf (bytes: Uint8Array, maxDepth?: number): ServiceError {
  try {
    readUbjson(bytes, maxDepth === undefined ? {} : { maxDepth })
  } catch (err) {
    expect(err).to.be.instanceOf(ServiceError)
    return err as ServiceError
  }
  return expect.fail('no error')
}

describe('readUbjson', () => {
  context('scalars', () => {
    it('reads null, booleans and every integer width, big-endian', () => {
      expect(readUbjson(ubj('Z'))).to.equal(null)
      expect(readUbjson(ubj('T'))).to.equal(true)
      expect(readUbjson(ubj('F'))).to.equal(false)
      expect(readUbjson(ubj('i', [0xff]))).to.equal(-1)
      expect(readUbjson(ubj('U', [0xff]))).to.equal(255)
      expect(readUbjson(ubj('I', [0x01, 0x00]))).to.equal(256)
      expect(readUbjson(ubj('l', [0xff, 0xff, 0xff, 0xfe]))).to.equal(-2)
      expect(readUbjson(ubj('L', [0, 0, 0, 1, 0, 0, 0, 0]))).to.equal(2 ** 32)
    })

    it('keeps an int64 past 2^53 as a bigint', () => {
      expect(readUbjson(ubj('L', [0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]))).to.equal(2n ** 63n - 1n)
    })

    it('reads float32 and float64 exactly, and strings as strict UTF-8', () => {
      expect(readUbjson(ubj('d', [0x3e, 0x99, 0x99, 0x9a]))).to.equal(Math.fround(0.3))
      expect(readUbjson(ubj('D', [0x3f, 0xb9, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9a]))).to.equal(0.1)
      expect(readUbjson(ubj('S', 'i', [2], [0xc3, 0xa9]))).to.equal('é')
      expect(errorOf(ubj('S', 'i', [1], [0xc3])).code).to.equal('ERR_PICKLE_INVALID')
    })
  })

  context('containers', () => {
    it('reads objects into Maps (any key is an ordinary key), counted or ended by }', () => {
      const v = readUbjson(ubj('{', ...L(9), '__proto__', 'i', [1], ...L(1), 'b', 'N', 'T', '}'))
      expect(v).to.deep.equal(new Map<string, unknown>([['__proto__', 1], ['b', true]]))
      expect(readUbjson(ubj('{', '#', 'i', [1], 'i', [1], 'a', 'Z'))).to.deep.equal(new Map([['a', null]]))
    })

    it('reads untyped arrays as xgboost writes them ([#L n ...) and ended by ]', () => {
      expect(readUbjson(ubj('[', '#', ...L(3), 'i', [0], 'i', [1], 'i', [2]))).to.deep.equal([0, 1, 2])
      expect(readUbjson(ubj('[', 'S', 'i', [1], 'x', '[', ']', ']'))).to.deep.equal(['x', []])
    })

    it('reads typed arrays into typed arrays', () => {
      expect(readUbjson(ubj('[', '$', 'd', '#', ...L(2), [0x3f, 0x80, 0, 0, 0xbf, 0x80, 0, 0]))).to.deep.equal(Float32Array.of(1, -1))
      expect(readUbjson(ubj('[', '$', 'l', '#', 'i', [2], [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 3]))).to.deep.equal(Int32Array.of(-1, 3))
      expect(readUbjson(ubj('[', '$', 'U', '#', 'i', [2], [1, 0]))).to.deep.equal(Uint8Array.of(1, 0))
      expect(readUbjson(ubj('[', '$', 'L', '#', 'i', [1], [0, 0, 0, 0, 0, 0, 0, 7]))).to.deep.equal(BigInt64Array.of(7n))
      expect(readUbjson(ubj('[', '$', 'S', '#', 'i', [1], 'i', [1], 'z'))).to.deep.equal(['z'])
    })
  })

  context('malformed input', () => {
    it('refuses a count larger than the bytes left before allocating', () => {
      const err = errorOf(ubj('[', '$', 'd', '#', 'L', [0, 0x10, 0, 0, 0, 0, 0, 0]))
      expect(err.code).to.equal('ERR_PICKLE_TRUNCATED')
      expect(errorOf(ubj('[', '#', 'L', [0, 0, 0, 0, 0x7f, 0, 0, 0], 'Z')).code).to.equal('ERR_PICKLE_TRUNCATED')
      expect(errorOf(ubj('S', 'l', [0x7f, 0, 0, 0], 'ab')).code).to.equal('ERR_PICKLE_TRUNCATED')
    })

    it('refuses negative lengths, unknown markers, unsupported forms and bytes after the value', () => {
      expect(errorOf(ubj('S', 'i', [0xff])).message).to.contain('string length is -1')
      expect(errorOf(ubj('q')).message).to.equal('UBJSON unknown type marker 0x71 at byte 0 of the value')
      expect(errorOf(ubj('H', 'i', [1], '1')).message).to.contain('high-precision')
      expect(errorOf(ubj('[', '$', '[', '#', 'i', [1])).message).to.contain('not supported')
      expect(errorOf(ubj('[', '$', 'd', 'i', [1])).message).to.contain('typed container without a count')
      expect(errorOf(ubj('{', '$', 'i', '#', 'i', [0])).message).to.contain('typed objects')
      expect(errorOf(ubj('Z', 'Z')).message).to.contain('1 bytes after its value')
    })

    it('refuses input that ends early, everywhere', () => {
      const whole = ubj('{', ...L(1), 'a', '[', '$', 'l', '#', 'i', [1], [0, 0, 0, 1], '}')
      expect(readUbjson(whole)).to.deep.equal(new Map([['a', Int32Array.of(1)]]))
      for (let n = 0; n < whole.length; n++) expect(errorOf(whole.subarray(0, n)).code, `${n} bytes`).to.equal('ERR_PICKLE_TRUNCATED')
    })

    it('refuses nesting deeper than maxDepth (default 64)', () => {
      const deep = (n: number): Uint8Array => ubj('['.repeat(n), ']'.repeat(n))
      expect(readUbjson(deep(64))).to.be.an('array')
      expect(errorOf(deep(65)).code).to.equal('ERR_PICKLE_LIMIT')
      expect(errorOf(deep(100000)).code).to.equal('ERR_PICKLE_LIMIT')
      expect(errorOf(deep(3), 2).code).to.equal('ERR_PICKLE_LIMIT')
      expect(() => readUbjson(deep(1), { maxDepth: 0 })).to.throw(RangeError, /maxDepth/)
    })
  })
})
