/**
 * Adaptive batching (as MLServer's, Triton's and BentoML's): the chunks of concurrent
 * requests for one model are gathered into one worker task, so a worker task, its message to
 * the worker and its answer are paid once for many requests. A gathered task leaves
 *   - at once (on the next turn of the event loop) while a worker is free: batching never
 *     keeps a text from an idle worker, and what waits is shared out among the free workers
 *     (a lone request's chunks still run in parallel, as docs/http-api.md, "Requests" has them);
 *   - when it holds `maxTexts` texts while no worker is free (it waits in Piscina's queue);
 *   - when its oldest chunk has waited `maxWaitMs`, whether or not a worker is free.
 * While every worker is busy, chunks gather; each worker that comes free takes what gathered.
 * A chunk is never split: a task holds whole chunks, in arrival order. A chunk whose request
 * is abandoned while it waits here leaves at once and never reaches a worker.
 */
import { abandonment } from './abandoned.js'

export interface BatchLimits {
  /** Most texts in one gathered task; 1 (or less) turns batching off. */
  readonly maxTexts: number
  /** Longest a chunk waits for others before its task leaves. */
  readonly maxWaitMs: number
}

/** Whether `limits` gather anything (MLServer's rule: a batch size above 1). */
export function gathers (limits: BatchLimits): boolean {
  return limits.maxTexts > 1
}

/** A request's share of a gathered task's result: rows offset..offset+length. */
export interface Share<R> {
  readonly result: R
  readonly offset: number
  readonly length: number
}

interface Waiting<R> {
  readonly texts: readonly string[]
  readonly scores: boolean
  readonly at: number
  readonly resolve: (share: Share<R>) => void
  readonly reject: (err: unknown) => void
}

/** Runs one gathered task of `texts` (coming from `chunks` chunks) on a worker; `scores` when any chunk asks for score rows. */
export type RunGathered<R> = (texts: string[], chunks: number, scores: boolean) => Promise<R>

export class AdaptiveBatcher<R> {
  readonly #limits: BatchLimits
  readonly #run: RunGathered<R>
  readonly #freeWorkers: () => number
  readonly #waiting: Array<Waiting<R>> = []
  #texts = 0
  #timer: NodeJS.Timeout | undefined
  #turn: NodeJS.Immediate | undefined

  readonly #onDropped: (texts: number) => void

  /** `freeWorkers` says how many workers would take a task now; `onDropped` is told of each abandoned chunk taken out of line. */
  constructor (limits: BatchLimits, run: RunGathered<R>, freeWorkers: () => number, onDropped: (texts: number) => void = () => {}) {
    this.#limits = limits
    this.#run = run
    this.#freeWorkers = freeWorkers
    this.#onDropped = onDropped
  }

  /**
   * Hands `texts` (one chunk; `scores`: it needs score rows) to the next gathered task; resolves
   * with its rows of that task's result. `signal` takes the chunk out while it still waits here.
   */
  async submit (texts: readonly string[], scores: boolean, signal?: AbortSignal): Promise<Share<R>> {
    if (signal?.aborted === true) {
      this.#onDropped(texts.length)
      throw abandonment(signal)
    }
    return await new Promise<Share<R>>((resolve, reject) => {
      const leave = (): void => {
        const at = this.#waiting.indexOf(waiting)
        if (at === -1) return
        this.#waiting.splice(at, 1)
        this.#texts -= texts.length
        this.#onDropped(texts.length)
        reject(abandonment(signal!))
      }
      const waiting: Waiting<R> = {
        texts,
        scores,
        at: performance.now(),
        resolve: share => { signal?.removeEventListener('abort', leave); resolve(share) },
        reject: err => { signal?.removeEventListener('abort', leave); reject(err) }
      }
      signal?.addEventListener('abort', leave, { once: true })
      this.#waiting.push(waiting)
      this.#texts += texts.length
      if (this.#freeWorkers() > 0) {
        // Within this turn more requests may still come in: gather them, then share them out.
        this.#turn ??= setImmediate(() => { this.#turn = undefined; this.workerFreed() })
      } else {
        while (this.#texts >= this.#limits.maxTexts) this.#send(this.#limits.maxTexts)
      }
      this.#arm()
    })
  }

  /** A worker came free (any task of the pool ended): what gathered is shared out among the free workers. */
  workerFreed (): void {
    for (let free = this.#freeWorkers(); free > 0 && this.#waiting.length > 0; free--) {
      this.#send(Math.min(this.#limits.maxTexts, Math.ceil(this.#texts / free)))
    }
    this.#arm()
  }

  /** Sends the oldest chunk's task when it has waited maxWaitMs (one timer, for the oldest). */
  #arm (): void {
    if (this.#timer !== undefined || this.#waiting.length === 0) return
    const due = this.#waiting[0]!.at + this.#limits.maxWaitMs - performance.now()
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      // Timers may fire a fraction of a millisecond early.
      const overdue = performance.now() + 0.5 - this.#limits.maxWaitMs
      while (this.#waiting.length > 0 && this.#waiting[0]!.at <= overdue) this.#send(this.#limits.maxTexts)
      this.#arm()
    }, Math.max(0, due))
  }

  /** Sends the oldest chunks, up to `limit` texts (one chunk at least), as one task. */
  #send (limit: number): void {
    const taken: Array<Waiting<R>> = []
    let n = 0
    while (this.#waiting.length > 0 && (taken.length === 0 || n + this.#waiting[0]!.texts.length <= limit)) {
      const w = this.#waiting.shift()!
      taken.push(w)
      n += w.texts.length
    }
    this.#texts -= n
    // The timer was for the oldest chunk, which has left: the next #arm sets one for the new oldest.
    clearTimeout(this.#timer)
    this.#timer = undefined
    const texts = taken.length === 1 ? [...taken[0]!.texts] : taken.flatMap(w => w.texts)
    this.#run(texts, taken.length, taken.some(w => w.scores)).then(result => {
      let offset = 0
      for (const w of taken) {
        w.resolve({ result, offset, length: w.texts.length })
        offset += w.texts.length
      }
    }, (err: unknown) => { for (const w of taken) w.reject(err) })
  }
}
