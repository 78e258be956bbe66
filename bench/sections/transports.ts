/**
 * What a text costs the server over each protocol that carries it (issue 23: the one V2 core
 * must cost gRPC no more than before, and the spec's routes nothing; issue 24: V2 within 10% of
 * the spec route): the spec's /predict, V2 REST infer and gRPC ModelInfer (asking for the labels,
 * and for labels and probabilities as MLServer's clients do), each at batches of 50 from 10 concurrent clients on the
 * default model with 2 workers, the server's CPU per text read from /proc (front thread and
 * all threads), for this build and, with TRANSPORTS_BEFORE=<a checkout with dist/>, an older
 * one, interleaved round by round so both meet the same machine; medians over the rounds.
 */
import autocannon from 'autocannon'
import type { ModelDir } from '../lib/models.js'
import { costPerText, freePort } from '../lib/processes.js'
import { startTfidf } from '../lib/servers.js'
import { grpcLoad } from './repository.js'

export interface TransportRow {
  readonly build: string
  readonly protocol: string
  readonly textsPerSecond: number
  readonly frontUs: number
  readonly serverUs: number
}

const CONNECTIONS = 10

/** MLServer's shape of a scikit-learn request: the labels and the probabilities (issue 24 measured V2 so). */
const WITH_PROBA = ['predict', 'predict_proba']

async function restLoad (url: string, route: 'predict' | 'v2', texts: readonly string[], seconds: number, outputs: readonly string[] = ['predict']): Promise<number> {
  let k = 0
  const batch = (): string[] => Array.from({ length: 50 }, () => `${texts[k % texts.length]!} ${k++}`)
  const r = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [{
      method: 'POST',
      path: route === 'predict' ? '/predict' : '/v2/models/default/infer',
      headers: { 'content-type': 'application/json' },
      setupRequest: req => ({ ...req, body: JSON.stringify(route === 'predict' ? { texts: batch(), batch_size: 10 } : { inputs: [{ name: 'text', shape: [50], datatype: 'BYTES', data: batch() }], outputs: outputs.map(name => ({ name })) }) })
    }]
  })
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${route}: ${r.non2xx} non-2xx, ${r.errors} errors`)
  return r.requests.average * 50
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

export async function transportRows (m: ModelDir, builds: ReadonlyArray<{ label: string, root?: string }>, texts: readonly string[], seconds: number, rounds: number, progress: (m: string) => void): Promise<TransportRow[]> {
  const samples = new Map<string, Array<{ rate: number, frontUs: number, serverUs: number }>>()
  const add = (build: string, protocol: string, s: { rate: number, frontUs: number, serverUs: number }): void => {
    const key = `${build}\u0000${protocol}`
    samples.set(key, [...(samples.get(key) ?? []), s])
  }
  for (let round = 1; round <= rounds; round++) {
    for (const build of builds) {
      progress(`transports: round ${round} of ${rounds}, ${build.label}`)
      const grpcPort = await freePort()
      const server = await startTfidf(m, 2, { GRPC_PORT: String(grpcPort) }, build.root)
      try {
        const pid = server.child.pid!
        for (const [protocol, run] of [
          ['spec /predict', async () => await restLoad(server.url, 'predict', texts, seconds)],
          ['V2 REST infer', async () => await restLoad(server.url, 'v2', texts, seconds)],
          ['V2 REST infer, predict + predict_proba', async () => await restLoad(server.url, 'v2', texts, seconds, WITH_PROBA)],
          ['gRPC ModelInfer', async () => await grpcLoad(grpcPort, texts, seconds, 'default', CONNECTIONS)],
          ['gRPC ModelInfer, predict + predict_proba', async () => await grpcLoad(grpcPort, texts, seconds, 'default', CONNECTIONS, WITH_PROBA)]
        ] as const) {
          const r = await costPerText(pid, async () => { const rate = await run(); return { rate, texts: rate * seconds } })
          add(build.label, protocol, { rate: r.rate, frontUs: r.frontUs, serverUs: r.serverUs })
        }
      } finally {
        await server.stop()
      }
    }
  }
  return [...samples].map(([key, s]) => {
    const [build, protocol] = key.split('\u0000') as [string, TransportRow['protocol']]
    return { build, protocol, textsPerSecond: median(s.map(x => x.rate)), frontUs: median(s.map(x => x.frontUs)), serverUs: median(s.map(x => x.serverUs)) }
  })
}
