/**
 * How decoded models reach the workers: over a BroadcastChannel, so the workers can start
 * (and load their code) while a model is still being decoded, and a worker started later (a
 * replacement), or one meeting a model for the first time, asks for it and gets it. Each model
 * goes by a key (its name, version and load); a state's arrays are SharedArrayBuffer views,
 * which a channel passes by reference: every worker maps the same memory. A dropped key tells
 * the workers to let go of that model, so its memory can be freed.
 */
import { BroadcastChannel } from 'node:worker_threads'
import type { AnyModelState } from '../model/ensemble.js'
import type { AppSource } from '../model/served-model.js'

/**
 * A model as a worker needs it: its state, and its settings and functions module as its load
 * read them (a worker started later builds the same model, whatever the files hold by then).
 */
export interface PublishedModel {
  readonly state: AnyModelState
  readonly app: AppSource | null
}

interface ModelMessage {
  readonly key?: string
  readonly model?: PublishedModel
  readonly need?: string
  readonly drop?: string
}

let pools = 0

/** The pool's side: publishes each model once decoded, again to whoever asks, and drops it. */
export class ModelPublisher {
  readonly name = `tfidf-serve-model-${process.pid}-${++pools}`
  readonly #channel = new BroadcastChannel(this.name)
  readonly #models = new Map<string, PublishedModel>()

  constructor () {
    this.#channel.onmessage = (event: unknown) => {
      const { need } = (event as { data: ModelMessage }).data
      if (need !== undefined && this.#models.has(need)) this.#send(need)
    }
    // Replacements may ask at any time, but the channel must not keep the process alive.
    this.#channel.unref()
  }

  publish (key: string, model: PublishedModel): void {
    this.#models.set(key, model)
    this.#send(key)
  }

  /** Forgets `key` here and in every worker. */
  drop (key: string): void {
    this.#models.delete(key)
    this.#channel.postMessage({ drop: key } satisfies ModelMessage)
  }

  close (): void {
    this.#channel.close()
  }

  #send (key: string): void {
    this.#channel.postMessage({ key, model: this.#models.get(key) } satisfies ModelMessage)
  }
}

/** A worker's side: one listener for the life of the worker, models by key as they are published. */
export class ModelSubscriber {
  readonly #channel: BroadcastChannel
  readonly #waiting = new Map<string, Array<(model: PublishedModel) => void>>()
  readonly #onDrop: (key: string) => void

  constructor (name: string, onDrop: (key: string) => void) {
    this.#channel = new BroadcastChannel(name)
    this.#onDrop = onDrop
    this.#channel.onmessage = (event: unknown) => {
      const { key, model, drop } = (event as { data: ModelMessage }).data
      if (drop !== undefined) this.#onDrop(drop)
      if (key === undefined || model === undefined) return
      const waiters = this.#waiting.get(key)
      this.#waiting.delete(key)
      for (const resolve of waiters ?? []) resolve(model)
    }
    this.#channel.unref()
  }

  /** The model published under `key` (asked for, in case it was published before this worker listened). */
  async receive (key: string): Promise<PublishedModel> {
    return await new Promise(resolve => {
      const waiters = this.#waiting.get(key) ?? []
      waiters.push(resolve)
      this.#waiting.set(key, waiters)
      this.#channel.postMessage({ need: key } satisfies ModelMessage)
    })
  }
}
