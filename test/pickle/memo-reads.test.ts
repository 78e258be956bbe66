import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { memoReads } from '../../src/pickle/memo-reads.js'
import { unpickle } from '../../src/pickle/unpickler.js'
import { PyTuple } from '../../src/pickle/values.js'
import { FIXTURES } from '../helpers/paths.js'

const DIR = path.join(FIXTURES, 'pickle')
/** Per plain fixture, the memo indices CPython's pickletools sees it read (test/fixtures/memo-reads/make.py). */
const EXPECTED = JSON.parse(readFileSync(path.join(FIXTURES, 'memo-reads', 'memo-reads.json'), 'utf8')) as Record<string, number[]>

const marked = (reads: Uint8Array): number[] => [...reads.keys()].filter(i => reads[i] === 1)

describe('memo reads: the memo entries a pickle reads back, found before it runs', () => {
  for (const [file, indices] of Object.entries(EXPECTED)) {
    it(`finds ${file}'s as pickletools does (${indices.length})`, () => {
      const reads = memoReads(readFileSync(path.join(DIR, file)), 0)
      expect(reads).to.not.equal(null)
      expect(marked(reads!)).to.deep.equal(indices)
    })
  }

  it('gives up on an unknown opcode and on a pickle without STOP', () => {
    expect(memoReads(readFileSync(path.join(DIR, 'unknown-opcode.pkl')), 0)).to.equal(null)
    expect(memoReads(readFileSync(path.join(DIR, 'truncated.pkl')), 0)).to.equal(null)
  })

  it('runs a pickle again keeping every entry when one it did not keep is read (raw data the walk took for STOP)', () => {
    const head = Buffer.from('\x80\x02csklearn.linear_model._logistic\nLogisticRegression\n)\x81}b', 'latin1')
    // After BUILD the hook reads one raw byte, '.', where the walk stops; then 'a' is memoized and read back.
    const bytes = new Uint8Array([...head, 0x2e, 0x8c, 0x01, 0x61, 0x94, 0x68, 0x00, 0x87, 0x2e])
    expect(marked(memoReads(bytes, 0)!)).to.deep.equal([])
    let builds = 0
    const value = unpickle(bytes, {
      afterBuild: (built, stream) => {
        builds++
        expect(stream.readU8()).to.equal(0x2e)
        return built
      }
    })
    expect(builds).to.equal(2)
    expect(value).to.be.instanceOf(PyTuple)
    expect((value as PyTuple).items.slice(1)).to.deep.equal(['a', 'a'])
  })
})
