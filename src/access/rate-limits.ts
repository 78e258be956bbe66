/**
 * Rate limits and the daily quota of each key, counted by rate-limiter-flexible: in this
 * process (RateLimiterMemory), or in Redis over ioredis (RateLimiterRedis) so that every
 * replica shares one count per key and quotas outlive a restart. Per key: requests a second
 * and texts a second (one-second windows; a burst pool of the key's `*_burst` a minute on
 * top, BurstyRateLimiter), and texts a UTC day. A text refused by any limit does not count
 * against the day's quota. A store that fails is reported to the caller, which decides.
 */
import type { Redis } from 'ioredis'
import { BurstyRateLimiter, RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible'
import type { ApiKey } from './key-file.js'

export type LimitKind = 'requests' | 'texts' | 'quota'

/** One policy's state, as the RateLimit header field's item says it. */
export interface PolicyState {
  readonly policy: 'requests' | 'texts' | 'daily'
  readonly remaining: number
  readonly resetSeconds: number
}

export type Charge =
  | { readonly outcome: 'allowed', readonly states: readonly PolicyState[] }
  | { readonly outcome: 'limited', readonly limit: LimitKind, readonly retryAfterSeconds: number, readonly states: readonly PolicyState[], readonly resetsAt?: Date }
  | { readonly outcome: 'store_failed', readonly error: Error }

interface Limiter {
  consume: (key: string, points: number) => Promise<RateLimiterRes>
  reward?: (key: string, points: number) => Promise<RateLimiterRes>
}

const BURST_WINDOW_SECONDS = 60
const DAY_SECONDS = 86400

/** The UTC day of `now` (YYYY-MM-DD) and the time it ends. */
function utcDay (now: Date): { day: string, endsAt: Date } {
  const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  return { day: new Date(start).toISOString().slice(0, 10), endsAt: new Date(start + DAY_SECONDS * 1000) }
}

const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000))

/** The RateLimit-Policy field value for a key's limits ('' when it has none). */
export function policyField (key: ApiKey): string {
  const { requestsPerSecond, textsPerSecond, textsPerDay } = key.limits
  const items: string[] = []
  if (requestsPerSecond !== null) items.push(`"requests";q=${requestsPerSecond};w=1`)
  if (textsPerSecond !== null) items.push(`"texts";q=${textsPerSecond};w=1`)
  if (textsPerDay !== null) items.push(`"daily";q=${textsPerDay};w=${DAY_SECONDS}`)
  return items.join(', ')
}

/** The RateLimit field value of some policies' states. */
export function stateField (states: readonly PolicyState[]): string {
  return states.map(s => `"${s.policy}";r=${Math.max(0, s.remaining)};t=${s.resetSeconds}`).join(', ')
}

export class RateLimits {
  readonly #redis: Redis | undefined
  /** Limiters by kind and size: a key's counts carry over a reload of the key file that keeps its limits. */
  readonly #limiters = new Map<string, Limiter>()

  constructor (redis?: Redis) {
    this.#redis = redis
  }

  #store (keyPrefix: string, points: number, duration: number): RateLimiterAbstract {
    return this.#redis === undefined
      ? new RateLimiterMemory({ keyPrefix, points, duration })
      // Not ready (down, reconnecting): refuse at once rather than queue; ioredis's commandTimeout bounds the rest.
      : new RateLimiterRedis({ storeClient: this.#redis, keyPrefix, points, duration, rejectIfRedisNotReady: true })
  }

  #limiter (kind: 'requests' | 'texts', perSecond: number, burst: number): Limiter {
    const name = `${kind}:${perSecond}:${burst}`
    let limiter = this.#limiters.get(name)
    if (limiter === undefined) {
      const rate = this.#store(`tfs:${kind}:${perSecond}`, perSecond, 1)
      limiter = burst > 0 ? new BurstyRateLimiter(rate, this.#store(`tfs:${kind}-burst:${burst}`, burst, BURST_WINDOW_SECONDS)) : rate
      this.#limiters.set(name, limiter)
    }
    return limiter
  }

  #quota (perDay: number): Limiter {
    const name = `quota:${perDay}`
    let limiter = this.#limiters.get(name)
    if (limiter === undefined) {
      // The day is in the key (below); the expiry only clears yesterday's counts away.
      limiter = this.#store('tfs:quota', perDay, 2 * DAY_SECONDS)
      this.#limiters.set(name, limiter)
    }
    return limiter
  }

  /** One request of `key`, counted against its requests a second. */
  async chargeRequest (key: ApiKey): Promise<Charge> {
    const { requestsPerSecond, requestsBurst } = key.limits
    if (requestsPerSecond === null) return { outcome: 'allowed', states: [] }
    try {
      const r = await this.#limiter('requests', requestsPerSecond, requestsBurst).consume(key.id, 1)
      return { outcome: 'allowed', states: [{ policy: 'requests', remaining: r.remainingPoints, resetSeconds: seconds(r.msBeforeNext) }] }
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) return { outcome: 'store_failed', error: err as Error }
      const state: PolicyState = { policy: 'requests', remaining: 0, resetSeconds: seconds(err.msBeforeNext) }
      return { outcome: 'limited', limit: 'requests', retryAfterSeconds: state.resetSeconds, states: [state] }
    }
  }

  /** `n` texts of `key`, counted against its day's quota and its texts a second. */
  async chargeTexts (key: ApiKey, n: number, now = new Date()): Promise<Charge> {
    const { textsPerSecond, textsBurst, textsPerDay } = key.limits
    const states: PolicyState[] = []
    let quota: { limiter: Limiter, key: string } | undefined
    try {
      if (textsPerDay !== null) {
        const { day, endsAt } = utcDay(now)
        quota = { limiter: this.#quota(textsPerDay), key: `${key.id}:${day}` }
        const resetSeconds = seconds(endsAt.getTime() - now.getTime())
        try {
          const r = await quota.limiter.consume(quota.key, n)
          states.push({ policy: 'daily', remaining: r.remainingPoints, resetSeconds })
        } catch (err) {
          if (!(err instanceof RateLimiterRes)) throw err
          // Refused texts are not served, so they do not count.
          await quota.limiter.reward?.(quota.key, n)
          const remaining = Math.max(0, textsPerDay - (err.consumedPoints - n))
          return { outcome: 'limited', limit: 'quota', retryAfterSeconds: resetSeconds, resetsAt: endsAt, states: [{ policy: 'daily', remaining, resetSeconds }] }
        }
      }
      if (textsPerSecond !== null) {
        try {
          const r = await this.#limiter('texts', textsPerSecond, textsBurst).consume(key.id, n)
          states.push({ policy: 'texts', remaining: r.remainingPoints, resetSeconds: seconds(r.msBeforeNext) })
        } catch (err) {
          if (!(err instanceof RateLimiterRes)) throw err
          if (quota !== undefined) await quota.limiter.reward?.(quota.key, n)
          const state: PolicyState = { policy: 'texts', remaining: 0, resetSeconds: seconds(err.msBeforeNext) }
          // A batch larger than a whole second's texts can never pass: the client is told so by the detail.
          return { outcome: 'limited', limit: 'texts', retryAfterSeconds: state.resetSeconds, states: [...states.filter(s => s.policy !== 'daily'), state] }
        }
      }
      return { outcome: 'allowed', states }
    } catch (err) {
      return { outcome: 'store_failed', error: err as Error }
    }
  }
}
