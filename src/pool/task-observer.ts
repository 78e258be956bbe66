/**
 * What a caller may watch of one pool call, told after the fact with performance.now() times
 * on the front thread: when the call was admitted, and each worker task it ran, with what the
 * worker measured of its own work (a worker thread has no tracer of its own; its times come
 * back in the task's result). Tracing (src/tracing/) draws its spans from these; the pool
 * knows nothing of spans. A call with no observer runs as before: no clock read, no flag sent.
 */
import type { Share } from './adaptive-batcher.js'
import type { WorkerPhases } from './messages.js'

export interface PoolObserver {
  /** The call asked for its admission slot at `askedAt` and got it at `admittedAt`. */
  readonly admitted?: (askedAt: number, admittedAt: number) => void
  /** One worker task of the call ended, done or failed. */
  readonly taskEnded?: (report: TaskReport) => void
}

export interface TaskReport {
  /** The worker function: classify, score or explain. */
  readonly name: string
  /** The texts the task carried. */
  readonly texts: number
  /** Handed to Piscina; taken by a worker (null: never taken, it was refused or aborted in line); ended. */
  readonly sentAt: number
  readonly startedAt: number | null
  readonly endedAt: number
  /** What the worker measured, summed over its texts; absent for a failed task or one that does not measure. */
  readonly phases?: WorkerPhases
  readonly failed: boolean
  /**
   * The texts went into a task gathered with other requests' (adaptive batching): `sentAt` is
   * when this call handed them to the batcher, `endedAt` when its share came back; when a
   * worker took the gathered task is not this call's to know (startedAt null).
   */
  readonly gathered?: boolean
}

const TIMED = { timed: true } as const

/**
 * Runs one task through `run` (which tells `onStart` when a worker takes it), asking the worker
 * to time its phases (`timed`), and reports it to `taskEnded` whether it succeeds or fails.
 */
export async function watchTask<T extends object, R> (task: T, name: string, run: (timed: T, onStart: () => void) => Promise<R>, taskEnded: (report: TaskReport) => void): Promise<R> {
  const sentAt = performance.now()
  let startedAt: number | null = null
  const texts = (task as { texts?: readonly unknown[] }).texts?.length ?? 0
  try {
    const result = await run(Object.assign({}, task, TIMED), () => { startedAt = performance.now() })
    taskEnded({ name, texts, sentAt, startedAt, endedAt: performance.now(), phases: (result as { phases?: WorkerPhases } | null)?.phases, failed: false })
    return result
  } catch (err) {
    taskEnded({ name, texts, sentAt, startedAt, endedAt: performance.now(), failed: true })
    throw err
  }
}

/** One chunk handed to the adaptive batcher by `submit`, reported to `taskEnded` as a gathered task. */
export async function watchShare<R> (texts: number, submit: () => Promise<Share<R>>, taskEnded: (report: TaskReport) => void): Promise<Share<R>> {
  const sentAt = performance.now()
  try {
    const share = await submit()
    taskEnded({ name: 'predict', texts, sentAt, startedAt: null, endedAt: performance.now(), failed: false, gathered: true })
    return share
  } catch (err) {
    taskEnded({ name: 'predict', texts, sentAt, startedAt: null, endedAt: performance.now(), failed: true, gathered: true })
    throw err
  }
}
