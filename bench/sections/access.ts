/**
 * What access control costs (issue 19): the default model, 2 workers, keys off against keys on
 * with limits counted in the process and in a real redis-server (limits set far above the
 * load, so every request is admitted and charged). Single texts over 50 connections and
 * batches of 50 over 10; rounds alternate the three servers and report medians. Beside
 * throughput, the server process's CPU time per request (from /proc, all its threads), whose
 * difference from keys off is what a request's key and limits cost.
 */
import type { ModelDir } from '../lib/models.js'
import { runLoad, type Oracle, type Scenario } from '../lib/load.js'
import { cpuMicros as cpuUs } from '../lib/processes.js'
import { startTfidf } from '../lib/servers.js'
import { startRedis } from '../../test/helpers/processes.js'
import { writeKeyFile } from '../../test/helpers/keys.js'

export interface AccessRow {
  readonly server: string
  readonly scenario: string
  readonly textsPerSecond: number
  readonly p99Ms: number
  readonly cpuUsPerRequest: number
  /** The front thread's alone (it bounds single-text throughput; the workers' time is the same either way). */
  readonly frontCpuUsPerRequest: number
  readonly non2xx: number
}

const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]! }

export async function accessRows (m: ModelDir, texts: readonly string[], oracle: Oracle, duration: number, rounds: number, progress: (message: string) => void): Promise<AccessRow[]> {
  const keys = writeKeyFile([{ id: 'bench', scopes: ['predict'] }], { requests_per_second: 1_000_000_000, texts_per_second: 1_000_000_000, texts_per_day: 1_000_000_000_000 })
  const redis = await startRedis()
  const headers = { 'x-api-key': keys.secrets.bench! }
  const configs: Array<{ name: string, env: Record<string, string>, headers: Record<string, string> }> = [
    { name: 'keys off', env: {}, headers: {} },
    { name: 'keys, limits in process', env: { API_KEYS_FILE: keys.file }, headers },
    { name: 'keys, limits in Redis', env: { API_KEYS_FILE: keys.file, REDIS_URL: redis.url }, headers }
  ]
  const scenarios: Scenario[] = [{ name: 'single c50', size: 0, connections: 50 }, { name: 'batch50 c10', size: 50, connections: 10 }]
  const runs = new Map<string, Array<{ tps: number, p99: number, cpu: number, front: number, non2xx: number }>>()
  try {
    for (let round = 0; round < rounds; round++) {
      for (const c of round % 2 === 0 ? configs : [...configs].reverse()) {
        const server = await startTfidf(m, 2, c.env)
        try {
          for (const s of scenarios) {
            progress(`access ${c.name} ${s.name}: ${duration} s (round ${round + 1})`)
            const pid = server.child.pid!
            const before = { all: cpuUs(pid), front: cpuUs(pid, pid) }
            const f = await runLoad(server.url, { ...s, headers: c.headers }, duration, texts, oracle)
            const requests = f.requestsPerSecond * duration
            const key = `${c.name}\u0000${s.name}`
            runs.set(key, [...(runs.get(key) ?? []), { tps: f.textsPerSecond, p99: f.p99, cpu: (cpuUs(pid) - before.all) / requests, front: (cpuUs(pid, pid) - before.front) / requests, non2xx: f.non2xx + f.wrong }])
          }
        } finally {
          await server.stop()
        }
      }
    }
  } finally {
    await redis.kill()
  }
  return [...runs].map(([key, rs]) => {
    const [server, scenario] = key.split('\u0000') as [string, string]
    return { server, scenario, textsPerSecond: median(rs.map(r => r.tps)), p99Ms: median(rs.map(r => r.p99)), cpuUsPerRequest: median(rs.map(r => r.cpu)), frontCpuUsPerRequest: median(rs.map(r => r.front)), non2xx: rs.reduce((n, r) => n + r.non2xx, 0) }
  })
}
