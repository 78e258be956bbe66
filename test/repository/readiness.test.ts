/**
 * Readiness as the Open Inference Protocol means it (issue 23, defect 1): the server is ready
 * once every model found at start-up has settled (READY or UNAVAILABLE) and the default model
 * serves; with STRICT_READINESS, only while every model serves. GET /v2/health/ready, gRPC
 * ServerReady and grpc.health.v1 for "" answer the same, since a kubelet routes by them.
 */
import { expect } from 'chai'
import { cpSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { loadServices } from '../../src/grpc/protos.js'
import { clientOf, unary } from '../helpers/grpc-client.js'
import { FIXTURES, ROOT } from '../helpers/paths.js'
import { logLines, start, type Run } from '../helpers/processes.js'

const SERVICES = loadServices()
/** How long the slow model's functions module keeps its import waiting. */
const SLOW_MS = 1500

/** sentiment (the default), slow (a functions module that takes SLOW_MS to import), hostile (refused at load). */
function makeRepository (): string {
  const root = mkdtempSync(path.join(tmpdir(), 'tfidf-ready-'))
  mkdirSync(path.join(root, 'sentiment'))
  for (const f of ['final_best_model.pkl', 'tfidf_vectorizer.pkl']) copyFileSync(path.join(ROOT, 'models', f), path.join(root, 'sentiment', f))
  cpSync(path.join(FIXTURES, 'apps', '1.2.1', 'preprocessor-main'), path.join(root, 'slow'), { recursive: true })
  writeFileSync(path.join(root, 'slow', 'model-settings.json'), JSON.stringify({ name: 'slow', parameters: { version: '1', extra: { tfidf_serve: { functions: 'functions.mjs' } } } }))
  writeFileSync(path.join(root, 'slow', 'functions.mjs'), `await new Promise(resolve => setTimeout(resolve, ${SLOW_MS}))\nexport const functions = { '__main__.clean_text': text => text.toLowerCase() }\n`)
  mkdirSync(path.join(root, 'hostile'))
  copyFileSync(path.join(FIXTURES, 'hostile', 'self-list.pkl'), path.join(root, 'hostile', 'model.pkl'))
  return root
}

async function readyPorts (run: Run): Promise<{ port: number, grpcPort: number }> {
  const until = Date.now() + 20000
  while (Date.now() < until) {
    const line = logLines(run).find(l => l.msg === 'ready')
    if (line !== undefined) return { port: line.port as number, grpcPort: line.grpc_port as number }
    await new Promise(resolve => setTimeout(resolve, 10))
  }
  throw new Error(`not ready: ${run.stderr()}`)
}

/** The slow model's state in the repository index. */
async function slowState (port: number): Promise<string> {
  const index = await (await fetch(`http://127.0.0.1:${port}/v2/repository/index`, { method: 'POST' })).json() as Array<{ name: string, state: string }>
  return index.find(e => e.name === 'slow')?.state ?? 'unknown'
}

/**
 * What every readiness probe says now: REST, gRPC ServerReady, gRPC health for "", and the slow
 * model's state read after all three have answered (a model's load only moves forward, so
 * LOADING then means it was loading while each probe answered); `settledBefore`: it had already
 * settled before the first probe was sent, so the three must agree.
 */
async function probes (port: number, grpcPort: number): Promise<{ rest: number, grpc: boolean, health: string, slow: string, settledBefore: boolean }> {
  const inference = clientOf(SERVICES.inference, grpcPort)
  const health = clientOf(SERVICES.health, grpcPort)
  try {
    const before = await slowState(port)
    const [rest, grpc, check] = await Promise.all([
      fetch(`http://127.0.0.1:${port}/v2/health/ready`).then(r => r.status),
      unary<{ ready: boolean }>(inference, 'ServerReady', {}),
      unary<{ status: string }>(health, 'Check', { service: '' })
    ])
    return { rest, grpc: grpc.ready, health: check.status, slow: await slowState(port), settledBefore: before !== 'LOADING' }
  } finally {
    inference.close()
    health.close()
  }
}

/** A probe's answers without `settledBefore`. */
const answers = ({ settledBefore: _, ...rest }: Awaited<ReturnType<typeof probes>>): Omit<Awaited<ReturnType<typeof probes>>, 'settledBefore'> => rest

describe('server readiness', function () {
  this.timeout(60000)
  let root: string

  beforeEach(() => { root = makeRepository() })
  afterEach(() => { rmSync(root, { recursive: true, force: true }) })

  it('is not ready while a model found at start-up still loads, on every probe, and is once it has', async () => {
    const run = start({ MODEL_REPOSITORY: root, DEFAULT_MODEL: 'sentiment', GRPC_PORT: '0', WORKERS: '1' })
    try {
      const { port, grpcPort } = await readyPorts(run)
      const first = answers(await probes(port, grpcPort))
      expect(first).to.deep.equal({ rest: 503, grpc: false, health: 'NOT_SERVING', slow: 'LOADING' })
      // Every answer until ready agrees, and none says ready while slow still loads.
      const seen: Array<Awaited<ReturnType<typeof probes>>> = []
      for (const end = Date.now() + 20000; Date.now() < end;) {
        const now = await probes(port, grpcPort)
        seen.push(now)
        if (now.rest === 200) break
        await new Promise(resolve => setTimeout(resolve, 100))
      }
      const last = seen[seen.length - 1]!
      expect(answers(last)).to.deep.equal({ rest: 200, grpc: true, health: 'SERVING', slow: 'READY' })
      // None says ready while slow loads; once it had settled before a probe, all three agree (a
      // probe sent while it settled may find some answers before and some after).
      for (const s of seen) {
        const ready = [s.rest === 200, s.grpc, s.health === 'SERVING']
        if (s.slow === 'LOADING') expect(ready, JSON.stringify(s)).to.deep.equal([false, false, false])
        else if (s.settledBefore) expect(ready, JSON.stringify(s)).to.deep.equal([s.rest === 200, s.rest === 200, s.rest === 200])
      }
      // The hostile model's failed load does not hold readiness back by default.
      const body = await (await fetch(`http://127.0.0.1:${port}/v2/health/ready`)).json()
      expect(body).to.deep.equal({ ready: true })
    } finally {
      run.child.kill('SIGTERM')
      await run.exit
    }
  })

  it('with STRICT_READINESS, is not ready while a model is UNAVAILABLE, and is once that model is unloaded on request', async () => {
    const run = start({ MODEL_REPOSITORY: root, DEFAULT_MODEL: 'sentiment', GRPC_PORT: '0', WORKERS: '1', STRICT_READINESS: 'true' })
    try {
      const { port, grpcPort } = await readyPorts(run)
      const url = `http://127.0.0.1:${port}`
      // Settled: slow READY, hostile UNAVAILABLE.
      for (const end = Date.now() + 20000; Date.now() < end;) {
        const index = await (await fetch(`${url}/v2/repository/index`, { method: 'POST' })).json() as Array<{ name: string, state: string }>
        if (!index.some(e => e.state === 'LOADING')) break
        await new Promise(resolve => setTimeout(resolve, 100))
      }
      const settled = answers(await probes(port, grpcPort))
      expect(settled).to.deep.equal({ rest: 503, grpc: false, health: 'NOT_SERVING', slow: 'READY' })
      expect((await fetch(`${url}/v2/repository/models/hostile/unload`, { method: 'POST' })).status).to.equal(200)
      expect(answers(await probes(port, grpcPort))).to.deep.equal({ rest: 200, grpc: true, health: 'SERVING', slow: 'READY' })
    } finally {
      run.child.kill('SIGTERM')
      await run.exit
    }
  })
})
