/**
 * What tracing costs (issue 25): the default model, 2 workers, tracing off against tracing
 * configured with sampling 0 (parentbased_traceidratio, ratio 0: nothing recorded) and with
 * sampling 1 (always_on: every request's spans exported over OTLP/HTTP to a receiver on
 * 127.0.0.1 that takes each export and keeps nothing). Single texts over 10 connections and
 * batches of 50 over 50; every request carries an unsampled traceparent, as a mesh sends one.
 *
 * The servers run side by side (idle but for their turn) and take short turns (paired-turns.ts);
 * each figure against tracing off is the median of the ratios taken within one round (8 s runs
 * one server after another put sampling 0, which costs 2 us a request, at 0.75-1.13x). Beside throughput, the
 * CPU time per request of the server's front thread and of all its threads (the export thread,
 * the workers, V8's helpers). A second server with tracing off shows, in the same run, how far
 * two identical servers come apart: differences inside its spread are noise.
 */
import type { ModelDir } from '../lib/models.js'
import type { Oracle, Scenario } from '../lib/load.js'
import { median, pairedTurns, roundRatios, type Turn } from '../lib/paired-turns.js'
import type { Server } from '../lib/processes.js'
import { startTfidf } from '../lib/servers.js'
import { startReceiver } from '../../test/helpers/otlp-receiver.js'

export interface TracingRow {
  readonly server: string
  readonly scenario: string
  readonly textsPerSecond: number
  /** Each round's texts/s, in round order (the spread behind the median). */
  readonly rounds: readonly number[]
  /** The median, over rounds, of this round's texts/s over tracing off's in the same round. */
  readonly vsOff: number
  /** Each round's ratio to tracing off, in round order. */
  readonly roundRatios: readonly number[]
  readonly p99Ms: number
  readonly frontCpuUsPerRequest: number
  /** CPU time of all the server's threads per request. */
  readonly serverCpuUsPerRequest: number
  /** The median, over rounds, of this round's server CPU per request over tracing off's. */
  readonly serverCpuVsOff: number
  readonly spansExported: number
  readonly spansDropped: number
  readonly non2xx: number
}

/** A Prometheus counter's value, from the text exposition. */
async function counter (url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics?format=prometheus`)).text()
  return Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? 0)
}

export async function tracingRows (m: ModelDir, texts: readonly string[], oracle: Oracle, turnSeconds: number, rounds: number, progress: (message: string) => void): Promise<TracingRow[]> {
  const receiver = await startReceiver('sink')
  const traced = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }
  const configs: Array<{ name: string, env: Record<string, string> }> = [
    { name: 'tracing off', env: {} },
    // The same server again: how far two identical servers drift apart in this run (the noise).
    { name: 'tracing off, a second server', env: {} },
    { name: 'tracing, sampling 0', env: { ...traced, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' } },
    { name: 'tracing, sampling 1', env: { ...traced, OTEL_TRACES_SAMPLER: 'always_on' } }
  ]
  const headers = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00' }
  const scenarios: Scenario[] = [{ name: 'single c10', size: 0, connections: 10, headers }, { name: 'batch50 c50', size: 50, connections: 50, headers }]
  const servers: Server[] = []
  let turns: Turn[][][]
  const spans: Array<{ exported: number, dropped: number }> = []
  try {
    for (const c of configs) servers.push(await startTfidf(m, 2, c.env))
    const before = await Promise.all(servers.map(async server => await spanCounts(server.url)))
    turns = await pairedTurns(servers, scenarios, texts, turnSeconds, rounds, () => oracle, (s, round) => { progress(`tracing ${s.name}: round ${round + 1} of ${rounds}, ${turnSeconds} s a server`) })
    // The spans still queued go out within the batch delay (5 s by default): wait for them.
    await new Promise(resolve => setTimeout(resolve, 5500))
    for (const [i, server] of servers.entries()) {
      const after = await spanCounts(server.url)
      spans.push({ exported: after.exported - before[i]!.exported, dropped: after.dropped - before[i]!.dropped })
    }
  } finally {
    for (const server of servers) await server.stop()
    await receiver.close()
  }
  return scenarios.flatMap((s, k) => configs.map((c, i) => {
    const ts = turns[i]![k]!
    const off = turns[0]![k]!
    const ratios = roundRatios(ts, off, t => t.load.textsPerSecond)
    return {
      server: c.name,
      scenario: s.name,
      textsPerSecond: median(ts.map(t => t.load.textsPerSecond)),
      rounds: ts.map(t => Math.round(t.load.textsPerSecond)),
      vsOff: median(ratios),
      roundRatios: ratios.map(r => Math.round(r * 100) / 100),
      p99Ms: median(ts.map(t => t.load.p99)),
      frontCpuUsPerRequest: median(ts.map(t => t.frontUs)),
      serverCpuUsPerRequest: median(ts.map(t => t.serverUs)),
      serverCpuVsOff: median(roundRatios(ts, off, t => t.serverUs)),
      // Counted over both scenarios, shown on the first.
      spansExported: k === 0 ? spans[i]!.exported : 0,
      spansDropped: k === 0 ? spans[i]!.dropped : 0,
      non2xx: ts.reduce((n, t) => n + t.load.non2xx + t.load.wrong, 0)
    }
  }))
}

/** The spans a server exported and dropped so far, from its Prometheus counters. */
async function spanCounts (url: string): Promise<{ exported: number, dropped: number }> {
  return { exported: await counter(url, 'tfidf_trace_spans_exported_total'), dropped: await counter(url, 'tfidf_trace_spans_dropped_total') }
}
