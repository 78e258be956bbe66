import { expect } from 'chai'
import { ServiceError } from '../../src/errors.js'
import { ByteReader, latin1 } from '../../src/pickle/byte-reader.js'

function failure (fn: () => unknown): ServiceError {
  try {
    fn()
  } catch (err) {
    expect(err).to.be.instanceOf(ServiceError)
    return err as ServiceError
  }
  throw new Error('expected a ServiceError')
}

describe('ByteReader', () => {
  it('reads little-endian integers and a big-endian float, advancing by their widths', () => {
    const r = new ByteReader(new Uint8Array([0x01, 0x02, 0x03, 0xff, 0xff, 0xff, 0xff, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0]))
    expect([r.readU8(), r.readU16(), r.readI32(), r.readF64BE(), r.pos]).to.deep.equal([1, 0x0302, -1, 1.5, 15])
  })

  context('when the data ends early', () => {
    it('throws ERR_PICKLE_TRUNCATED with the offset, and still reads what is there', () => {
      const r = new ByteReader(new Uint8Array([1, 2, 3]))
      r.readU8()
      const err = failure(() => r.readU32())
      expect([err.code, err.offset]).to.deep.equal(['ERR_PICKLE_TRUNCATED', 1])
      expect(r.readU16()).to.equal(0x0302)
    })

    it('refuses a declared length longer than the data before allocating', () => {
      const r = new ByteReader(new Uint8Array(4))
      expect(failure(() => r.readCopy(2 ** 31, 'BINBYTES')).code).to.equal('ERR_PICKLE_TRUNCATED')
      expect(failure(() => r.readCopy(-5, 'BINBYTES')).code).to.equal('ERR_PICKLE_INVALID')
    })

    it('refuses a line without an end', () => {
      expect(failure(() => new ByteReader(new Uint8Array([0x41, 0x42])).readLine('INT')).code).to.equal('ERR_PICKLE_TRUNCATED')
    })
  })

  it('refuses a uint64 length past 2^53', () => {
    const r = new ByteReader(new Uint8Array([0, 0, 0, 0, 0, 0, 0x20, 0]))
    expect(failure(() => r.readU64()).code).to.equal('ERR_PICKLE_INVALID')
  })

  it('decodes UTF-8 strictly', () => {
    expect(new ByteReader(new Uint8Array([0xc3, 0xa9])).readUtf8(2, 's')).to.equal('é')
    expect(failure(() => new ByteReader(new Uint8Array([0xc3, 0x28])).readUtf8(2, 's')).code).to.equal('ERR_PICKLE_INVALID')
  })

  it('copies, so the input is never written through', () => {
    const bytes = new Uint8Array([1, 2, 3])
    const copy = new ByteReader(bytes).readCopy(3, 'b')
    copy[0] = 9
    expect([...bytes]).to.deep.equal([1, 2, 3])
  })

  it('reads latin-1 as one code point per byte', () => {
    expect(latin1(new Uint8Array([0x41, 0xe9, 0xff]))).to.equal('Aéÿ')
  })
})
