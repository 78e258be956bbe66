/**
 * Two clocks per worker task: one while it waits for a worker, one from the moment a worker
 * takes it. PREDICTION_TIMEOUT_MS bounds the second only, per chunk of batch_size
 * (docs/http-api.md, "Limits and timeouts"): a task of several chunks has each chunk's start
 * marked by its worker (messages.ts CHUNK_CLOCK), and is cut once its running chunk has run
 * past the limit (docs/performance.md). A request that never reached a worker was not slow to
 * predict, and says so.
 *
 * Piscina tells no one when a queued task starts, but it hands each task to a worker by
 * shifting it off its task queue, and lets a task carry options for that queue (under
 * `queueOptionsSymbol`, a symbol key: it never crosses to the worker). `StartingQueue` is that
 * queue, and calls the task's `start` as it hands it over; a task Piscina gives a free worker
 * at once never enters the queue, so it starts when `run` returns.
 */
import { queueOptionsSymbol, type TaskQueue } from './piscina.js'
import type { TaskAbort } from './task-abort.js'
import { epochNow } from './messages.js'

type PiscinaTask = Parameters<TaskQueue['push']>[0]

/** What a task tells the queue: whether it was queued, and what to call when a worker takes it. */
interface StartSignal {
  queued: boolean
  readonly start: () => void
}

function signalOf (task: PiscinaTask): StartSignal | null {
  const options = task[queueOptionsSymbol] as Partial<StartSignal> | null
  return options != null && typeof options.start === 'function' ? options as StartSignal : null
}

/** Piscina's first-in first-out queue (its ArrayTaskQueue), telling each task when it leaves for a worker. */
export class StartingQueue implements TaskQueue {
  readonly #tasks: PiscinaTask[] = []

  get size (): number {
    return this.#tasks.length
  }

  push (task: PiscinaTask): void {
    const signal = signalOf(task)
    if (signal !== null) signal.queued = true
    this.#tasks.push(task)
  }

  shift (): PiscinaTask | null {
    const task = this.#tasks.shift() ?? null
    if (task !== null) signalOf(task)?.start()
    return task
  }

  remove (task: PiscinaTask): void {
    const at = this.#tasks.indexOf(task)
    if (at !== -1) this.#tasks.splice(at, 1)
  }
}

/**
 * Marks `task` (as tagged by TaskClock.run) as waiting for a worker before it reaches Piscina
 * (its model's share is full, model-shares.ts): its queue clock runs, as in Piscina's queue.
 */
export function markQueued (task: object): void {
  const signal = signalOf(task as PiscinaTask)
  if (signal !== null) signal.queued = true
}

/**
 * Hands a task marked by `markQueued` to Piscina through `dispatch` (synchronously, as
 * TaskClock.run's own dispatch); when a worker takes it at once, its run clock starts now.
 */
export function dispatchHeld<R> (task: object, dispatch: (task: object) => Promise<R>): Promise<R> {
  const signal = signalOf(task as PiscinaTask)
  if (signal !== null) signal.queued = false
  const running = dispatch(task)
  if (signal !== null && !signal.queued) signal.start()
  return running
}

/** Why a request's tasks were aborted: one waited too long for a worker, or ran too long on one. */
export type Overrun = 'queue' | 'run'

/**
 * The clocks of one request's tasks. Each task gets `queueMs` to reach a worker and `runMs`
 * on it; past either, the request's abort fires (Piscina drops a queued task from its queue
 * and replaces the worker of a running one) and `overrun` says which.
 */
export class TaskClock {
  readonly #abort: TaskAbort
  readonly #queueMs: number
  readonly #runMs: number
  readonly #timers = new Set<NodeJS.Timeout>()
  #overrun: Overrun | null = null

  constructor (abort: TaskAbort, limits: { readonly queueMs: number, readonly runMs: number }) {
    this.#abort = abort
    this.#queueMs = limits.queueMs
    this.#runMs = limits.runMs
  }

  get overrun (): Overrun | null {
    return this.#overrun
  }

  /**
   * Runs one task under both clocks: `dispatch` must hand `task` (with the signal this adds)
   * to Piscina synchronously, as `piscina.run` does. `onStart` is told when a worker takes it.
   * `chunkStartedAt` reads when the task's running chunk started (epochNow's clock), for a
   * task of several chunks: the run clock then counts from it.
   */
  async run<T extends object, R> (task: T, dispatch: (tagged: T) => Promise<R>, onStart?: () => void, chunkStartedAt?: () => number): Promise<R> {
    let timer: NodeJS.Timeout | undefined
    const arm = (ms: number, overrun: Overrun): void => {
      if (timer !== undefined) this.#clear(timer)
      timer = setTimeout(() => {
        // The running chunk started later than the task: its own limit is not up yet.
        const left = overrun === 'run' && chunkStartedAt !== undefined ? this.#runMs - (epochNow() - chunkStartedAt()) : 0
        if (left >= 1) arm(left, 'run')
        else this.#expire(overrun)
      }, ms)
      this.#timers.add(timer)
    }
    let started = false
    const signal: StartSignal = {
      queued: false,
      start: () => {
        if (started) return
        started = true
        arm(this.#runMs, 'run')
        onStart?.()
      }
    }
    // Object.assign, not a spread: a spread plus a key per task costs V8 about 6x as much.
    const running = dispatch(Object.assign({}, task, { [queueOptionsSymbol]: signal }))
    // Not queued: Piscina gave it a free worker (or refused it) inside run().
    if (signal.queued) arm(this.#queueMs, 'queue')
    else signal.start()
    try {
      return await running
    } finally {
      if (timer !== undefined) this.#clear(timer)
    }
  }

  /** Stops every clock (the request is over). */
  stop (): void {
    for (const timer of this.#timers) clearTimeout(timer)
    this.#timers.clear()
  }

  #clear (timer: NodeJS.Timeout): void {
    clearTimeout(timer)
    this.#timers.delete(timer)
  }

  #expire (overrun: Overrun): void {
    this.#overrun ??= overrun
    this.#abort.abort()
  }
}
