/**
 * The front thread's side of the export thread: finished spans gather here and go to the
 * export thread in one message per batch (or once the delay has passed), so a request pays for
 * pushing its spans onto an array and the structured clone of a batch is shared by many. The
 * spans waiting here and those posted but not yet taken count against OTEL_BSP_MAX_QUEUE_SIZE:
 * past it a span is dropped and counted, so nothing grows while the export thread is stuck.
 */
import { Worker } from 'node:worker_threads'
import { flatten, type ExportCounts, type ExportThreadData, type FromExportThread, type SpanRecord, type ToExportThread } from './span-record.js'
import { EXPORT_THREAD } from '../layout.js'

/** The longest a finished span waits on the front thread before it is posted. */
const MAX_DELAY_MS = 50
/**
 * Spans posted in one message at most: enough to share a message's fixed cost, few enough that
 * under load the records are posted (and die) young, before a scavenge would copy them.
 */
const POST_BATCH = 64

export interface ShipperLog {
  readonly warn: (message: string) => void
  readonly info: (message: string) => void
  readonly error: (message: string) => void
}

export class SpanShipper {
  readonly #worker: Worker
  readonly #bound: number
  readonly #batch: number
  readonly #delayMs: number
  #pending: SpanRecord[] = []
  /** Posted and not yet taken by the export thread. */
  #posted = 0
  #dropped = 0
  #thread: ExportCounts = { exported: 0, dropped: 0, failed: 0 }
  #timer: NodeJS.Timeout | undefined
  #alive = true
  #flushes = 0
  readonly #waiting = new Map<number, () => void>()
  #closed: (() => void) | undefined

  private constructor (worker: Worker, data: ExportThreadData, log: ShipperLog) {
    this.#worker = worker
    this.#bound = data.config.maxQueueSize
    this.#batch = Math.min(POST_BATCH, data.config.maxExportBatchSize)
    this.#delayMs = Math.min(MAX_DELAY_MS, data.config.scheduleDelayMs)
    worker.on('message', (m: FromExportThread) => {
      switch (m.type) {
        case 'taken': this.#posted -= m.n; return
        case 'counts': this.#thread = m.counts; return
        case 'log': log[m.level](m.message); return
        case 'flushed': this.#waiting.get(m.id)?.(); this.#waiting.delete(m.id); return
        case 'closed': this.#closed?.()
      }
    })
    worker.on('error', error => { log.error(`trace export thread failed: ${error.message}; spans are dropped and counted from now on`) })
    worker.on('exit', () => {
      this.#alive = false
      // What it had not taken is lost with it.
      this.#dropped += this.#posted + this.#pending.length
      this.#posted = 0
      this.#pending = []
      for (const done of this.#waiting.values()) done()
      this.#waiting.clear()
      this.#closed?.()
    })
    // The thread never keeps the process alive: shutdown() ends it.
    worker.unref()
  }

  /** Starts the export thread; resolves once it has built its exporter. */
  static async start (data: ExportThreadData, log: ShipperLog): Promise<SpanShipper> {
    const worker = new Worker(EXPORT_THREAD, { workerData: data, name: 'trace export' })
    await new Promise<void>((resolve, reject) => {
      const failed = (error: Error): void => { reject(new Error(`trace export thread did not start: ${error.message}`)) }
      worker.once('error', failed)
      worker.once('message', (m: FromExportThread) => { worker.off('error', failed); if (m.type === 'ready') resolve(); else reject(new Error(`trace export thread said ${m.type} first`)) })
    })
    return new SpanShipper(worker, data, log)
  }

  /** A finished span, kept for the next batch, or dropped (and counted) past the queue's bound. */
  push (span: SpanRecord): void {
    if (!this.#alive || this.#pending.length + this.#posted >= this.#bound) {
      this.#dropped++
      return
    }
    this.#pending.push(span)
    if (this.#pending.length >= this.#batch) this.#post()
    else this.#timer ??= setTimeout(() => { this.#post() }, this.#delayMs).unref()
  }

  #post (): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
    if (this.#pending.length === 0 || !this.#alive) return
    this.#send({ type: 'spans', spans: flatten(this.#pending) })
    this.#posted += this.#pending.length
    this.#pending = []
  }

  #send (message: ToExportThread): void {
    this.#worker.postMessage(message)
  }

  get counts (): ExportCounts {
    return { exported: this.#thread.exported, dropped: this.#thread.dropped + this.#dropped, failed: this.#thread.failed }
  }

  /** Exports every span finished so far. */
  async flush (): Promise<void> {
    this.#post()
    if (!this.#alive) return
    const id = ++this.#flushes
    await new Promise<void>(resolve => {
      this.#waiting.set(id, resolve)
      this.#send({ type: 'flush', id })
    })
  }

  /** Exports what is left, within `timeoutMs`, and ends the thread. Never rejects. */
  async shutdown (timeoutMs: number): Promise<void> {
    this.#post()
    if (this.#alive) {
      let timer: NodeJS.Timeout | undefined
      await Promise.race([
        new Promise<void>(resolve => { this.#closed = resolve; this.#send({ type: 'shutdown' }) }),
        new Promise<void>(resolve => { timer = setTimeout(resolve, timeoutMs) })
      ])
      clearTimeout(timer)
    }
    await this.#worker.terminate()
  }
}
