/**
 * Which pool workers have started (each says so once its modules are loaded), so the pool
 * never terminates one that is still loading them: on Node 20, `worker.terminate()` while the
 * worker's `require`/`import` of an ES module graph is linking it aborts the whole process
 * (`FATAL ERROR: v8::Module::IsGraphAsync ... must be used on an instantiated module` and a
 * native stack) instead of ending the thread. A refusal decided while the workers still load
 * their code (the model decodes beside them and fails first) is where that happened.
 */
import type { Worker } from 'node:worker_threads'

/**
 * How long a teardown waits for workers still loading their code. Loading takes well under a
 * second on an idle machine; past the bound the pool is torn down anyway (a worker that never
 * says it started has failed, and Piscina removes it from its threads).
 */
export const START_WAIT_MS = 10_000

export class WorkerStarts {
  /** How many workers the pool started with: later starts are replacements. */
  readonly first: number
  /** Workers started so far. */
  count = 0
  readonly #started = new Set<number>()
  readonly #waiters = new Set<() => void>()

  constructor (first: number) {
    this.first = first
  }

  /** Notes the worker `threadId` as started (its modules loaded). */
  started (threadId: number): void {
    this.count++
    this.#started.add(threadId)
    for (const wake of this.#waiters) wake()
  }

  /**
   * Resolves once every worker `threads()` lists has started or exited, or after `timeoutMs`.
   * `threads` is read again after each start, as the pool may replace a worker meanwhile.
   */
  async settled (threads: () => readonly Worker[], timeoutMs: number = START_WAIT_MS): Promise<void> {
    const deadline = performance.now() + timeoutMs
    for (;;) {
      // a worker that has exited has threadId -1
      const loading = threads().filter(w => w.threadId !== -1 && !this.#started.has(w.threadId))
      const left = deadline - performance.now()
      if (loading.length === 0 || left <= 0) return
      await new Promise<void>(resolve => {
        const wake = (): void => {
          clearTimeout(timer)
          this.#waiters.delete(wake)
          for (const w of loading) w.off('exit', wake)
          resolve()
        }
        const timer = setTimeout(wake, left)
        this.#waiters.add(wake)
        for (const w of loading) w.once('exit', wake)
      })
    }
  }
}
