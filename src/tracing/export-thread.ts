/**
 * The export thread: takes the spans the front thread recorded (span-record.ts), makes them
 * the SDK's ReadableSpan and hands them to the SDK's batch span processor, which batches,
 * bounds its queue and exports them over OTLP/HTTP (protobuf). Encoding and sending a span
 * cost about 6 us, which the front thread, the one that answers requests, no longer pays.
 * Started by otel-tracing.ts, one per process, only when tracing is configured.
 */
import { constants, hostname, setPriority } from 'node:os'
import { parentPort, workerData } from 'node:worker_threads'
import type { HrTime, SpanContext } from '@opentelemetry/api'
import { addHrTimes, hrTimeDuration, millisToHrTime, TraceState } from '@opentelemetry/core'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { defaultResource, resourceFromAttributes, type Resource } from '@opentelemetry/resources'
import { BatchSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace'
import { SpanCounts } from './span-counts.js'
import { unflatten, type ExportThreadData, type FromExportThread, type SpanRecord, type ToExportThread } from './span-record.js'

const port = parentPort!
const { config, scope } = workerData as ExportThreadData
const post = (message: FromExportThread): void => { port.postMessage(message) }

// The lowest scheduling priority, for this thread alone (Linux keeps a nice value per thread):
// spans can wait, requests cannot. On a busy machine the export takes the CPU the request path
// leaves; if that is too little for too long, the queues' bounds drop spans (counted) instead.
try { setPriority(constants.priority.PRIORITY_LOW) } catch { /* not allowed here: runs at the process's priority */ }

// Counts go back at most once an event-loop turn: a collector outage drops spans one by one.
let countsDue = false
const counts: SpanCounts = new SpanCounts((failing, why) => {
  post(failing
    ? { type: 'log', level: 'warn', message: `trace export to ${config.endpoint} failing (${why}); spans are dropped and counted until it works again` }
    : { type: 'log', level: 'info', message: `trace export to ${config.endpoint} works again` })
}, () => {
  if (countsDue) return
  countsDue = true
  setImmediate(() => { countsDue = false; post({ type: 'counts', counts: counts.counts }) })
})

const processor = new BatchSpanProcessor({
  exporter: new OTLPTraceExporter({ url: config.endpoint }),
  maxQueueSize: config.maxQueueSize,
  maxExportBatchSize: config.maxExportBatchSize,
  scheduledDelayMillis: config.scheduleDelayMs,
  exportTimeoutMillis: config.exportTimeoutMs,
  selfObsMeterProvider: counts
})
const resource: Resource = defaultResource().merge(resourceFromAttributes({ 'host.name': hostname(), 'process.pid': process.pid, ...config.resource }))
const instrumentationScope = { name: scope }

/** The SDK's timestamp for a front-thread time: its span's own sum (Span._getTime). */
const hrTimeOf = (r: SpanRecord, at: number): HrTime => addHrTimes(millisToHrTime(r.timeOrigin), millisToHrTime(at + r.offset))

/** The span the SDK would have ended, from its record (an end before the start becomes the start, as the SDK's end() does). */
export function readableSpan (r: SpanRecord): ReadableSpan {
  const startTime = hrTimeOf(r, r.start)
  let endTime = hrTimeOf(r, r.end)
  let duration = hrTimeDuration(startTime, endTime)
  if (duration[0] < 0) {
    endTime = [startTime[0], startTime[1]]
    duration = [0, 0]
  }
  const traceState = r.traceState === undefined ? undefined : new TraceState(r.traceState)
  const context: SpanContext = { traceId: r.traceId, spanId: r.spanId, traceFlags: r.traceFlags, traceState }
  return {
    name: r.name,
    kind: r.kind,
    spanContext: () => context,
    parentSpanContext: r.parentSpanId === undefined ? undefined : { traceId: r.traceId, spanId: r.parentSpanId, traceFlags: r.traceFlags, traceState, isRemote: r.parentIsRemote },
    startTime,
    endTime,
    status: r.message === undefined ? { code: r.status } : { code: r.status, message: r.message },
    attributes: r.attributes,
    links: [],
    events: [],
    duration,
    ended: true,
    resource,
    instrumentationScope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0
  }
}

port.on('message', (message: ToExportThread) => {
  switch (message.type) {
    case 'spans': {
      const records = unflatten(message.spans)
      for (const r of records) processor.onEnd(readableSpan(r))
      post({ type: 'taken', n: records.length })
      return
    }
    case 'flush':
      void processor.forceFlush().finally(() => {
        post({ type: 'counts', counts: counts.counts })
        post({ type: 'flushed', id: message.id })
      })
      return
    case 'shutdown':
      void processor.shutdown().finally(() => {
        post({ type: 'counts', counts: counts.counts })
        post({ type: 'closed' })
        port.close()
      })
  }
})
post({ type: 'ready' })
