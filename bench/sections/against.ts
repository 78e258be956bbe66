/**
 * `npm run bench -- --against REF`: this build beside other commits' builds, each started as
 * its own `npm start` starts it (`--node-flags '...'` adds this build under other node flags,
 * `--mlserver PYTHON` MLServer), all running at once and taking short turns under the same
 * load in a rotating order, round after round (paired-turns.ts says why). The figure is texts
 * per second of the server's CPU (all its threads and processes, from /proc): what a text
 * costs, which the load generator sharing the cores moves far less than texts per second.
 */
import autocannon from 'autocannon'
import { startCommand } from '../lib/checkout.js'
import { modelFiles, type ModelDir } from '../lib/models.js'
import { median } from '../lib/paired-turns.js'
import { freePort, startServer, treeCpuMicros, type Server } from '../lib/processes.js'
import { grpcLoad } from './repository.js'
import { startMlserver } from '../lib/mlserver.js'

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

/** A server to measure: a build (its checkout's root), started as its npm start starts it, or with `nodeFlags` instead of its flags and `env` added. */
export interface Contender {
  readonly label: string
  readonly root: string
  readonly nodeFlags?: readonly string[]
  /** Set on top of its npm start's environment. */
  readonly env?: Readonly<Record<string, string>>
  /** MLServer instead of a build: the Python it runs under (it serves V2 and gRPC, not the spec's routes). */
  readonly mlserverPython?: string
}

export interface ContenderFigures {
  readonly label: string
  readonly textsPerCpuSecond: number
  readonly textsPerSecond: number
  /** Per round: texts per server-CPU-second over the first contender's in the same round. */
  readonly ratios: number[]
  /** Resident memory after the last round, MB. */
  readonly rssMb: number
}

export interface AgainstRow {
  readonly scenario: string
  /** In the order the contenders were given; the first is the reference. */
  readonly contenders: ContenderFigures[]
}

interface Started { readonly server: Server, readonly grpcPort: number, readonly v2Only?: boolean }

async function startContender (c: Contender, m: ModelDir): Promise<Started> {
  if (c.mlserverPython !== undefined) return { ...await startMlserver(c.mlserverPython, m), v2Only: true }
  const { env, nodeFlags, entry } = startCommand(c.root)
  const port = await freePort()
  const grpcPort = await freePort()
  const { model, vectorizer } = modelFiles(m)
  const server = await startServer(c.label, process.execPath, [...(c.nodeFlags ?? nodeFlags), entry],
    { ...env, ...c.env, PORT: String(port), GRPC_PORT: String(grpcPort), HOST: '127.0.0.1', MODEL_PATH: model, VECTORIZER_PATH: vectorizer, WORKERS: '2', CACHE_SIZE: '0', LOG_LEVEL: 'warn' }, port)
  return { server, grpcPort }
}

/** One turn of `s` on a server: how many texts it answered (NaN: a route it does not serve). Unique texts (a serial number each). */
async function turn (started: Started, s: AgainstScenario, texts: readonly string[], seconds: number): Promise<number> {
  if (started.v2Only === true && s.protocol === 'spec') return NaN
  const n = Math.max(1, s.size)
  if (s.protocol === 'grpc') return await grpcLoad(started.grpcPort, texts, seconds, 'default', s.connections, WITH_PROBA, n) * seconds
  let k = 0
  const batch = (): string[] => Array.from({ length: n }, () => `${texts[k % texts.length]!} ${k++}`)
  const body = (): string => {
    if (s.protocol === 'v2') return JSON.stringify({ inputs: [{ name: 'text', shape: [n], datatype: 'BYTES', data: batch(), parameters: { content_type: 'str' } }], outputs: WITH_PROBA.map(name => ({ name })) })
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

/**
 * Every contender running at once, `rounds` rounds of one `seconds`-long turn each per
 * scenario, the order rotating by round (each takes each place, forwards and backwards).
 */
export async function againstRows (contenders: readonly Contender[], m: ModelDir, texts: readonly string[], seconds: number, rounds: number, progress: (m: string) => void, scenarios = AGAINST_SCENARIOS): Promise<AgainstRow[]> {
  const started: Started[] = []
  try {
    for (const c of contenders) started.push(await startContender(c, m))
    for (const b of started) for (const s of scenarios) await turn(b, s, texts, 1)
    // samples[contender][scenario], one per round
    const samples = started.map(() => scenarios.map(() => [] as Array<{ texts: number, cpuUs: number }>))
    for (let round = 0; round < rounds; round++) {
      const order = started.map((_, i) => (i + round) % started.length)
      if (Math.floor(round / started.length) % 2 === 1) order.reverse()
      for (const [k, s] of scenarios.entries()) {
        progress(`side by side: round ${round + 1} of ${rounds}, ${s.name}`)
        for (const i of order) {
          const pid = started[i]!.server.child.pid!
          const cpu = treeCpuMicros(pid)
          const done = await turn(started[i]!, s, texts, seconds)
          // MLServer's workers are processes: its CPU is the whole tree's.
          samples[i]![k]!.push({ texts: done, cpuUs: treeCpuMicros(pid) - cpu })
        }
      }
    }
    const perCpuSecond = (x: { texts: number, cpuUs: number }): number => x.texts / (x.cpuUs / 1e6)
    return scenarios.map((s, k): AgainstRow => ({
      scenario: s.name,
      contenders: contenders.map((c, i) => {
        const mine = samples[i]![k]!
        const first = samples[0]![k]!
        return {
          label: c.label,
          textsPerCpuSecond: median(mine.map(perCpuSecond)),
          textsPerSecond: median(mine.map(x => x.texts / seconds)),
          ratios: mine.map((x, r) => perCpuSecond(x) / perCpuSecond(first[r]!)),
          rssMb: started[i]!.server.rssBytes() / 1e6
        }
      })
    }))
  } finally {
    for (const b of started) await b.server.stop()
  }
}
