/**
 * How decoded models reach the workers, and leave them: over a BroadcastChannel, which every
 * worker hears whether it is idle or busy (busy: once its task yields), so the workers can
 * start (and load their code) while a model is still being decoded, and a worker started later
 * (a replacement), or one meeting a model for the first time, asks for it and gets it. Each
 * model goes by a key (its name, version and load); a state's arrays are SharedArrayBuffer
 * views, which a channel passes by reference: every worker maps the same memory.
 *
 * A drop reaches every worker and each confirms it, so the pool knows when no worker holds
 * the model (docs/many-models.md). A key the pool does not hold is answered as missing at once:
 * a worker never waits for a model that will not come.
 */
import { BroadcastChannel, threadId } from 'node:worker_threads'
import type { AnyModelState } from '../model/ensemble.js'
import type { AppSource } from '../model/served-model.js'
import { NOT_SERVED } from './messages.js'

/**
 * A model as a worker needs it: its state, and its settings and functions module as its load
 * read them (a worker started later builds the same model, whatever the files hold by then).
 */
export interface PublishedModel {
  readonly state: AnyModelState
  readonly app: AppSource | null
}

/** What one worker holds, as it says itself: the models it has created and those it waits for. */
export interface WorkerHeld {
  readonly threadId: number
  readonly models: readonly string[]
  readonly waiting: readonly string[]
}

interface ModelMessage {
  readonly key?: string
  readonly model?: PublishedModel
  readonly need?: string
  /** The pool holds no such key (a worker asked for it). */
  readonly missing?: string
  readonly drop?: string
  /** A worker let go of a dropped key (its thread in `thread`). */
  readonly dropped?: string
  readonly thread?: number
  /** The pool asks every worker what it holds; each answers with the same number and `held`. */
  readonly census?: number
  readonly held?: WorkerHeld
}


let pools = 0

/** Waits for an answer from each of some threads; a thread that ends stops being waited for. */
interface Gathering {
  readonly from: Set<number>
  readonly done: () => void
}

/** The pool's side: publishes each model once decoded, again to whoever asks, and drops it from every worker. */
export class ModelPublisher {
  readonly name = `tfidf-serve-model-${process.pid}-${++pools}`
  readonly #channel = new BroadcastChannel(this.name)
  readonly #models = new Map<string, PublishedModel>()
  /** Drops waiting for their confirmations, by key. */
  readonly #drops = new Map<string, Gathering[]>()
  readonly #censuses = new Map<number, Gathering & { readonly held: WorkerHeld[] }>()
  readonly #threads: () => readonly number[]
  #census = 0
  #sweep: NodeJS.Timeout | undefined

  /** `threads`: the thread ids of the workers alive now. */
  constructor (threads: () => readonly number[]) {
    this.#threads = threads
    this.#channel.onmessage = (event: unknown) => {
      const message = (event as { data: ModelMessage }).data
      if (message.need !== undefined) {
        if (this.#models.has(message.need)) this.#send(message.need)
        else this.#channel.postMessage({ missing: message.need } satisfies ModelMessage)
      }
      if (message.dropped !== undefined) for (const g of this.#drops.get(message.dropped) ?? []) this.#heard(g, message.thread!)
      if (message.census !== undefined && message.held !== undefined) {
        const c = this.#censuses.get(message.census)
        if (c !== undefined && c.from.has(message.held.threadId)) c.held.push(message.held)
        if (c !== undefined) this.#heard(c, message.held.threadId)
      }
    }
    // Replacements may ask at any time, but the channel must not keep the process alive.
    this.#channel.unref()
  }

  publish (key: string, model: PublishedModel): void {
    this.#models.set(key, model)
    this.#send(key)
  }

  /** Whether `key` is published (a worker asking for it gets it). */
  holds (key: string): boolean {
    return this.#models.has(key)
  }

  /** Forgets `key` here and in every worker; resolves once each worker alive now has let go of it (or ended). */
  async drop (key: string): Promise<void> {
    this.#models.delete(key)
    await this.#gather(g => { this.#drops.set(key, [...(this.#drops.get(key) ?? []), g]) }, () => {
      const left = (this.#drops.get(key) ?? []).filter(g => g.from.size > 0)
      if (left.length === 0) this.#drops.delete(key)
      else this.#drops.set(key, left)
    }, { drop: key })
  }

  /** What every worker alive now holds, as each says. */
  async census (): Promise<WorkerHeld[]> {
    const id = ++this.#census
    const held: WorkerHeld[] = []
    await this.#gather(g => { this.#censuses.set(id, { ...g, held }) }, () => { this.#censuses.delete(id) }, { census: id })
    return held.sort((a, b) => a.threadId - b.threadId)
  }

  close (): void {
    clearInterval(this.#sweep)
    this.#sweep = undefined
    for (const gs of this.#drops.values()) for (const g of gs) g.done()
    for (const c of this.#censuses.values()) c.done()
    this.#drops.clear()
    this.#censuses.clear()
    this.#channel.close()
  }

  /** Posts `message` and resolves once every worker alive now has answered it or ended. */
  async #gather (register: (g: Gathering) => void, unregister: () => void, message: ModelMessage): Promise<void> {
    const from = new Set(this.#threads())
    if (from.size === 0) return
    await new Promise<void>(resolve => {
      register({ from, done: resolve })
      this.#channel.postMessage(message)
      this.#startSweep()
    })
    unregister()
  }

  #heard (g: Gathering, thread: number): void {
    g.from.delete(thread)
    if (g.from.size === 0) g.done()
  }

  /** A worker that ended (crashed, or replaced after a timeout) will not answer: stop waiting for it. */
  #startSweep (): void {
    this.#sweep ??= setInterval(() => {
      const alive = new Set(this.#threads())
      const all = [...[...this.#drops.values()].flat(), ...this.#censuses.values()]
      for (const g of all) for (const t of g.from) if (!alive.has(t)) this.#heard(g, t)
      if (all.every(g => g.from.size === 0)) {
        clearInterval(this.#sweep)
        this.#sweep = undefined
      }
    }, 50)
    this.#sweep.unref()
  }

  #send (key: string): void {
    this.#channel.postMessage({ key, model: this.#models.get(key) } satisfies ModelMessage)
  }
}

/** A worker's side: one listener for the life of the worker, models by key as they are published. */
export class ModelSubscriber {
  readonly #channel: BroadcastChannel
  readonly #waiting = new Map<string, Array<{ resolve: (model: PublishedModel) => void, reject: (err: Error) => void }>>()

  /**
   * @param onDrop lets go of a dropped key; the pool is told once it resolves.
   * @param held the keys of the models this worker holds (for the pool's census).
   */
  constructor (name: string, onDrop: (key: string) => Promise<void>, held: () => readonly string[]) {
    this.#channel = new BroadcastChannel(name)
    this.#channel.onmessage = (event: unknown) => {
      const { key, model, drop, missing, census } = (event as { data: ModelMessage }).data
      if (drop !== undefined) {
        this.#fail(drop, 'it was dropped')
        void onDrop(drop).then(() => { this.#channel.postMessage({ dropped: drop, thread: threadId } satisfies ModelMessage) })
      }
      if (missing !== undefined) this.#fail(missing, 'the pool does not hold it')
      if (census !== undefined) this.#channel.postMessage({ census, held: { threadId, models: [...held()], waiting: [...this.#waiting.keys()] } } satisfies ModelMessage)
      if (key === undefined || model === undefined) return
      const waiters = this.#waiting.get(key)
      this.#waiting.delete(key)
      for (const w of waiters ?? []) w.resolve(model)
    }
    this.#channel.unref()
  }

  /**
   * The model published under `key` (asked for, in case it was published before this worker listened).
   * @throws Error starting with NOT_SERVED when the pool does not hold `key`.
   */
  async receive (key: string): Promise<PublishedModel> {
    return await new Promise((resolve, reject) => {
      const waiters = this.#waiting.get(key) ?? []
      waiters.push({ resolve, reject })
      this.#waiting.set(key, waiters)
      this.#channel.postMessage({ need: key } satisfies ModelMessage)
    })
  }

  #fail (key: string, why: string): void {
    const waiters = this.#waiting.get(key)
    this.#waiting.delete(key)
    for (const w of waiters ?? []) w.reject(new Error(`${NOT_SERVED}${key} (${why})`))
  }
}
