import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import { ServiceError } from '../../src/errors.js'
import { decodePickleBytes, readPickleFile } from '../../src/pickle/read-pickle-file.js'
import { unpickle } from '../../src/pickle/unpickler.js'
import { FIXTURES } from '../helpers/paths.js'

async function codeOf (run: () => Promise<unknown> | unknown): Promise<string> {
  try {
    await run()
  } catch (err) {
    expect(err).to.be.instanceOf(ServiceError)
    return (err as ServiceError).code
  }
  return 'no error'
}

const MIB = 1024 * 1024
const repeat = (unit: number[], times: number): number[] => Array.from({ length: times }, () => unit).flat()

describe('limits of the file layer', () => {
  context('decompression bombs (64 MiB of zeros) read with a 1 MiB limit', () => {
    const bombs: Array<[string, () => Uint8Array]> = [
      ['zlib', () => zlib.deflateSync(Buffer.alloc(64 * MIB))],
      ['gzip', () => zlib.gzipSync(Buffer.alloc(64 * MIB))],
      ['bz2', () => readFileSync(path.join(FIXTURES, 'pickle', 'bomb.bz2'))],
      ['xz', () => readFileSync(path.join(FIXTURES, 'pickle', 'bomb.xz'))],
      ['lzma', () => readFileSync(path.join(FIXTURES, 'pickle', 'bomb.lzma'))]
    ]
    for (const [name, make] of bombs) {
      it(`stops ${name} at the limit with ERR_PICKLE_LIMIT`, async () => {
        const bytes = make()
        expect(await codeOf(async () => await decodePickleBytes(bytes, { maxDecompressedBytes: MIB }))).to.equal('ERR_PICKLE_LIMIT')
      })
    }
  })

  it('refuses corrupt compressed data with ERR_MODEL_COMPRESSION', async () => {
    const gz = zlib.gzipSync(Buffer.from('not much'))
    expect(await codeOf(async () => await decodePickleBytes(gz.subarray(0, gz.length - 6)))).to.equal('ERR_MODEL_COMPRESSION')
    const xz = readFileSync(path.join(FIXTURES, 'pickle', 'model-xz.joblib'))
    expect(await codeOf(async () => await decodePickleBytes(xz.subarray(0, 200)))).to.equal('ERR_MODEL_COMPRESSION')
    const bz = readFileSync(path.join(FIXTURES, 'pickle', 'model-bz2.joblib'))
    expect(await codeOf(async () => await decodePickleBytes(bz.subarray(0, 200)))).to.equal('ERR_MODEL_COMPRESSION')
  })

  it('bounds the memo', async () => {
    const bytes = new Uint8Array([0x80, 0x04, 0x4e, ...repeat([0x94], 100), 0x2e])
    expect(await codeOf(() => unpickle(bytes, { maxMemo: 50 }))).to.equal('ERR_PICKLE_LIMIT')
    expect(unpickle(bytes, { maxMemo: 100 })).to.equal(null)
  })

  it('bounds the stack and the open marks', async () => {
    expect(await codeOf(() => unpickle(new Uint8Array([0x80, 0x04, ...repeat([0x4e], 100), 0x2e]), { maxStack: 50 }))).to.equal('ERR_PICKLE_LIMIT')
    expect(await codeOf(() => unpickle(new Uint8Array([0x80, 0x04, ...repeat([0x28], 100), 0x2e]), { maxStack: 50 }))).to.equal('ERR_PICKLE_LIMIT')
  })

  it('bounds the work', async () => {
    const bytes = new Uint8Array([0x80, 0x04, 0x4e, ...repeat([0x32, 0x30], 1000), 0x2e])
    expect(await codeOf(() => unpickle(bytes, { maxWork: 500 }))).to.equal('ERR_PICKLE_LIMIT')
    expect(unpickle(bytes)).to.equal(null)
  })

  it('bounds the size of one integer', async () => {
    const bytes = new Uint8Array([0x80, 0x02, 0x8b, 0x00, 0x00, 0x01, 0x00, ...new Array(65536).fill(1), 0x2e])
    expect(await codeOf(() => unpickle(bytes, { maxIntBytes: 1024 }))).to.equal('ERR_PICKLE_LIMIT')
    expect(typeof unpickle(bytes)).to.equal('bigint')
  })

  it('refuses a file over the size limit, an empty file and a missing file, naming each', async () => {
    const file = path.join(FIXTURES, 'pickle', 'plain-p4.pkl')
    expect(await codeOf(async () => await readPickleFile(file, { maxFileBytes: 100 }))).to.equal('ERR_PICKLE_LIMIT')
    expect(await codeOf(async () => await decodePickleBytes(new Uint8Array(0)))).to.equal('ERR_PICKLE_TRUNCATED')
    const missing = path.join(FIXTURES, 'no-such.pkl')
    try {
      await readPickleFile(missing)
      expect.fail('no error')
    } catch (err) {
      expect((err as ServiceError).code).to.equal('ERR_MODEL_READ')
      expect((err as ServiceError).message).to.contain(missing)
    }
  })

  it('reports the offset of the opcode that failed', async () => {
    try {
      unpickle(new Uint8Array([0x80, 0x04, 0x4e, 0x4e, 0x68, 0x07, 0x2e]))
      expect.fail('no error')
    } catch (err) {
      expect([(err as ServiceError).code, (err as ServiceError).offset]).to.deep.equal(['ERR_PICKLE_INVALID', 4])
    }
  })
})
