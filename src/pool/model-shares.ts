/**
 * Each model's share of the workers: how many of the pool's workers one model's tasks may hold
 * at once (running, or waiting in Piscina's queue), so that no model, however slow its texts,
 * holds every worker while another model's requests wait (Triton gives each model its own
 * instances, `instance_group.count`; this is that count over one shared pool).
 *
 * The rule: a model's own `max_workers` (its settings), else every worker while it is the only
 * model served, and all but one (at least one) once there are more. A task past its model's
 * share waits here, in its model's own line, before Piscina sees it: Piscina would hand it to
 * the next free worker whatever its model. Waiting here counts as waiting for a worker, under
 * the same clock (task-clock.ts), so a wait past QUEUE_TIMEOUT_MS is the usual 503.
 */
import { dispatchHeld, markQueued } from './task-clock.js'
import type { TaskAbort } from './task-abort.js'
import { NOT_SERVED } from './messages.js'

interface Held {
  readonly start: () => void
  readonly cancel: () => void
}

/** All of one model's share state, added and removed whole. */
interface Share {
  /** Its own `max_workers`, or null. */
  readonly own: number | null
  /** Its tasks handed to Piscina and not yet settled. */
  held: number
  /** Its tasks waiting here for a place, in arrival order. */
  readonly line: Held[]
}

/** A task refused before it reached Piscina: the name Piscina's own abort carries, which the pool maps to 503. */
class HeldTaskAborted extends Error {
  override readonly name = 'AbortError'
}

export class ModelShares {
  readonly #workers: number
  /** Each model served, by key. */
  readonly #models = new Map<string, Share>()
  readonly #onFreed: (key: string) => void

  /**
   * @param workers the pool's workers.
   * @param onFreed told when a task of `key` settles and none of its tasks waits here for the
   *   place (its adaptive batcher may send what gathered).
   */
  constructor (workers: number, onFreed: (key: string) => void = () => {}) {
    if (!Number.isInteger(workers) || workers < 1) throw new RangeError('workers must be an integer >= 1')
    this.#workers = workers
    this.#onFreed = onFreed
  }

  /** Serves `key` from now, with its own `max_workers` (null: the default rule). */
  add (key: string, maxWorkers: number | null): void {
    if (maxWorkers !== null && (!Number.isInteger(maxWorkers) || maxWorkers < 1)) throw new RangeError('maxWorkers must be an integer >= 1 or null')
    this.#models.set(key, { own: maxWorkers, held: 0, line: [] })
  }

  /** Stops serving `key` (the pool has waited for its tasks); the others' shares may grow. */
  remove (key: string): void {
    this.#models.delete(key)
    for (const other of this.#models.keys()) this.#drain(other)
  }

  /** The keys served (each with its whole state). */
  keys (): string[] {
    return [...this.#models.keys()]
  }

  /** Tasks of every model waiting here for a place. */
  get waiting (): number {
    let n = 0
    for (const share of this.#models.values()) n += share.line.length
    return n
  }

  /** The most workers `key`'s tasks may hold at once. */
  limit (key: string): number {
    const own = this.#models.get(key)?.own ?? null
    if (own !== null) return Math.min(own, this.#workers)
    return this.#models.size > 1 ? Math.max(1, this.#workers - 1) : this.#workers
  }

  /** How many more tasks of `key` would be handed to Piscina now. */
  free (key: string): number {
    const share = this.#models.get(key)
    if (share === undefined || share.line.length > 0) return 0
    return Math.max(0, this.limit(key) - share.held)
  }

  /**
   * Hands `task` to Piscina through `hand` at once when `key` has a worker to spare (so that
   * `hand` still runs synchronously, as TaskClock wants), else once one of its tasks settles,
   * in arrival order. While it waits here, `abort` takes it out of line with an AbortError.
   */
  run<T> (key: string, task: object, abort: TaskAbort | undefined, hand: (task: object) => Promise<T>): Promise<T> {
    const share = this.#models.get(key)
    if (share === undefined) return Promise.reject(new Error(`${NOT_SERVED}${key} (no share of the workers)`))
    if (this.free(key) > 0) return this.#handOn(share, key, task, hand, false)
    if (abort?.aborted === true) return Promise.reject(new HeldTaskAborted('the request ended before its task reached a worker'))
    markQueued(task)
    return new Promise<T>((resolve, reject) => {
      const line = share.line
      const held: Held = {
        start: () => {
          abort?.removeEventListener('abort', held.cancel)
          this.#handOn(share, key, task, hand, true).then(resolve, reject)
        },
        cancel: () => {
          const at = line.indexOf(held)
          if (at !== -1) line.splice(at, 1)
          reject(new HeldTaskAborted('the request ended before its task reached a worker'))
        }
      }
      line.push(held)
      abort?.addEventListener('abort', held.cancel)
    })
  }

  #handOn<T> (share: Share, key: string, task: object, hand: (task: object) => Promise<T>, held: boolean): Promise<T> {
    share.held++
    const running = held ? dispatchHeld(task, hand) : hand(task)
    const settled = (): void => this.#settled(share, key)
    running.then(settled, settled)
    return running
  }

  #settled (share: Share, key: string): void {
    share.held--
    if (this.#models.get(key) !== share) return
    if (!this.#drain(key)) this.#onFreed(key)
  }

  /** Hands on what waits in `key`'s line while its share has room; whether any was. */
  #drain (key: string): boolean {
    const share = this.#models.get(key)
    let started = false
    while (share !== undefined && share.line.length > 0 && share.held < this.limit(key)) {
      share.line.shift()!.start()
      started = true
    }
    return started
  }
}
