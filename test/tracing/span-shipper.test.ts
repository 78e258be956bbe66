/**
 * The front thread's side of span export (src/tracing/span-shipper.ts) against its real export
 * thread and a real OTLP/HTTP receiver: batches reach the collector whole, and spans past
 * OTEL_BSP_MAX_QUEUE_SIZE (waiting on the front thread, or posted and not yet taken) are
 * dropped and counted at once instead of piling up.
 */
import { expect } from 'chai'
import { SpanShipper } from '../../src/tracing/span-shipper.js'
import type { TracingConfig } from '../../src/tracing/settings.js'
import type { SpanRecord } from '../../src/tracing/span-record.js'
import { startReceiver, waitFor, type Receiver } from '../helpers/otlp-receiver.js'

const quiet = { warn: () => {}, info: () => {}, error: () => {} }

function config (receiver: Receiver, maxQueueSize: number): TracingConfig {
  return { endpoint: `${receiver.url}/v1/traces`, resource: { 'service.name': 'shipper-test' }, sampler: 'always_on', samplerRatio: 1, maxQueueSize, maxExportBatchSize: maxQueueSize, scheduleDelayMs: 20, exportTimeoutMs: 2000 }
}

function record (n: number): SpanRecord {
  const now = performance.now()
  return {
    name: `span ${n}`,
    kind: 0,
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: (0x1000 + n).toString(16).padStart(16, '0'),
    parentSpanId: undefined,
    parentIsRemote: false,
    traceFlags: 1,
    traceState: undefined,
    timeOrigin: performance.timeOrigin,
    offset: 0,
    start: now,
    end: now + 1.5,
    attributes: { 'tfidf.n': n },
    status: 0,
    message: undefined
  }
}

describe('tracing: the span shipper and its export thread', function () {
  this.timeout(30000)

  it('sends what the queue holds and drops, counting them, the spans past its bound', async () => {
    const receiver = await startReceiver()
    const shipper = await SpanShipper.start({ config: config(receiver, 4), scope: 'tfidf-serve' }, quiet)
    try {
      // Pushed in one turn of the event loop: the first 4 fill a batch that is posted at once
      // and stays counted until the export thread says it took it; the other 96 find no room.
      for (let n = 0; n < 100; n++) shipper.push(record(n))
      expect(shipper.counts).to.deep.equal({ exported: 0, dropped: 96, failed: 0 })
      // A full batch leaves the SDK's processor at once, and its forceFlush does not wait for an
      // export already under way: wait for the count.
      await shipper.flush()
      await waitFor(() => shipper.counts.exported === 4)
      expect(shipper.counts).to.deep.equal({ exported: 4, dropped: 96, failed: 0 })
      expect(receiver.spans.map(s => s.name)).to.deep.equal(['span 0', 'span 1', 'span 2', 'span 3'])
      const first = receiver.spans[0]!
      expect(first).to.deep.include({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '0000000000001000', parentSpanId: '', kind: 1, scope: 'tfidf-serve', flags: 0x101 })
      expect(first.attributes).to.deep.equal({ 'tfidf.n': 0 })
      expect(first.resource['service.name']).to.equal('shipper-test')
      // 1.5 ms, to the nanosecond the SDK's time arithmetic gives.
      expect(Number(first.endNs - first.startNs)).to.be.closeTo(1_500_000, 1000)
      // Room again once the thread has taken the batch.
      for (let n = 100; n < 103; n++) shipper.push(record(n))
      await shipper.flush()
      await waitFor(() => shipper.counts.exported === 7)
      expect(shipper.counts).to.deep.equal({ exported: 7, dropped: 96, failed: 0 })
      expect(receiver.spans.map(s => s.name).slice(4)).to.deep.equal(['span 100', 'span 101', 'span 102'])
    } finally {
      await shipper.shutdown(1000)
      await receiver.close()
    }
  })

  it('sends the spans still waiting when it shuts down, and drops (counting) what comes after', async () => {
    const receiver = await startReceiver()
    const shipper = await SpanShipper.start({ config: config(receiver, 64), scope: 'tfidf-serve' }, quiet)
    try {
      for (let n = 0; n < 10; n++) shipper.push(record(n))
      await shipper.shutdown(2000)
      expect(receiver.spans).to.have.length(10)
      shipper.push(record(10))
      expect(shipper.counts).to.deep.equal({ exported: 10, dropped: 1, failed: 0 })
    } finally {
      await receiver.close()
    }
  })
})
