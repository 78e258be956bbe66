/**
 * What tracing costs (issue 25): the default model, 2 workers, tracing off against tracing
 * configured with sampling 0 (parentbased_traceidratio, ratio 0: nothing recorded) and with
 * sampling 1 (always_on: every request's spans exported over OTLP/HTTP to a receiver on
 * 127.0.0.1 that takes each export and keeps nothing). Single texts over 10 connections and
 * batches of 50 over 50; every request carries an unsampled traceparent, as a mesh sends one.
 * Rounds alternate the servers' order and report medians; beside throughput, the front
 * thread's CPU time per request, and the spans exported and dropped at sampling 1.
 */
import type { ModelDir } from '../lib/models.js'
import { runLoad, type Oracle, type Scenario } from '../lib/load.js'
import { cpuMicros as cpuUs } from '../lib/processes.js'
import { startTfidf } from '../lib/servers.js'
import { startReceiver } from '../../test/helpers/otlp-receiver.js'

export interface TracingRow {
  readonly server: string
  readonly scenario: string
  readonly textsPerSecond: number
  /** Each round's texts/s, in round order (the spread behind the median). */
  readonly rounds: readonly number[]
  readonly p99Ms: number
  readonly frontCpuUsPerRequest: number
  readonly spansExported: number
  readonly spansDropped: number
  readonly non2xx: number
}

const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]! }

/** A Prometheus counter's value, from the text exposition. */
async function counter (url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics?format=prometheus`)).text()
  return Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? 0)
}

export async function tracingRows (m: ModelDir, texts: readonly string[], oracle: Oracle, duration: number, rounds: number, progress: (message: string) => void): Promise<TracingRow[]> {
  const receiver = await startReceiver('sink')
  const traced = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }
  const configs: Array<{ name: string, env: Record<string, string> }> = [
    { name: 'tracing off', env: {} },
    { name: 'tracing, sampling 0', env: { ...traced, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' } },
    { name: 'tracing, sampling 1', env: { ...traced, OTEL_TRACES_SAMPLER: 'always_on' } }
  ]
  const headers = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00' }
  const scenarios: Scenario[] = [{ name: 'single c10', size: 0, connections: 10, headers }, { name: 'batch50 c50', size: 50, connections: 50, headers }]
  const runs = new Map<string, Array<{ tps: number, p99: number, front: number, exported: number, dropped: number, non2xx: number }>>()
  try {
    for (let round = 0; round < rounds; round++) {
      for (const c of round % 2 === 0 ? configs : [...configs].reverse()) {
        const server = await startTfidf(m, 2, c.env)
        try {
          // A second of unrecorded load, so the JIT has warmed up.
          await runLoad(server.url, scenarios[0]!, 1, texts, undefined)
          for (const s of scenarios) {
            progress(`tracing ${c.name} ${s.name}: ${duration} s (round ${round + 1})`)
            const pid = server.child.pid!
            const front = cpuUs(pid, pid)
            const spans = { exported: await counter(server.url, 'tfidf_trace_spans_exported_total'), dropped: await counter(server.url, 'tfidf_trace_spans_dropped_total') }
            const f = await runLoad(server.url, s, duration, texts, oracle)
            const requests = f.requestsPerSecond * duration
            // The spans of this run still queued go out within the batch delay (5 s by default): wait for them.
            if (c.name.endsWith('1')) await new Promise(resolve => setTimeout(resolve, 5500))
            const key = `${c.name}\u0000${s.name}`
            runs.set(key, [...(runs.get(key) ?? []), {
              tps: f.textsPerSecond,
              p99: f.p99,
              front: (cpuUs(pid, pid) - front) / requests,
              exported: await counter(server.url, 'tfidf_trace_spans_exported_total') - spans.exported,
              dropped: await counter(server.url, 'tfidf_trace_spans_dropped_total') - spans.dropped,
              non2xx: f.non2xx + f.wrong
            }])
          }
        } finally {
          await server.stop()
        }
      }
    }
  } finally {
    await receiver.close()
  }
  return [...runs].map(([key, rs]) => {
    const [server, scenario] = key.split('\u0000') as [string, string]
    return {
      server,
      scenario,
      textsPerSecond: median(rs.map(r => r.tps)),
      rounds: rs.map(r => Math.round(r.tps)),
      p99Ms: median(rs.map(r => r.p99)),
      frontCpuUsPerRequest: median(rs.map(r => r.front)),
      spansExported: rs.reduce((n, r) => n + r.exported, 0),
      spansDropped: rs.reduce((n, r) => n + r.dropped, 0),
      non2xx: rs.reduce((n, r) => n + r.non2xx, 0)
    }
  })
}
