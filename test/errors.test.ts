import { expect } from 'chai'
import { ERROR_CODES, ServiceError, type ErrorCode } from '../src/errors.js'

describe('the error code table', () => {
  for (const [code, spec] of Object.entries(ERROR_CODES)) {
    it(`${code} has an ERR_ name, an HTTP status and a default message`, () => {
      expect(code).to.match(/^ERR_[A-Z0-9_]+$/)
      expect(spec.statusCode).to.be.within(400, 599)
      expect(spec.message).to.be.a('string').and.not.equal('')
      const err = new ServiceError(code as ErrorCode)
      expect(err.code).to.equal(code)
      expect(err.statusCode).to.equal(spec.statusCode)
      expect(err.message).to.equal(spec.message)
    })
  }

  it('names the file and the byte offset in the message', () => {
    const err = new ServiceError('ERR_PICKLE_TRUNCATED', 'BINBYTES needs 9 bytes, 2 left', { offset: 17 })
    expect(err.message).to.equal('BINBYTES needs 9 bytes, 2 left (byte 17)')
    const named = err.withFile('models/x.pkl')
    expect(named.message).to.equal('BINBYTES needs 9 bytes, 2 left in models/x.pkl (byte 17)')
    expect([named.code, named.file, named.offset, named.detail]).to.deep.equal(['ERR_PICKLE_TRUNCATED', 'models/x.pkl', 17, 'BINBYTES needs 9 bytes, 2 left'])
    expect(named.withFile('other.pkl').file).to.equal('models/x.pkl')
  })
})
