/**
 * Issue 24's two ceiling targets, measured side by side: the no-op Express ceiling, the same
 * server with the design's worker tasks and nothing else (bench/http/noop-express-worker.ts),
 * tfidf-serve with its defaults and with adaptive batching on, all four running at once and
 * taking 3-second turns in a rotating order; each share of the ceiling is taken within one
 * round (one load of other work for all four) and the median of the rounds reported, with
 * each server's front-thread and whole-process CPU per request. Default model, 2 workers, the
 * result cache off; single texts from 10 clients and batches of 50 from 50, as the targets say.
 */
import { runLoad, type Oracle, type Scenario } from '../lib/load.js'
import type { ModelDir } from '../lib/models.js'
import { cpuMicros, type Server } from '../lib/processes.js'
import { startNoop, startTfidf } from '../lib/servers.js'

export interface CeilingRow {
  readonly server: string
  readonly scenario: string
  readonly requestsPerSecond: number
  /** The median over rounds of this server's requests/s over the ceiling's in the same round. */
  readonly ofCeiling: number
  readonly roundShares: readonly number[]
  readonly frontUsPerRequest: number
  readonly serverUsPerRequest: number
}

export const CEILING_SERVERS = ['no-op Express (the ceiling)', 'no-op Express with the design\'s worker tasks', 'tfidf-serve', 'tfidf-serve, adaptive batching 64 texts / 5 ms'] as const

const SCENARIOS: Scenario[] = [{ name: 'single c10', size: 0, connections: 10 }, { name: 'batch50 c50', size: 50, connections: 50 }]

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

interface Turn { rps: number, front: number, all: number }

export async function ceilingRows (m: ModelDir, texts: readonly string[], oracle: Oracle, turnSeconds: number, rounds: number, progress: (message: string) => void): Promise<CeilingRow[]> {
  const servers: Server[] = []
  const turns = new Map<string, Turn[]>()
  try {
    servers.push(await startNoop('express'), await startNoop('express-worker'), await startTfidf(m, 2), await startTfidf(m, 2, { ADAPTIVE_BATCH_MAX_TEXTS: '64', ADAPTIVE_BATCH_MAX_WAIT_MS: '5' }))
    for (const server of servers) for (const s of SCENARIOS) await runLoad(server.url, s, 1, texts, undefined)
    for (let round = 0; round < rounds; round++) {
      const order = servers.map((_, i) => (i + round) % servers.length)
      if (Math.floor(round / servers.length) % 2 === 1) order.reverse()
      for (const s of SCENARIOS) {
        progress(`ceiling ${s.name}: round ${round + 1} of ${rounds}, ${turnSeconds} s a server`)
        for (const i of order) {
          const server = servers[i]!
          const pid = server.child.pid!
          const front = cpuMicros(pid, pid)
          const all = cpuMicros(pid)
          // Only tfidf-serve's answers are checked: the no-op servers answer a fixed label.
          const f = await runLoad(server.url, s, turnSeconds, texts, i >= 2 ? oracle : undefined)
          if (f.wrong > 0 && i >= 2) throw new Error(`ceiling ${s.name}: ${f.wrong} wrong answers from ${CEILING_SERVERS[i]!}`)
          const requests = f.requestsPerSecond * turnSeconds
          const key = `${CEILING_SERVERS[i]!}\u0000${s.name}`
          turns.set(key, [...(turns.get(key) ?? []), { rps: f.requestsPerSecond, front: (cpuMicros(pid, pid) - front) / requests, all: (cpuMicros(pid) - all) / requests }])
        }
      }
    }
  } finally {
    for (const server of servers) await server.stop()
  }
  return [...turns].map(([key, ts]) => {
    const [server, scenario] = key.split('\u0000') as [string, string]
    const ceiling = turns.get(`${CEILING_SERVERS[0]}\u0000${scenario}`)!
    const shares = ts.map((t, r) => t.rps / ceiling[r]!.rps)
    return {
      server,
      scenario,
      requestsPerSecond: median(ts.map(t => t.rps)),
      ofCeiling: median(shares),
      roundShares: shares.map(x => Math.round(x * 100) / 100),
      frontUsPerRequest: median(ts.map(t => t.front)),
      serverUsPerRequest: median(ts.map(t => t.all))
    }
  })
}
