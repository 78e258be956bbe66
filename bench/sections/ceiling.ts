/**
 * Issue 24's two ceiling targets, measured side by side: the no-op Express ceiling, the same
 * server with the design's worker tasks and nothing else (bench/http/noop-express-worker.ts),
 * the same with the workers classifying each text with the model (the model's own work and
 * nothing of the service's on the front thread), the same doing what the spec asks of every
 * request and nothing more (bench/http/spec-floor.ts: the service's body reader, schemas,
 * headers, Prometheus series and answer), tfidf-serve with its defaults and with adaptive
 * batching on, all six running at once and
 * taking 3-second turns in a rotating order; each share of the ceiling is taken within one
 * round (one load of other work for all four) and the median of the rounds reported, with
 * each server's front-thread and whole-process CPU per request. Default model, 2 workers, the
 * result cache off; single texts from 10 clients and batches of 50 from 50, as the targets say.
 */
import type { Oracle, Scenario } from '../lib/load.js'
import type { ModelDir } from '../lib/models.js'
import { median, pairedTurns, roundRatios, type Turn } from '../lib/paired-turns.js'
import type { Server } from '../lib/processes.js'
import { startNoop, startSpecFloor, startTfidf } from '../lib/servers.js'

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

export const CEILING_SERVERS = ['no-op Express (the ceiling)', 'no-op Express with the design\'s worker tasks', 'the same, the workers classifying with the model', 'the same, doing what the spec asks of every request', 'tfidf-serve', 'tfidf-serve, adaptive batching 64 texts / 5 ms'] as const

const SCENARIOS: Scenario[] = [{ name: 'single c10', size: 0, connections: 10 }, { name: 'batch50 c50', size: 50, connections: 50 }]

export async function ceilingRows (m: ModelDir, texts: readonly string[], oracle: Oracle, turnSeconds: number, rounds: number, progress: (message: string) => void): Promise<CeilingRow[]> {
  const servers: Server[] = []
  let turns: Turn[][][]
  try {
    servers.push(await startNoop('express'), await startNoop('express-worker'), await startNoop('express-worker', m), await startSpecFloor(m), await startTfidf(m, 2), await startTfidf(m, 2, { ADAPTIVE_BATCH_MAX_TEXTS: '64', ADAPTIVE_BATCH_MAX_WAIT_MS: '5' }))
    // The answers of the spec floor and tfidf-serve are checked: the no-op servers answer a fixed label.
    turns = await pairedTurns(servers, SCENARIOS, texts, turnSeconds, rounds, i => i >= 3 ? oracle : undefined, (s, round) => { progress(`ceiling ${s.name}: round ${round + 1} of ${rounds}, ${turnSeconds} s a server`) })
  } finally {
    for (const server of servers) await server.stop()
  }
  return SCENARIOS.flatMap((s, k) => CEILING_SERVERS.map((server, i) => {
    const ts = turns[i]![k]!
    const wrong = ts.reduce((n, t) => n + t.load.wrong, 0)
    if (wrong > 0) throw new Error(`ceiling ${s.name}: ${wrong} wrong answers from ${server}`)
    const shares = roundRatios(ts, turns[0]![k]!, t => t.load.requestsPerSecond)
    return {
      server,
      scenario: s.name,
      requestsPerSecond: median(ts.map(t => t.load.requestsPerSecond)),
      ofCeiling: median(shares),
      roundShares: shares.map(x => Math.round(x * 100) / 100),
      frontUsPerRequest: median(ts.map(t => t.frontUs)),
      serverUsPerRequest: median(ts.map(t => t.serverUs))
    }
  }))
}
