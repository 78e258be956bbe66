/**
 * How the decoded model reaches the workers: over a BroadcastChannel, so the workers can
 * start (and load their code) while the model is still being decoded, and a worker started
 * later (a replacement) asks for it and gets it. The state's arrays are SharedArrayBuffer
 * views, which a channel passes by reference: every worker maps the same memory.
 */
import { BroadcastChannel } from 'node:worker_threads'
import type { ModelState } from '../sklearn/load-model.js'

interface ModelMessage {
  readonly model?: ModelState
  readonly need?: true
}

let pools = 0

/** The pool's side: publishes the model once decoded, and again to whoever asks later. */
export class ModelPublisher {
  readonly name = `tfidf-serve-model-${process.pid}-${++pools}`
  readonly #channel = new BroadcastChannel(this.name)
  #model: ModelState | undefined

  constructor () {
    this.#channel.onmessage = (event: unknown) => {
      if ((event as { data: ModelMessage }).data.need === true && this.#model !== undefined) this.#send()
    }
    // Replacements may ask at any time, but the channel must not keep the process alive.
    this.#channel.unref()
  }

  publish (model: ModelState): void {
    this.#model = model
    this.#send()
  }

  close (): void {
    this.#channel.close()
  }

  #send (): void {
    this.#channel.postMessage({ model: this.#model } satisfies ModelMessage)
  }
}

/** A worker's side: the model, once published (asking for it, in case that was before this worker listened). */
export async function receiveModel (name: string): Promise<ModelState> {
  const channel = new BroadcastChannel(name)
  try {
    return await new Promise<ModelState>(resolve => {
      channel.onmessage = (event: unknown) => {
        const { model } = (event as { data: ModelMessage }).data
        if (model !== undefined) resolve(model)
      }
      channel.postMessage({ need: true } satisfies ModelMessage)
    })
  } finally {
    channel.close()
  }
}
