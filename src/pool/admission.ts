/**
 * The stability protection (docs/http-api.md, "Limits and timeouts"): at most `maxActive` holders at once and at
 * most `maxWaiting` in line; past that, `acquire` refuses at once, costing nothing.
 */
import { ServiceError } from '../errors.js'
import { abandonment } from './abandoned.js'

export class Admission {
  readonly #maxActive: number
  readonly #maxWaiting: number
  #active = 0
  readonly #waiting: Array<() => void> = []
  readonly #onIdle: Array<() => void> = []

  constructor (maxActive: number, maxWaiting: number) {
    if (!Number.isInteger(maxActive) || maxActive < 1) throw new RangeError('maxActive must be an integer >= 1')
    if (!Number.isInteger(maxWaiting) || maxWaiting < 0) throw new RangeError('maxWaiting must be an integer >= 0')
    this.#maxActive = maxActive
    this.#maxWaiting = maxWaiting
  }

  get active (): number {
    return this.#active
  }

  get waiting (): number {
    return this.#waiting.length
  }

  /**
   * Takes a slot, waiting in line at most `waitMs` for one; `signal` takes the request out of
   * line at once.
   * @throws ServiceError ERR_QUEUE_FULL when both the active slots and the line are full,
   * ERR_QUEUE_TIMEOUT when no slot came free within `waitMs`, the abandonment when `signal` fires first.
   */
  async acquire (waitMs: number = Infinity, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted === true) throw abandonment(signal)
    if (this.#active < this.#maxActive) {
      this.#active++
      return
    }
    if (this.#waiting.length >= this.#maxWaiting) throw new ServiceError('ERR_QUEUE_FULL')
    await new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined
      const take = (): void => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', leave)
        resolve()
      }
      // Out of the line: release() never hands this one a slot.
      const out = (err: ServiceError): void => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', leave)
        this.#waiting.splice(this.#waiting.indexOf(take), 1)
        reject(err)
      }
      const leave = (): void => { out(abandonment(signal!)) }
      this.#waiting.push(take)
      signal?.addEventListener('abort', leave, { once: true })
      if (waitMs === Infinity) return
      timer = setTimeout(() => { out(new ServiceError('ERR_QUEUE_TIMEOUT', `waited ${waitMs} ms for a worker`)) }, waitMs)
    })
  }

  /** Hands the slot to the next in line, or frees it. */
  release (): void {
    const next = this.#waiting.shift()
    if (next !== undefined) return next()
    this.#active--
    if (this.#active === 0) for (const resolve of this.#onIdle.splice(0)) resolve()
  }

  /** Resolves once nothing is active or waiting. */
  async idle (): Promise<void> {
    if (this.#active === 0) return
    await new Promise<void>(resolve => this.#onIdle.push(resolve))
  }
}
