/**
 * A refusal decided while the pool's workers still load their code (the model decodes beside
 * them and fails first) tears the pool down without terminating a worker mid-import, which
 * on Node 20 aborts the process (`FATAL ERROR: v8::Module::IsGraphAsync ...`): measured
 * before the fix at about one start in 15 to 200 with two workers.
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import { WorkerStarts } from '../../src/pool/worker-starts.js'
import { FIXTURES, ROOT } from '../helpers/paths.js'

const LOOP = path.join(ROOT, 'dist', 'test', 'helpers', 'refuse-pool-loop.js')
const UNFITTED = path.join(FIXTURES, 'search', '1.2.1', 'refused', 'unfitted-vectorizer.pkl')
const STARTS = 200

describe('ClassifierPool torn down on a refusal', function () {
  this.timeout(400_000)

  it(`refuses ${STARTS} starts in a row, each in exactly one line, and the process ends cleanly`, async () => {
    const child = spawn(process.execPath, [LOOP, UNFITTED, String(STARTS), '2'], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString() })
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString() })
    const [code, signal] = await once(child, 'exit') as [number | null, string | null]
    const line = `tfidf-serve: TfidfVectorizer is not fitted (no vocabulary_): fit it before saving it in ${UNFITTED}`
    expect(stderr.slice(0, 2000), 'stderr').to.equal('')
    expect({ code, signal }).to.deep.equal({ code: 0, signal: null })
    expect(stdout.split('\n')).to.deep.equal([...Array<string>(STARTS).fill(line), ''])
  })
})

describe('WorkerStarts', () => {
  const idle = (): Worker => new Worker('setInterval(() => {}, 1000)', { eval: true })

  it('settles at once when every worker has started, and counts the starts', async () => {
    const w = idle()
    const starts = new WorkerStarts(1)
    starts.started(w.threadId)
    const t = performance.now()
    await starts.settled(() => [w], 5000)
    expect([starts.count, performance.now() - t < 1000]).to.deep.equal([1, true])
    await w.terminate()
  })

  it('settles when a worker that never said it started exits, or else at its bound', async () => {
    const quiet = idle()
    const starts = new WorkerStarts(1)
    let t = performance.now()
    await starts.settled(() => [quiet], 150)
    const bounded = performance.now() - t
    expect(bounded).to.be.within(140, 2000)
    t = performance.now()
    const settled = starts.settled(() => [quiet], 10_000)
    await quiet.terminate()
    await settled
    expect(performance.now() - t).to.be.below(5000)
  })
})
