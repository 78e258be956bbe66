/**
 * Webhooks (WEBHOOK_URL): JSON events POSTed one at a time, in order, each signed with
 * `X-Signature-256: sha256=<hex HMAC-SHA256 of the body under WEBHOOK_SECRET>` (GitHub's
 * convention). A receiver that is down or answers 5xx, 408 or 429 gets the event again with
 * backoff (capped), for as long as it takes; other 4xx answers are final. The queue is bounded
 * (WEBHOOK_QUEUE_SIZE): past it the oldest event is dropped. Nothing here ever waits on the
 * request path: `send` only queues.
 *
 * Each attempt is bounded in time (attemptTimeoutMs, for the whole exchange: connecting, the
 * answer's head and what is read of its body) and in bytes: the answer's status is all that
 * counts, so at most RESPONSE_BYTES of its body are read and the rest is cancelled. A receiver
 * that answers and then streams without end costs neither memory nor a stuck queue.
 */
import { createHmac, randomUUID } from 'node:crypto'
import { discardBody } from './discard-body.js'

/** The most of a receiver's answer body read (then thrown away) before the rest is cancelled. */
export const RESPONSE_BYTES = 4096

export type WebhookEventType = 'model.loaded' | 'model.unloaded' | 'model.load_failed' | 'key.quota_exhausted' | 'worker.replaced'

export interface WebhookEvent {
  readonly id: string
  readonly type: WebhookEventType
  /** When it happened, ISO 8601 UTC. */
  readonly timestamp: string
  readonly data: Readonly<Record<string, unknown>>
}

export interface WebhookOptions {
  readonly url: string
  readonly secret: string | null
  readonly queueSize: number
  /** Each attempt's time limit, for the whole exchange including the answer's body. Defaults to 5000. */
  readonly attemptTimeoutMs?: number
  /** The first retry's wait; it doubles up to maxBackoffMs. */
  readonly backoffMs?: number
  readonly maxBackoffMs?: number
  /** Called for a delivery that was given up: a final 4xx, or dropped from a full queue. */
  readonly onLost?: (event: WebhookEvent, why: 'dropped' | 'refused', detail: string) => void
}

/** The signature header's value for `body`. */
export function signatureOf (body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`
}

export class WebhookSender {
  readonly #options: Required<Omit<WebhookOptions, 'onLost' | 'secret'>> & Pick<WebhookOptions, 'onLost' | 'secret'>
  readonly #queue: Array<{ event: WebhookEvent, body: string }> = []
  #running = false
  #closed = false
  #wake: (() => void) | undefined
  #timer: NodeJS.Timeout | undefined
  /** Counts read by the Prometheus scrape. */
  readonly counts = { delivered: 0, retried: 0, dropped: 0, refused: 0 }

  constructor (options: WebhookOptions) {
    this.#options = { attemptTimeoutMs: 5000, backoffMs: 500, maxBackoffMs: 30_000, ...options }
  }

  get queued (): number {
    return this.#queue.length
  }

  /** Queues an event; never waits and never throws. */
  send (type: WebhookEventType, data: Record<string, unknown>): WebhookEvent {
    const event: WebhookEvent = { id: randomUUID(), type, timestamp: new Date().toISOString(), data }
    if (this.#closed) return event
    if (this.#queue.length >= this.#options.queueSize) {
      const oldest = this.#queue.shift()!
      this.counts.dropped++
      this.#options.onLost?.(oldest.event, 'dropped', `the queue holds ${this.#options.queueSize} events`)
    }
    this.#queue.push({ event, body: JSON.stringify(event) })
    if (!this.#running) void this.#run()
    return event
  }

  async #run (): Promise<void> {
    this.#running = true
    let backoff = this.#options.backoffMs
    while (this.#queue.length > 0 && !this.#closed) {
      const head = this.#queue[0]!
      const outcome = await this.#attempt(head.event, head.body)
      if (outcome === 'retry') {
        this.counts.retried++
        await this.#sleep(backoff * (0.5 + Math.random() / 2))
        backoff = Math.min(backoff * 2, this.#options.maxBackoffMs)
        continue
      }
      backoff = this.#options.backoffMs
      // The head may have been dropped while it was being sent; only take it off if it is still there.
      if (this.#queue[0] === head) this.#queue.shift()
    }
    this.#running = false
  }

  async #attempt (event: WebhookEvent, body: string): Promise<'done' | 'retry'> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json', 'User-Agent': 'tfidf-serve-webhook', 'X-Webhook-Id': event.id, 'X-Webhook-Event': event.type }
    if (this.#options.secret !== null) headers['X-Signature-256'] = signatureOf(body, this.#options.secret)
    // One deadline for the whole exchange, the body's reading included.
    const deadline = AbortSignal.timeout(this.#options.attemptTimeoutMs)
    let response: Response
    try {
      response = await fetch(this.#options.url, { method: 'POST', headers, body, signal: deadline, redirect: 'error' })
    } catch {
      return 'retry'
    }
    // The status is the answer; the body is read only up to a bound, so a receiver that answers
    // and then streams without end neither grows this process nor holds the queue.
    await discardBody(response.body, RESPONSE_BYTES, deadline)
    if (response.ok) { this.counts.delivered++; return 'done' }
    if (response.status >= 500 || response.status === 408 || response.status === 429) return 'retry'
    this.counts.refused++
    this.#options.onLost?.(event, 'refused', `the receiver answered ${response.status}`)
    return 'done'
  }

  async #sleep (ms: number): Promise<void> {
    await new Promise<void>(resolve => {
      this.#wake = resolve
      this.#timer = setTimeout(resolve, ms)
      this.#timer.unref()
    })
  }

  /** Stops sending (what is queued is left); a retry waiting is cut short. */
  close (): void {
    this.#closed = true
    clearTimeout(this.#timer)
    this.#wake?.()
  }
}
