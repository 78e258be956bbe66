/**
 * Each model's share of the workers (src/pool/model-shares.ts): the default rule and a model's
 * own max_workers, the line a task waits in past its share, and that waiting there is waiting
 * for a worker under the request's queue clock. The "workers" here are promises the test
 * settles; test/repository/fair-sharing.test.ts runs the rule on real workers.
 */
import { expect } from 'chai'
import { ModelShares } from '../../src/pool/model-shares.js'
import { TaskAbort } from '../../src/pool/task-abort.js'
import { TaskClock } from '../../src/pool/task-clock.js'

/** A task a test settles: `hand` records it and returns its promise. */
function workers (): { hand: (task: object) => Promise<string>, handed: object[], finish: (k: number) => void } {
  const handed: object[] = []
  const settle: Array<(v: string) => void> = []
  return {
    handed,
    hand: async task => { handed.push(task); return await new Promise<string>(resolve => settle.push(resolve)) },
    finish: k => settle[k]!(`done ${k}`)
  }
}

const turn = async (): Promise<void> => { await new Promise(resolve => setImmediate(resolve)) }

/** Two models on two workers, the first one's share (one worker) taken by a task of `w`. */
function slowShareTaken (w: ReturnType<typeof workers>): ModelShares {
  const shares = new ModelShares(2)
  shares.add('slow', null)
  shares.add('other', null)
  void shares.run('slow', { i: 1 }, undefined, w.hand)
  return shares
}

describe('ModelShares', () => {
  context('the default rule', () => {
    it('gives the only model served every worker, and each of several all but one', () => {
      const shares = new ModelShares(4)
      shares.add('a', null)
      expect(shares.limit('a')).to.equal(4)
      shares.add('b', null)
      expect([shares.limit('a'), shares.limit('b')]).to.deep.equal([3, 3])
      shares.remove('b')
      expect(shares.limit('a')).to.equal(4)
    })

    it('gives each model one worker of a pool of one or two', () => {
      for (const n of [1, 2]) {
        const shares = new ModelShares(n)
        shares.add('a', null)
        shares.add('b', null)
        expect([n, shares.limit('a')]).to.deep.equal([n, 1])
      }
    })
  })

  context('a model\'s own max_workers', () => {
    it('is its share, at most the pool\'s workers, whatever else is served', () => {
      const shares = new ModelShares(4)
      shares.add('a', 2)
      expect(shares.limit('a')).to.equal(2)
      shares.add('b', 9)
      expect([shares.limit('a'), shares.limit('b')]).to.deep.equal([2, 4])
    })

    it('refuses what is not a count of workers', () => {
      const shares = new ModelShares(2)
      for (const bad of [0, 1.5, -1]) expect(() => shares.add('a', bad)).to.throw(RangeError, 'maxWorkers')
      expect(() => new ModelShares(0)).to.throw(RangeError, 'workers')
    })
  })

  context('tasks past a model\'s share', () => {
    it('wait in the model\'s own line, in arrival order, and go as its tasks settle; another model\'s go at once', async () => {
      const shares = new ModelShares(2)
      shares.add('slow', null)
      shares.add('other', null)
      const w = workers()
      const results = [1, 2, 3].map(async i => await shares.run('slow', { i }, undefined, w.hand))
      expect(w.handed).to.deep.equal([{ i: 1 }])
      expect(shares.free('slow')).to.equal(0)
      void shares.run('other', { other: true }, undefined, w.hand)
      expect(w.handed).to.deep.equal([{ i: 1 }, { other: true }])
      w.finish(0)
      expect(await results[0]).to.equal('done 0')
      await turn()
      expect(w.handed).to.deep.equal([{ i: 1 }, { other: true }, { i: 2 }])
      w.finish(2)
      await results[1]
      await turn()
      expect(w.handed.at(-1)).to.deep.equal({ i: 3 })
    })

    it('leave the line when their request is aborted, with an AbortError, and the next in line keeps its place', async () => {
      const w = workers()
      const shares = slowShareTaken(w)
      const abort = new TaskAbort()
      const cut = shares.run('slow', { i: 2 }, abort, w.hand)
      const kept = shares.run('slow', { i: 3 }, undefined, w.hand)
      abort.abort()
      const err = await cut.catch((e: unknown) => e) as Error
      expect(err.name).to.equal('AbortError')
      expect(abort.listenerCount).to.equal(0)
      w.finish(0)
      await turn()
      await turn()
      expect(w.handed).to.deep.equal([{ i: 1 }, { i: 3 }])
      w.finish(1)
      expect(await kept).to.equal('done 1')
    })

    it('tell the pool when a task settles with none waiting (its batcher may send), and go when a removed model leaves room', async () => {
      const freed: string[] = []
      const shares = new ModelShares(2, key => freed.push(key))
      shares.add('a', null)
      shares.add('b', null)
      const w = workers()
      void shares.run('a', { i: 1 }, undefined, w.hand)
      const second = shares.run('a', { i: 2 }, undefined, w.hand)
      shares.remove('b')
      expect(w.handed).to.deep.equal([{ i: 1 }, { i: 2 }])
      w.finish(1)
      await second
      await turn()
      expect(freed).to.deep.equal(['a'])
    })

    it('wait under the request\'s queue clock: past it, the request is cut as one that waited for a worker', async () => {
      const w = workers()
      const shares = slowShareTaken(w)
      const abort = new TaskAbort()
      const clock = new TaskClock(abort, { queueMs: 50, runMs: 10000 })
      const started = performance.now()
      const err = await clock.run({ i: 2 }, async tagged => await shares.run('slow', tagged, abort, w.hand)).catch((e: unknown) => e) as Error
      expect([err.name, clock.overrun]).to.deep.equal(['AbortError', 'queue'])
      expect(performance.now() - started).to.be.within(40, 1000)
      expect(w.handed).to.have.length(1)
      clock.stop()
    })

    it('start their run clock when a worker takes them after the wait, not before', async () => {
      const w = workers()
      const shares = slowShareTaken(w)
      const abort = new TaskAbort()
      const clock = new TaskClock(abort, { queueMs: 10000, runMs: 60 })
      let startedAt = 0
      // As Piscina does, the task taken by a worker ends with an AbortError when its request is aborted.
      const piscinaLike = async (task: object): Promise<string> => {
        w.handed.push(task)
        return await new Promise<string>((_resolve, reject) => abort.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' }))))
      }
      const running = clock.run({ i: 2 }, async tagged => await shares.run('slow', tagged, abort, piscinaLike), () => { startedAt = performance.now() })
      await new Promise(resolve => setTimeout(resolve, 100))
      expect(startedAt).to.equal(0)
      const freedAt = performance.now()
      w.finish(0)
      const err = await running.catch((e: unknown) => e) as Error
      expect([startedAt >= freedAt, clock.overrun, err.name]).to.deep.equal([true, 'run', 'AbortError'])
      clock.stop()
    })
  })
})
