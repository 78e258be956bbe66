/**
 * Counts of what became of the spans handed to the batch processor: exported, dropped because
 * its queue was full, or lost because an export failed. The SDK reports these through its
 * self-observability metrics (`otel.sdk.processor.span.processed`, with `error.type`
 * `queue_full` for a drop); this meter provider takes just that counter and counts it here, for
 * the Prometheus series, and tells `onChange` when exports start or stop failing.
 */
import { createNoopMeter, type Attributes, type Counter, type Meter, type MeterProvider } from '@opentelemetry/api'
import type { TraceCounts } from './tracing.js'

const PROCESSED = 'otel.sdk.processor.span.processed'

export class SpanCounts implements MeterProvider {
  exported = 0
  dropped = 0
  failed = 0
  readonly #meter: Meter
  #failing = false

  /**
   * @param onChange told when exports start failing (with why) and when they work again.
   * @param onCount told after every count.
   */
  constructor (onChange: (failing: boolean, why: string) => void, onCount: () => void = () => {}) {
    const noop = createNoopMeter()
    const counter: Counter = {
      add: (n: number, attributes?: Attributes) => {
        const error = attributes?.['error.type']
        if (error === undefined) {
          this.exported += n
          if (this.#failing) onChange(this.#failing = false, '')
        } else if (error === 'queue_full') {
          this.dropped += n
        } else {
          this.failed += n
          if (!this.#failing) onChange(this.#failing = true, String(error))
        }
        onCount()
      }
    }
    this.#meter = Object.assign(Object.create(noop) as Meter, {
      createCounter: (name: string, options?: object) => name === PROCESSED ? counter : noop.createCounter(name, options)
    })
  }

  getMeter (): Meter {
    return this.#meter
  }

  get counts (): TraceCounts {
    return { exported: this.exported, dropped: this.dropped, failed: this.failed }
  }
}
