/**
 * Many models in one process (issue 17's targets): ten copies of the 200,000-feature model in
 * a repository served by 2 workers: the time until every one is READY and the RSS once
 * settled; V2 infer beside /predict at batches of 50 (50 connections); a reload under that
 * load (failed requests, p99 during against steady); ModelInfer over gRPC beside them; and RSS
 * after unloading nine of them.
 */
import autocannon from 'autocannon'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout } from 'node:timers/promises'
import { modelFiles, type ModelDir } from '../lib/models.js'
import { costPerText, freePort, startServer } from '../lib/processes.js'
import { SERVER_ENV, SERVER_NODE_FLAGS, serviceEntry } from '../lib/servers.js'
import { credentials, type Client } from '@grpc/grpc-js'
import { loadServices } from '../../src/grpc/protos.js'

export interface RepositoryFigures {
  readonly models: number
  readonly allReadySeconds: number
  readonly rssSettledMb: number
  readonly predictTextsPerSecond: number
  readonly v2TextsPerSecond: number
  /** ModelInfer over gRPC at batches of 50 from 50 concurrent calls (a @grpc/grpc-js client in this process, texts in raw_input_contents as tritonclient sends them). */
  readonly grpcTextsPerSecond: number
  /** What a text cost the server's front thread, all its threads, and the load generator, in us: V2 REST and gRPC. */
  readonly v2Cost: { frontUs: number, serverUs: number, clientUs: number }
  readonly grpcCost: { frontUs: number, serverUs: number, clientUs: number }
  readonly steadyP99Ms: number
  readonly reloadP99Ms: number
  readonly reloadNon2xx: number
  readonly reloadErrors: number
  readonly rssAfterUnloadMb: number
  /** With the nine loaded again, and once they are unloaded again (settled): what a load and unload leaves. */
  readonly rssReloadedMb: number
  readonly rssAfterSecondUnloadMb: number
}

async function load (url: string, route: 'predict' | 'v2', texts: readonly string[], seconds: number, during?: () => Promise<void>): Promise<{ textsPerSecond: number, p99: number, non2xx: number, errors: number }> {
  let k = 0
  const batch = (): string[] => Array.from({ length: 50 }, () => `${texts[k % texts.length]!} ${k++}`)
  const running = autocannon({
    url,
    connections: 50,
    duration: seconds,
    timeout: 30,
    requests: [{
      method: 'POST',
      path: route === 'predict' ? '/models/m0/predict' : '/v2/models/m0/infer',
      headers: { 'content-type': 'application/json' },
      setupRequest: req => ({ ...req, body: JSON.stringify(route === 'predict' ? { texts: batch(), batch_size: 10 } : { inputs: [{ name: 'text', shape: [50], datatype: 'BYTES', data: batch() }], outputs: [{ name: 'predict' }] }) })
    }]
  })
  if (during !== undefined) await during()
  const r = await running
  return { textsPerSecond: r.requests.average * 50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts }
}

/** ModelInfer calls of `size` texts (50 unless said) to `model`, `concurrency` at a time, for `seconds`: texts per second. */
export async function grpcLoad (port: number, texts: readonly string[], seconds: number, model = 'm0', concurrency = 50, outputs: readonly string[] = ['predict'], size = 50): Promise<number> {
  const client = new (loadServices().inference)(`127.0.0.1:${port}`, credentials.createInsecure()) as Client & Record<string, (m: object, cb: (err: Error | null) => void) => void>
  let k = 0
  let done = 0
  const until = performance.now() + seconds * 1000
  const call = async (): Promise<void> => {
    while (performance.now() < until) {
      // tritonclient's layout: one raw_input_contents buffer, a 4-byte little-endian length before each text
      const raw = Buffer.concat(Array.from({ length: size }, () => {
        const text = Buffer.from(`${texts[k % texts.length]!} ${k++}`)
        const length = Buffer.alloc(4)
        length.writeUInt32LE(text.length)
        return Buffer.concat([length, text])
      }))
      await new Promise<void>((resolve, reject) => {
        client.ModelInfer!({ model_name: model, inputs: [{ name: 'text', datatype: 'BYTES', shape: [size] }], raw_input_contents: [raw], outputs: outputs.map(name => ({ name })) }, err => { if (err === null) resolve(); else reject(err) })
      })
      done += size
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: concurrency }, call))
  const rate = done / ((performance.now() - started) / 1000)
  client.close()
  return rate
}

export async function repositoryRows (large: ModelDir, texts: readonly string[], seconds: number, settle: number, progress: (m: string) => void): Promise<RepositoryFigures> {
  const root = mkdtempSync(path.join(tmpdir(), 'tfidf-bench-repo-'))
  const { model, vectorizer } = modelFiles(large)
  const models = 10
  for (let i = 0; i < models; i++) {
    mkdirSync(path.join(root, `m${i}`))
    copyFileSync(model, path.join(root, `m${i}`, 'final_best_model.pkl'))
    copyFileSync(vectorizer, path.join(root, `m${i}`, 'tfidf_vectorizer.pkl'))
  }
  const port = await freePort()
  const grpcPort = await freePort()
  progress(`repository: ${models} models of ${large.description}, 2 workers`)
  const started = performance.now()
  const server = await startServer('tfidf-serve (repository)', process.execPath, [...SERVER_NODE_FLAGS, serviceEntry()], { ...SERVER_ENV, PORT: String(port), HOST: '127.0.0.1', MODEL_REPOSITORY: root, DEFAULT_MODEL: 'm0', GRPC_PORT: String(grpcPort), WORKERS: '2', CACHE_SIZE: '0', LOG_LEVEL: 'warn' }, port)
  try {
    for (;;) {
      const listed = (await (await fetch(`${server.url}/models`)).json()) as { models: Array<{ state: string }> }
      // Every folder listed (the repository lists them once it has scanned, after the default model serves) and READY.
      if (listed.models.length === models && listed.models.every(m => m.state === 'READY')) break
      await setTimeout(50)
    }
    const allReadySeconds = (performance.now() - started) / 1000
    await setTimeout(settle * 1000)
    const rssSettledMb = server.rssBytes() / 1e6
    progress(`repository: /predict and V2 infer at batches of 50, ${seconds} s each`)
    await load(server.url, 'predict', texts, 1)
    const predict = await load(server.url, 'predict', texts, seconds)
    const pid = server.child.pid!
    const v2 = await costPerText(pid, async () => { const r = await load(server.url, 'v2', texts, seconds); return { ...r, texts: r.textsPerSecond * seconds } })
    const grpc = await costPerText(pid, async () => { const rate = await grpcLoad(grpcPort, texts, seconds); return { rate, texts: rate * seconds } })
    progress('repository: a reload of m0 under the same load')
    const reload = await load(server.url, 'v2', texts, seconds, async () => {
      await setTimeout(seconds * 300)
      await fetch(`${server.url}/v2/repository/models/m0/load`, { method: 'POST' })
    })
    for (let i = 1; i < models; i++) await fetch(`${server.url}/v2/repository/models/m${i}/unload`, { method: 'POST' })
    await setTimeout(settle * 1000)
    const rssAfterUnloadMb = server.rssBytes() / 1e6
    // What a load and unload leaves behind: the nine loaded again (their workers create them), unloaded again.
    progress('repository: the nine loaded and unloaded again')
    for (let i = 1; i < models; i++) await fetch(`${server.url}/v2/repository/models/m${i}/load`, { method: 'POST' })
    const rssReloadedMb = server.rssBytes() / 1e6
    for (let i = 1; i < models; i++) await fetch(`${server.url}/v2/repository/models/m${i}/unload`, { method: 'POST' })
    await setTimeout(settle * 1000)
    return {
      models,
      allReadySeconds,
      rssSettledMb,
      predictTextsPerSecond: predict.textsPerSecond,
      v2TextsPerSecond: v2.textsPerSecond,
      grpcTextsPerSecond: grpc.rate,
      v2Cost: { frontUs: v2.frontUs, serverUs: v2.serverUs, clientUs: v2.clientUs },
      grpcCost: { frontUs: grpc.frontUs, serverUs: grpc.serverUs, clientUs: grpc.clientUs },
      steadyP99Ms: v2.p99,
      reloadP99Ms: reload.p99,
      reloadNon2xx: reload.non2xx,
      reloadErrors: reload.errors,
      rssAfterUnloadMb,
      rssReloadedMb,
      rssAfterSecondUnloadMb: server.rssBytes() / 1e6
    }
  } finally {
    await server.stop()
    rmSync(root, { recursive: true, force: true })
  }
}
