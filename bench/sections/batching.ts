/**
 * Adaptive batching (issue 24): the spec's /predict with single texts from 10 and 50 clients
 * and batches of 50 from 50 clients, with ADAPTIVE_BATCH_MAX_TEXTS off and at the settings
 * given, default model, 2 workers; texts/s, p99, the server's CPU per text (front thread and
 * all threads) and the mean texts per worker task (from tfidf_worker_task_texts), interleaved
 * round by round so every setting meets the same machine; medians over the rounds.
 */
import type { Oracle, Scenario } from '../lib/load.js'
import { runLoad } from '../lib/load.js'
import type { ModelDir } from '../lib/models.js'
import { costPerText } from '../lib/processes.js'
import { startTfidf } from '../lib/servers.js'

export interface BatchingSetting {
  readonly label: string
  readonly maxTexts: number
  readonly maxWaitMs: number
}

export interface BatchingRow {
  readonly setting: string
  readonly scenario: string
  readonly textsPerSecond: number
  readonly p99Ms: number
  readonly frontUs: number
  readonly serverUs: number
  readonly textsPerTask: number
}

export const BATCHING_SCENARIOS: Scenario[] = [
  { name: 'single c10', size: 0, connections: 10 },
  { name: 'single c50', size: 0, connections: 50 },
  { name: 'batch50 c50', size: 50, connections: 50 }
]

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** Sum and count of a histogram in a Prometheus text exposition. */
async function histogram (url: string, name: string): Promise<{ sum: number, count: number }> {
  const text = await (await fetch(`${url}/metrics?format=prometheus`)).text()
  const read = (suffix: string): number => Number(new RegExp(`^${name}_${suffix}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN)
  return { sum: read('sum'), count: read('count') }
}

export async function batchingRows (m: ModelDir, settings: readonly BatchingSetting[], texts: readonly string[], oracle: Oracle, seconds: number, rounds: number, progress: (m: string) => void): Promise<BatchingRow[]> {
  const samples = new Map<string, Array<Omit<BatchingRow, 'setting' | 'scenario'>>>()
  for (let round = 1; round <= rounds; round++) {
    for (const setting of settings) {
      progress(`batching: round ${round} of ${rounds}, ${setting.label}`)
      const server = await startTfidf(m, 2, { ADAPTIVE_BATCH_MAX_TEXTS: String(setting.maxTexts), ADAPTIVE_BATCH_MAX_WAIT_MS: String(setting.maxWaitMs) })
      try {
        await runLoad(server.url, BATCHING_SCENARIOS[0]!, 1, texts, undefined)
        for (const s of BATCHING_SCENARIOS) {
          const before = await histogram(server.url, 'tfidf_worker_task_texts')
          const r = await costPerText(server.child.pid!, async () => {
            const f = await runLoad(server.url, s, seconds, texts, oracle)
            if (f.wrong > 0 || f.non2xx > 0 || f.errors > 0) throw new Error(`batching ${setting.label} ${s.name}: ${f.wrong} wrong, ${f.non2xx} non-2xx, ${f.errors} errors`)
            return { ...f, texts: f.textsPerSecond * seconds }
          })
          const after = await histogram(server.url, 'tfidf_worker_task_texts')
          const key = `${setting.label}\u0000${s.name}`
          samples.set(key, [...(samples.get(key) ?? []), { textsPerSecond: r.textsPerSecond, p99Ms: r.p99, frontUs: r.frontUs, serverUs: r.serverUs, textsPerTask: (after.sum - before.sum) / (after.count - before.count) }])
        }
      } finally {
        await server.stop()
      }
    }
  }
  return [...samples].map(([key, s]) => {
    const [setting, scenario] = key.split('\u0000') as [string, string]
    return {
      setting,
      scenario,
      textsPerSecond: median(s.map(x => x.textsPerSecond)),
      p99Ms: median(s.map(x => x.p99Ms)),
      frontUs: median(s.map(x => x.frontUs)),
      serverUs: median(s.map(x => x.serverUs)),
      textsPerTask: median(s.map(x => x.textsPerTask))
    }
  })
}
