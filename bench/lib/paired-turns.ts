/**
 * Several servers measured side by side: all running at once, each taking a short turn under
 * the same load, round after round, in an order that rotates (each server takes each place
 * equally often, forwards and backwards). On a machine other work shares, throughput drifts by
 * tens of percent over minutes; a round of a few seconds sees one load for all, so a ratio
 * taken within a round compares like with like.
 */
import { runLoad, type LoadFigures, type Oracle, type Scenario } from './load.js'
import { cpuMicros, type Server } from './processes.js'

export interface Turn {
  readonly load: LoadFigures
  /** CPU per request over the turn: the server's front (main) thread, and all its threads. */
  readonly frontUs: number
  readonly serverUs: number
}

/**
 * `rounds` rounds of one `turnSeconds` turn per server and scenario, after a second of
 * unrecorded load on each (the JIT warmed up); `oracleOf(i)` checks server i's answers.
 * Turns come back as turns[server][scenario][round].
 */
export async function pairedTurns (servers: readonly Server[], scenarios: readonly Scenario[], texts: readonly string[], turnSeconds: number, rounds: number, oracleOf: (server: number) => Oracle, progress: (scenario: Scenario, round: number) => void): Promise<Turn[][][]> {
  const turns: Turn[][][] = servers.map(() => scenarios.map(() => []))
  for (const server of servers) for (const s of scenarios) await runLoad(server.url, s, 1, texts, undefined)
  for (let round = 0; round < rounds; round++) {
    const order = servers.map((_, i) => (i + round) % servers.length)
    if (Math.floor(round / servers.length) % 2 === 1) order.reverse()
    for (const [k, s] of scenarios.entries()) {
      progress(s, round)
      for (const i of order) {
        const pid = servers[i]!.child.pid!
        const front = cpuMicros(pid, pid)
        const all = cpuMicros(pid)
        const load = await runLoad(servers[i]!.url, s, turnSeconds, texts, oracleOf(i))
        const requests = load.requestsPerSecond * turnSeconds
        turns[i]![k]!.push({ load, frontUs: (cpuMicros(pid, pid) - front) / requests, serverUs: (cpuMicros(pid) - all) / requests })
      }
    }
  }
  return turns
}

export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** Each round's `of(turn)` over the reference's in the same round. */
export function roundRatios (turns: readonly Turn[], reference: readonly Turn[], of: (turn: Turn) => number): number[] {
  return turns.map((t, r) => of(t) / of(reference[r]!))
}
