/** Start-up to the first healthy /health and resident memory, per model and WORKERS. */
import { setTimeout } from 'node:timers/promises'
import { runLoad, type Oracle } from '../lib/load.js'
import type { ModelDir } from '../lib/models.js'
import { startTfidf } from '../lib/servers.js'

export interface StartupRow {
  readonly model: string
  readonly workers: number
  readonly startupSeconds: number
  readonly rssStartMb: number
  readonly rssAfterLoadMb: number
  /** After `settleSeconds` idle: V8 gives back the heap that load grew once allocation stops. */
  readonly rssSettledMb: number
  readonly batch50TextsPerSecond: number
}

export async function startupRows (models: readonly ModelDir[], workerCounts: readonly number[], loadSeconds: number, settleSeconds: number, texts: readonly string[], oracles: ReadonlyMap<string, Oracle>, progress: (m: string) => void): Promise<StartupRow[]> {
  const rows: StartupRow[] = []
  for (const m of models) {
    for (const workers of workerCounts) {
      progress(`start-up and memory ${m.name} WORKERS=${workers}`)
      const server = await startTfidf(m, workers)
      try {
        const rssStart = server.rssBytes()
        const f = await runLoad(server.url, { name: 'batch50 c10', size: 50, connections: 10 }, loadSeconds, texts, oracles.get(m.name))
        if (f.wrong > 0) throw new Error(`start-up ${m.name} WORKERS=${workers}: ${f.wrong} wrong answers`)
        const rssAfterLoad = server.rssBytes()
        await setTimeout(settleSeconds * 1000)
        rows.push({ model: m.name, workers, startupSeconds: server.startupSeconds, rssStartMb: rssStart / 1e6, rssAfterLoadMb: rssAfterLoad / 1e6, rssSettledMb: server.rssBytes() / 1e6, batch50TextsPerSecond: f.textsPerSecond })
      } finally {
        await server.stop()
      }
    }
  }
  return rows
}
