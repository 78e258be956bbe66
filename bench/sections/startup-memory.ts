/** Start-up to the first healthy /health and resident memory, per model and WORKERS. */
import { setTimeout } from 'node:timers/promises'
import { runLoad, type Oracle } from '../lib/load.js'
import type { ModelDir } from '../lib/models.js'
import { startBaseline, startTfidf } from '../lib/servers.js'

export interface StartupRow {
  readonly model: string
  readonly workers: number
  /** The median of `rounds` starts. */
  readonly startupSeconds: number
  readonly rssStartMb: number
  readonly rssAfterLoadMb: number
  /** After `settleSeconds` idle: V8 gives back the heap that load grew once allocation stops. */
  readonly rssSettledMb: number
  readonly batch50TextsPerSecond: number
}

export interface BaselineStartupRow {
  readonly model: string
  /** The FastAPI service with one uvicorn worker, median of `rounds` starts. */
  readonly startupSeconds: number
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

/**
 * Per model and worker count: `rounds` starts (one start is noisy on shared cores), the
 * median start-up; the first start is then loaded and its memory read.
 */
export async function startupRows (models: readonly ModelDir[], workerCounts: readonly number[], loadSeconds: number, settleSeconds: number, texts: readonly string[], oracles: ReadonlyMap<string, Oracle>, progress: (m: string) => void, rounds = 1): Promise<StartupRow[]> {
  const rows: StartupRow[] = []
  for (const m of models) {
    for (const workers of workerCounts) {
      progress(`start-up and memory ${m.name} WORKERS=${workers}${rounds > 1 ? ` (${rounds} starts)` : ''}`)
      const starts: number[] = []
      for (let r = 1; r < rounds; r++) {
        const server = await startTfidf(m, workers)
        starts.push(server.startupSeconds)
        await server.stop()
      }
      const server = await startTfidf(m, workers)
      starts.push(server.startupSeconds)
      try {
        const rssStart = server.rssBytes()
        const f = await runLoad(server.url, { name: 'batch50 c10', size: 50, connections: 10 }, loadSeconds, texts, oracles.get(m.name))
        if (f.wrong > 0) throw new Error(`start-up ${m.name} WORKERS=${workers}: ${f.wrong} wrong answers`)
        const rssAfterLoad = server.rssBytes()
        await setTimeout(settleSeconds * 1000)
        rows.push({ model: m.name, workers, startupSeconds: median(starts), rssStartMb: rssStart / 1e6, rssAfterLoadMb: rssAfterLoad / 1e6, rssSettledMb: server.rssBytes() / 1e6, batch50TextsPerSecond: f.textsPerSecond })
      } finally {
        await server.stop()
      }
    }
  }
  return rows
}

/** The Python service's start-up per model, measured in the same section as ours (medians of `rounds`). */
export async function baselineStartupRows (models: readonly ModelDir[], rounds: number, progress: (m: string) => void): Promise<BaselineStartupRow[]> {
  const rows: BaselineStartupRow[] = []
  for (const m of models) {
    progress(`start-up of the Python service, ${m.name} model (${rounds} starts)`)
    const starts: number[] = []
    for (let r = 0; r < rounds; r++) {
      const server = await startBaseline(m, 1)
      starts.push(server.startupSeconds)
      await server.stop()
    }
    rows.push({ model: m.name, startupSeconds: median(starts) })
  }
  return rows
}
