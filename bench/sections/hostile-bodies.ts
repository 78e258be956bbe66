/**
 * Refused bodies against the front thread (issue 15's reproduction): eight clients sending
 * 1 MB of arrays nested 520,000 deep, as fast as they get answers, while a prober times
 * GET /health every 20 ms and the server's RSS is read every 100 ms. Before the shape
 * check, each such body cost about 108 ms of JSON.parse on the one front thread. Also, in
 * process: the shape scan's cost per KB beside JSON.parse, on that body and on a valid 1 MB
 * batch (the scan's overhead on bodies that pass).
 */
import autocannon from 'autocannon'
import { setTimeout } from 'node:timers/promises'
import { JsonShapeScanner } from '../../src/http/json-shape.js'
import type { ModelDir } from '../lib/models.js'
import { startTfidf } from '../lib/servers.js'

export interface HostileRow {
  readonly build: string
  readonly clients: number
  readonly seconds: number
  readonly refusedPerSecond: number
  readonly statuses: Record<string, number>
  readonly healthP50Ms: number
  readonly healthP99Ms: number
  readonly healthMaxMs: number
  readonly rssIdleMb: number
  readonly rssMaxMb: number
}

export interface ScanRow {
  readonly body: string
  readonly kb: number
  readonly scanUsPerKb: number
  readonly parseUsPerKb: number
}

export const DEEP_BODY = '['.repeat(520_000) + ']'.repeat(520_000)

const quantile = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN

/** `build` is a project root holding dist/ (the current one, or an older checkout for the before figures). */
export async function hostileRows (model: ModelDir, builds: ReadonlyArray<{ label: string, root?: string }>, seconds: number, progress: (m: string) => void): Promise<HostileRow[]> {
  const rows: HostileRow[] = []
  for (const build of builds) {
    progress(`hostile bodies, ${build.label}: 8 clients, ${seconds} s`)
    const server = await startTfidf(model, 2, {}, build.root)
    try {
      await setTimeout(2000)
      const rssIdle = server.rssBytes()
      let rssMax = rssIdle
      const sampler = setInterval(() => { rssMax = Math.max(rssMax, server.rssBytes()) }, 100)
      const health: number[] = []
      let probing = true
      const prober = (async () => {
        while (probing) {
          const t = performance.now()
          const res = await fetch(`${server.url}/health`)
          await res.arrayBuffer()
          health.push(performance.now() - t)
          await setTimeout(20)
        }
      })()
      const statuses: Record<string, number> = {}
      const result = await autocannon({
        url: server.url,
        connections: 8,
        duration: seconds,
        timeout: 30,
        requests: [{
          method: 'POST',
          path: '/predict',
          headers: { 'content-type': 'application/json' },
          body: DEEP_BODY,
          onResponse: status => { statuses[status] = (statuses[status] ?? 0) + 1 }
        }]
      })
      probing = false
      await prober
      clearInterval(sampler)
      const sorted = [...health].sort((a, b) => a - b)
      rows.push({
        build: build.label,
        clients: 8,
        seconds,
        refusedPerSecond: result.requests.average,
        statuses,
        healthP50Ms: quantile(sorted, 0.5),
        healthP99Ms: quantile(sorted, 0.99),
        healthMaxMs: sorted[sorted.length - 1] ?? NaN,
        rssIdleMb: rssIdle / 1e6,
        rssMaxMb: rssMax / 1e6
      })
    } finally {
      await server.stop()
    }
  }
  return rows
}

/** Median microseconds per KB of `run` over `bytes`, from 21 timed runs. */
function usPerKb (bytes: number, run: () => void): number {
  const times: number[] = []
  for (let i = 0; i < 21; i++) {
    const t = performance.now()
    run()
    times.push(performance.now() - t)
  }
  times.sort((a, b) => a - b)
  return times[10]! * 1000 / (bytes / 1024)
}

export function scanRows (): ScanRow[] {
  const valid = JSON.stringify({ texts: Array.from({ length: 50 }, (_, i) => `text ${i} ${'a wonderful, moving film. '.repeat(800)}`), batch_size: 10 })
  return [['1 MB nested 520,000 deep (refused)', DEEP_BODY], ['valid batch of 50 texts', valid]].map(([name, text]) => {
    const bytes = Buffer.from(text!)
    const limits = { maxDepth: 8, maxValues: 164 }
    return {
      body: name!,
      kb: bytes.length / 1024,
      scanUsPerKb: usPerKb(bytes.length, () => { new JsonShapeScanner(limits).feed(bytes) }),
      parseUsPerKb: usPerKb(bytes.length, () => { try { JSON.parse(text!) } catch {} })
    }
  })
}
