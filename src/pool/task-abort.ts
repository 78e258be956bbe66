/**
 * One abort for all the worker tasks of a request. Piscina takes any object with
 * addEventListener/removeEventListener as a task's signal and adds one listener per task;
 * on a real AbortSignal, a request cut into more than ten chunks (batch_size 1 with 11
 * texts) made Node print a MaxListenersExceededWarning to stderr, once per request. Here
 * the tasks' listeners sit in one set that the request owns and that empties as they end.
 */
type Listener = () => void

export class TaskAbort {
  #listeners = new Set<Listener>()
  #aborted = false

  /** `parent`: an abort this one follows (a request's, for one of its tasks). */
  constructor (parent?: TaskAbort) {
    if (parent === undefined) return
    if (parent.aborted) this.#aborted = true
    else parent.addEventListener('abort', () => { this.abort() })
  }

  get aborted (): boolean {
    return this.#aborted
  }

  /** Listeners not yet removed: the tasks still running or queued. */
  get listenerCount (): number {
    return this.#listeners.size
  }

  addEventListener (_type: 'abort', listener: Listener): void {
    this.#listeners.add(listener)
  }

  removeEventListener (_type: 'abort', listener: Listener): void {
    this.#listeners.delete(listener)
  }

  abort (): void {
    if (this.#aborted) return
    this.#aborted = true
    const listeners = [...this.#listeners]
    this.#listeners.clear()
    for (const listener of listeners) listener()
  }
}
