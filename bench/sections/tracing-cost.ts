/**
 * What tracing adds to one request, measured without a load generator (issue 25): the spans of
 * a traced single-text request (its server span, the cache lookup, the admission wait, one
 * worker task) recorded through the service's own tracing, paced at about 4,000 requests a
 * second as the service answers them, against the same loop recording nothing. CPU time from
 * /proc: the front thread's, and the whole process's (the export thread encoding and sending
 * to a receiver in another process). Under load on a shared machine throughput moves by more
 * than a few percent between seconds; these figures move by tenths of a microsecond.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import type { IncomingMessage } from 'node:http'
import { setImmediate as tick, setTimeout as sleep } from 'node:timers/promises'
import { parseConfig } from '../../src/config.js'
import type { Logger } from '../../src/logger.js'
import { poolObserver } from '../../src/tracing/observers.js'
import { startTracing } from '../../src/tracing/start.js'
import type { Tracing } from '../../src/tracing/tracing.js'
import { cpuMicros } from '../lib/processes.js'

export interface TracingCostRow {
  readonly setting: string
  /** Front-thread CPU per request, the loop's own cost taken away. */
  readonly frontUs: number
  /** All threads' CPU per request, the loop's own cost taken away. */
  readonly processUs: number
  readonly spansExported: number
}

const SETTINGS: ReadonlyArray<{ name: string, sampler: string | null }> = [
  { name: 'tracing off', sampler: null },
  { name: 'tracing, sampling 0', sampler: 'parentbased_traceidratio' },
  { name: 'tracing, sampling 1', sampler: 'always_on' }
]

const QUIET: Logger = { debug () {}, info () {}, warn () {}, error () {} } as unknown as Logger

// A request as a mesh sends it: an unsampled traceparent, which sampling 0 keeps unsampled.
const REQUEST = {
  method: 'POST',
  url: '/predict',
  httpVersion: '1.1',
  headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00', host: '127.0.0.1:8000', 'user-agent': 'autocannon' },
  socket: { localPort: 8000, remoteAddress: '127.0.0.1', remotePort: 40000 }
} as unknown as IncomingMessage

/** One single-text request's spans, as the /predict route, the pool and the worker report them. */
function traceOne (tracing: Tracing | undefined): void {
  if (tracing === undefined) return
  const t0 = performance.now()
  const trace = tracing.startHttp(REQUEST, t0)
  if (trace === undefined) return
  trace.record('cache lookup', t0, t0 + 0.01, { 'tfidf.texts': 1, 'tfidf.cache.misses': 1 })
  const observer = poolObserver(trace, { name: 'default', version: '1' })
  observer.admitted!(t0 + 0.01, t0 + 0.02)
  observer.taskEnded!({ name: 'predict', texts: 1, sentAt: t0 + 0.02, startedAt: t0 + 0.03, endedAt: t0 + 0.05, phases: { vectorizeMs: 0.01, scoreMs: 0.005 }, failed: false, gathered: false })
  trace.finish({ status: 200, route: '/predict' })
}

/** A sink for OTLP/HTTP exports in a process of its own, so its CPU is not counted as ours. */
async function startSink (): Promise<{ url: string, child: ChildProcess }> {
  const child = spawn(process.execPath, ['-e', `
    const server = require('node:http').createServer((req, res) => { req.resume(); req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end()) })
    server.listen(0, '127.0.0.1', () => console.log(server.address().port))`], { stdio: ['ignore', 'pipe', 'inherit'] })
  const [line] = await once(child.stdout!, 'data') as [Buffer]
  return { url: `http://127.0.0.1:${line.toString().trim()}`, child }
}

/** CPU per request (front thread, whole process) over `n` requests paced 4 to a millisecond. */
async function paced (tracing: Tracing | undefined, n: number): Promise<{ front: number, all: number }> {
  const front = cpuMicros(process.pid, process.pid)
  const all = cpuMicros(process.pid)
  for (let i = 0; i < n; i += 20) {
    for (let j = 0; j < 20; j++) {
      traceOne(tracing)
      if (j % 4 === 3) await tick()
    }
    await sleep(5)
  }
  await tracing?.flush()
  return { front: (cpuMicros(process.pid, process.pid) - front) / n, all: (cpuMicros(process.pid) - all) / n }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

export async function tracingCostRows (requests: number, rounds: number, progress: (message: string) => void): Promise<TracingCostRow[]> {
  const sink = await startSink()
  try {
    const runs = new Map<string, Array<{ front: number, all: number }>>()
    const exported = new Map<string, number>()
    const loop: Array<{ front: number, all: number }> = []
    for (const s of SETTINGS) {
      progress(`tracing cost: ${s.name}, ${rounds} x ${requests} requests`)
      const config = s.sampler === null ? null : parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_TRACES_SAMPLER: s.sampler, OTEL_TRACES_SAMPLER_ARG: '0' }).tracing
      const tracing = config === null || config === undefined ? undefined : await startTracing(config, QUIET)
      try {
        await paced(tracing, requests / 2)
        for (let r = 0; r < rounds; r++) {
          // The loop alone, beside each round, so its own cost is taken away under the same load.
          loop.push(await paced(undefined, requests))
          runs.set(s.name, [...(runs.get(s.name) ?? []), await paced(tracing, requests)])
        }
        exported.set(s.name, tracing?.counts().exported ?? 0)
      } finally {
        await tracing?.shutdown(2000)
      }
    }
    const base = { front: median(loop.map(l => l.front)), all: median(loop.map(l => l.all)) }
    return SETTINGS.map(s => {
      const rs = runs.get(s.name)!
      return {
        setting: s.name,
        frontUs: Math.max(0, median(rs.map(r => r.front)) - base.front),
        processUs: Math.max(0, median(rs.map(r => r.all)) - base.all),
        spansExported: exported.get(s.name) ?? 0
      }
    })
  } finally {
    sink.child.kill()
  }
}
