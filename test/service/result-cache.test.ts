import { expect } from 'chai'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import request from 'supertest'
import { ENTRY_BYTES, ResultCache } from '../../src/service/result-cache.js'
import { startService, type Service } from '../helpers/service.js'

/** A full collection, then the heap in use. */
function heapAfterGc (): number {
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

/** A unique 10,000-character text, made and dropped by the caller. */
const longText = (i: number): string => `${i} `.padEnd(10000, 'long unique text ')

describe('the result cache', () => {
  it('holds an entry in at most ENTRY_BYTES, whatever the length of its text', () => {
    const cache = new ResultCache(100_000, 1 << 30)
    const before = heapAfterGc()
    for (let i = 0; i < 20_000; i++) cache.set(cache.keyOf(longText(i)), { classIndex: i % 3, confidence: 0.5 })
    const perEntry = (heapAfterGc() - before) / 20_000
    expect(cache.size.entries).to.equal(20_000)
    // 20,000 texts of 10,000 characters are 200 MB; the cache holds none of them.
    expect(perEntry).to.be.within(16, ENTRY_BYTES)
  })

  it('keeps at most CACHE_MAX_BYTES / ENTRY_BYTES entries, the most recently used', () => {
    const cache = new ResultCache(10_000, 100 * ENTRY_BYTES)
    for (let i = 0; i < 1000; i++) cache.set(cache.keyOf(`text ${i}`), { classIndex: i % 2, confidence: i / 1000 })
    expect(cache.size).to.deep.equal({ entries: 100, bytes: 100 * ENTRY_BYTES })
    expect(cache.get(cache.keyOf('text 999'))).to.deep.equal({ classIndex: 1, confidence: 0.999 })
    expect(cache.get(cache.keyOf('text 0'))).to.equal(undefined)
    expect(cache.hitRate).to.equal(0.5)
  })

  it('is off with a size or a byte bound of 0', () => {
    for (const cache of [new ResultCache(0, 1 << 20), new ResultCache(1000, 0)]) {
      cache.set(cache.keyOf('a'), { classIndex: 0, confidence: 1 })
      expect([cache.enabled, cache.get(cache.keyOf('a')), cache.size.entries]).to.deep.equal([false, undefined, 0])
    }
  })

  context('in the service', function () {
    this.timeout(60000)
    let service: Service
    before(async () => { service = await startService({ CACHE_SIZE: '100000', CACHE_MAX_BYTES: String(500 * ENTRY_BYTES) }) })
    after(async () => { await service.close() })

    it('answers a repeated text from the cache (worker time 0) with the same prediction', async () => {
      const first = await request(service.app).post('/predict').send({ texts: ['a wonderful, moving film'] }).expect(200)
      const again = await request(service.app).post('/predict').send({ texts: ['a wonderful, moving film'] }).expect(200)
      const [a, b] = [first, again].map(r => (r.body as { predictions: Array<Record<string, unknown>> }).predictions[0]!)
      expect(b).to.deep.equal({ ...a, processing_time: 0 })
      expect(a!.processing_time).to.be.greaterThan(0)
    })

    it('does not grow past its bound, or keep the texts, when clients send long unique texts', async () => {
      const before = heapAfterGc()
      for (let r = 0; r < 100; r++) {
        const texts = Array.from({ length: 10 }, (_, i) => longText(r * 10 + i))
        await request(service.app).post('/predict').send({ texts }).expect(200)
      }
      // 1,000 texts of 10,000 characters (20 MB as JavaScript strings) went through; at most 500 entries stayed.
      expect(heapAfterGc() - before).to.be.lessThan(2e6)
    })
  })
})
