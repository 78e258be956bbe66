/**
 * `npm run bench -- --against REF`: this build beside another commit's, both running at once,
 * each started as its own `npm start` starts it, taking short turns under the same load in a
 * rotating order, round after round (paired-turns.ts says why). The figure is texts per second
 * of the server's CPU (all its threads, from /proc): what a text costs, which the load
 * generator sharing the cores moves far less than it moves texts per second.
 */
import autocannon from 'autocannon'
import { startCommand, type Checkout } from '../lib/checkout.js'
import type { ModelDir } from '../lib/models.js'
import { modelFiles } from '../lib/models.js'
import { median } from '../lib/paired-turns.js'
import { cpuMicros, freePort, startServer, type Server } from '../lib/processes.js'
import { ROOT } from '../lib/corpus.js'
import { grpcLoad } from './repository.js'

export interface AgainstScenario {
  readonly name: string
  readonly protocol: 'spec' | 'v2' | 'grpc'
  /** Texts per request; 0 is the spec's single form ({"text"}), or one text in V2 and gRPC. */
  readonly size: number
  readonly connections: number
}

/** MLServer's shape of a scikit-learn request: the labels and the probabilities. */
const WITH_PROBA = ['predict', 'predict_proba']

export const AGAINST_SCENARIOS: readonly AgainstScenario[] = [
  { name: 'spec single @10', protocol: 'spec', size: 0, connections: 10 },
  { name: 'spec batch 50 @50', protocol: 'spec', size: 50, connections: 50 },
  { name: 'V2 single @10 (predict + proba)', protocol: 'v2', size: 0, connections: 10 },
  { name: 'V2 batch 50 @50 (predict + proba)', protocol: 'v2', size: 50, connections: 50 },
  { name: 'gRPC batch 50 @50 (predict + proba)', protocol: 'grpc', size: 50, connections: 50 }
]

export interface AgainstRow {
  readonly scenario: string
  /** Per round: this build's texts per server-CPU-second over the other's. */
  readonly ratios: number[]
  readonly thisTextsPerCpuSecond: number
  readonly otherTextsPerCpuSecond: number
  readonly thisTextsPerSecond: number
  readonly otherTextsPerSecond: number
  /** Resident memory of each after the last round, MB. */
  readonly thisRssMb: number
  readonly otherRssMb: number
}

interface Started { readonly server: Server, readonly grpcPort: number }

async function startBuild (label: string, root: string, m: ModelDir): Promise<Started> {
  const { env, nodeFlags, entry } = startCommand(root)
  const port = await freePort()
  const grpcPort = await freePort()
  const { model, vectorizer } = modelFiles(m)
  const server = await startServer(label, process.execPath, [...nodeFlags, entry],
    { ...env, PORT: String(port), GRPC_PORT: String(grpcPort), HOST: '127.0.0.1', MODEL_PATH: model, VECTORIZER_PATH: vectorizer, WORKERS: '2', CACHE_SIZE: '0', LOG_LEVEL: 'warn' }, port)
  return { server, grpcPort }
}

/** One turn of `s` on a server: how many texts it answered. Unique texts (a serial number each). */
async function turn (started: Started, s: AgainstScenario, texts: readonly string[], seconds: number): Promise<number> {
  const n = Math.max(1, s.size)
  if (s.protocol === 'grpc') return await grpcLoad(started.grpcPort, texts, seconds, 'default', s.connections, WITH_PROBA, n) * seconds
  let k = 0
  const batch = (): string[] => Array.from({ length: n }, () => `${texts[k % texts.length]!} ${k++}`)
  const body = (): string => {
    if (s.protocol === 'v2') return JSON.stringify({ inputs: [{ name: 'text', shape: [n], datatype: 'BYTES', data: batch() }], outputs: WITH_PROBA.map(name => ({ name })) })
    return JSON.stringify(s.size === 0 ? { text: batch()[0] } : { texts: batch(), batch_size: 10 })
  }
  const r = await autocannon({
    url: started.server.url,
    connections: s.connections,
    duration: seconds,
    timeout: 30,
    requests: [{
      method: 'POST',
      path: s.protocol === 'v2' ? '/v2/models/default/infer' : '/predict',
      headers: { 'content-type': 'application/json' },
      setupRequest: req => ({ ...req, body: body() })
    }]
  })
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${started.server.name}, ${s.name}: ${r.non2xx} non-2xx, ${r.errors} errors`)
  return r.requests.total * n
}

/** This build (the checkout at `root`) against `other`, `rounds` rounds of `seconds`-long turns per scenario. */
export async function againstRows (other: Checkout, m: ModelDir, texts: readonly string[], seconds: number, rounds: number, progress: (m: string) => void, scenarios = AGAINST_SCENARIOS, root = ROOT): Promise<{ other: Checkout, rows: AgainstRow[] }> {
  const builds = [await startBuild('this build', root, m), await startBuild(other.label, other.root, m)]
  try {
    for (const b of builds) for (const s of scenarios) await turn(b, s, texts, 1)
    // samples[build][scenario]: per round, [texts, server CPU us, seconds]
    const samples = builds.map(() => scenarios.map(() => [] as Array<{ texts: number, cpuUs: number }>))
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0]
      for (const [k, s] of scenarios.entries()) {
        progress(`against ${other.label}: round ${round + 1} of ${rounds}, ${s.name}`)
        for (const i of order) {
          const pid = builds[i]!.server.child.pid!
          const cpu = cpuMicros(pid)
          const done = await turn(builds[i]!, s, texts, seconds)
          samples[i]![k]!.push({ texts: done, cpuUs: cpuMicros(pid) - cpu })
        }
      }
    }
    const perCpuSecond = (x: { texts: number, cpuUs: number }): number => x.texts / (x.cpuUs / 1e6)
    const rows = scenarios.map((s, k): AgainstRow => {
      const mine = samples[0]![k]!
      const theirs = samples[1]![k]!
      return {
        scenario: s.name,
        ratios: mine.map((x, r) => perCpuSecond(x) / perCpuSecond(theirs[r]!)),
        thisTextsPerCpuSecond: median(mine.map(perCpuSecond)),
        otherTextsPerCpuSecond: median(theirs.map(perCpuSecond)),
        thisTextsPerSecond: median(mine.map(x => x.texts / seconds)),
        otherTextsPerSecond: median(theirs.map(x => x.texts / seconds)),
        thisRssMb: builds[0]!.server.rssBytes() / 1e6,
        otherRssMb: builds[1]!.server.rssBytes() / 1e6
      }
    })
    return { other, rows }
  } finally {
    for (const b of builds) await b.server.stop()
  }
}
