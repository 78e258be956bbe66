/**
 * Rate limits and the daily quota of each key, counted by rate-limiter-flexible: in this
 * process (RateLimiterMemory), or in Redis over ioredis (RateLimiterRedis) so that every
 * replica shares one count per key and quotas outlive a restart. Per key: requests a second
 * and texts a second (one-second windows; a burst pool of the key's `*_burst` a minute on
 * top, BurstyRateLimiter), and texts a UTC day. A text refused by any limit does not count
 * against the day's quota. A store that fails is reported to the caller, which decides.
 */
import type { Redis } from 'ioredis'
import { createRequire } from 'node:module'
import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible'
import type { ApiKey } from './key-file.js'

export type LimitKind = 'requests' | 'texts' | 'quota'

/** One policy's state, as the RateLimit header field's item says it. */
export interface PolicyState {
  readonly policy: 'requests' | 'texts' | 'daily'
  /** The policy's quota (q), to tell how near the key is to it. */
  readonly quota: number
  readonly remaining: number
  readonly resetSeconds: number
}

export type Charge =
  | { readonly outcome: 'allowed', readonly states: readonly PolicyState[] }
  | { readonly outcome: 'limited', readonly limit: LimitKind, readonly retryAfterSeconds: number, readonly states: readonly PolicyState[], readonly resetsAt?: Date }
  | { readonly outcome: 'store_failed', readonly error: Error }

/**
 * Told of each call to the shared store (Redis) a charge made, after it (tracing draws a span
 * of each): the policy counted, performance.now() times, and whether the store failed.
 */
export type StoreWatch = (call: { readonly policy: PolicyState['policy'], readonly startedAt: number, readonly endedAt: number, readonly failed: boolean }) => void

interface Limiter {
  consume: (key: string, points: number) => Promise<RateLimiterRes>
  reward?: (key: string, points: number) => Promise<RateLimiterRes>
}

const BURST_WINDOW_SECONDS = 60
const DAY_SECONDS = 86400

let today = { day: '', startsAt: 0, endsAt: new Date(0) }

/** The UTC day of `now` (YYYY-MM-DD) and the time it ends; worked out once a day. */
function utcDay (now: Date): { day: string, endsAt: Date } {
  const t = now.getTime()
  if (t >= today.startsAt && t < today.endsAt.getTime()) return today
  const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  today = { day: new Date(start).toISOString().slice(0, 10), startsAt: start, endsAt: new Date(start + DAY_SECONDS * 1000) }
  return today
}

const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000))

const policies = new WeakMap<ApiKey, string>()

/** The RateLimit-Policy field value for a key's limits ('' when it has none), built once per key. */
export function policyField (key: ApiKey): string {
  let field = policies.get(key)
  if (field === undefined) {
    field = buildPolicyField(key)
    policies.set(key, field)
  }
  return field
}

function buildPolicyField (key: ApiKey): string {
  const { requestsPerSecond, textsPerSecond, textsPerDay } = key.limits
  const items: string[] = []
  if (requestsPerSecond !== null) items.push(`"requests";q=${requestsPerSecond};w=1`)
  if (textsPerSecond !== null) items.push(`"texts";q=${textsPerSecond};w=1`)
  if (textsPerDay !== null) items.push(`"daily";q=${textsPerDay};w=${DAY_SECONDS}`)
  return items.join(', ')
}

/** Whether any policy has half or less of its quota left: answers then carry the RateLimit fields. */
export function nearLimit (states: readonly PolicyState[]): boolean {
  for (const s of states) if (s.remaining * 2 <= s.quota) return true
  return false
}

/** The RateLimit field value of some policies' states. */
export function stateField (states: readonly PolicyState[]): string {
  return states.map(s => `"${s.policy}";r=${Math.max(0, s.remaining)};t=${s.resetSeconds}`).join(', ')
}

/** rate-limiter-flexible, loaded with the first RateLimits: a service with no keys never loads it. */
type Flexible = typeof import('rate-limiter-flexible')
let flexible: Flexible | undefined

export class RateLimits {
  readonly #redis: Redis | undefined
  readonly #rlf: Flexible
  /** Limiters by kind and size: a key's counts carry over a reload of the key file that keeps its limits. */
  readonly #limiters = new Map<string, Limiter>()
  /** Each key's limiters, found once per key (a reload makes new key objects, so new entries). */
  readonly #ofKey = new WeakMap<ApiKey, { requests?: Limiter, texts?: Limiter, quota?: Limiter }>()

  constructor (redis?: Redis) {
    this.#redis = redis
    this.#rlf = flexible ??= createRequire(import.meta.url)('rate-limiter-flexible') as Flexible
  }

  /** `limiter`'s consume (or reward), told to `watch` when the counts live in Redis (in memory there is no round trip to show). */
  async #call (watch: StoreWatch | undefined, policy: PolicyState['policy'], call: () => Promise<RateLimiterRes>): Promise<RateLimiterRes> {
    if (watch === undefined || this.#redis === undefined) return await call()
    const startedAt = performance.now()
    let failed = false
    try {
      return await call()
    } catch (err) {
      // A refusal (RateLimiterRes) is an answer of the store, not a failure of it.
      failed = !(err instanceof this.#rlf.RateLimiterRes)
      throw err
    } finally {
      watch({ policy, startedAt, endedAt: performance.now(), failed })
    }
  }

  #store (keyPrefix: string, points: number, duration: number): RateLimiterAbstract {
    return this.#redis === undefined
      ? new this.#rlf.RateLimiterMemory({ keyPrefix, points, duration })
      // Not ready (down, reconnecting): refuse at once rather than queue; ioredis's commandTimeout bounds the rest.
      : new this.#rlf.RateLimiterRedis({ storeClient: this.#redis, keyPrefix, points, duration, rejectIfRedisNotReady: true })
  }

  #limiter (kind: 'requests' | 'texts', perSecond: number, burst: number): Limiter {
    const name = `${kind}:${perSecond}:${burst}`
    let limiter = this.#limiters.get(name)
    if (limiter === undefined) {
      const rate = this.#store(`tfs:${kind}:${perSecond}`, perSecond, 1)
      limiter = burst > 0 ? new this.#rlf.BurstyRateLimiter(rate, this.#store(`tfs:${kind}-burst:${burst}`, burst, BURST_WINDOW_SECONDS)) : rate
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

  #limitersOf (key: ApiKey): { requests?: Limiter, texts?: Limiter, quota?: Limiter } {
    let found = this.#ofKey.get(key)
    if (found === undefined) {
      const l = key.limits
      found = {
        requests: l.requestsPerSecond === null ? undefined : this.#limiter('requests', l.requestsPerSecond, l.requestsBurst),
        texts: l.textsPerSecond === null ? undefined : this.#limiter('texts', l.textsPerSecond, l.textsBurst),
        quota: l.textsPerDay === null ? undefined : this.#quota(l.textsPerDay)
      }
      this.#ofKey.set(key, found)
    }
    return found
  }

  /** Gives `n` refused texts back to the day's quota. */
  async #reward (watch: StoreWatch | undefined, quota: { limiter: Limiter, key: string }, n: number): Promise<void> {
    const reward = quota.limiter.reward
    if (reward !== undefined) await this.#call(watch, 'daily', async () => await reward.call(quota.limiter, quota.key, n))
  }

  /** One request of `key`, counted against its requests a second. */
  async chargeRequest (key: ApiKey, watch?: StoreWatch): Promise<Charge> {
    const limiter = this.#limitersOf(key).requests
    if (limiter === undefined) return { outcome: 'allowed', states: [] }
    try {
      const r = await this.#call(watch, 'requests', async () => await limiter.consume(key.id, 1))
      return { outcome: 'allowed', states: [{ policy: 'requests', quota: key.limits.requestsPerSecond!, remaining: r.remainingPoints, resetSeconds: seconds(r.msBeforeNext) }] }
    } catch (err) {
      if (!(err instanceof this.#rlf.RateLimiterRes)) return { outcome: 'store_failed', error: err as Error }
      const state: PolicyState = { policy: 'requests', quota: key.limits.requestsPerSecond!, remaining: 0, resetSeconds: seconds(err.msBeforeNext) }
      return { outcome: 'limited', limit: 'requests', retryAfterSeconds: state.resetSeconds, states: [state] }
    }
  }

  /** `n` texts of `key`, counted against its day's quota and its texts a second. */
  async chargeTexts (key: ApiKey, n: number, now = new Date(), watch?: StoreWatch): Promise<Charge> {
    const { textsPerDay } = key.limits
    const limiters = this.#limitersOf(key)
    const states: PolicyState[] = []
    let quota: { limiter: Limiter, key: string } | undefined
    try {
      if (limiters.quota !== undefined && textsPerDay !== null) {
        const { day, endsAt } = utcDay(now)
        quota = { limiter: limiters.quota, key: `${key.id}:${day}` }
        const resetSeconds = seconds(endsAt.getTime() - now.getTime())
        try {
          const r = await this.#call(watch, 'daily', async () => await quota!.limiter.consume(quota!.key, n))
          states.push({ policy: 'daily', quota: textsPerDay, remaining: r.remainingPoints, resetSeconds })
        } catch (err) {
          if (!(err instanceof this.#rlf.RateLimiterRes)) throw err
          // Refused texts are not served, so they do not count.
          await this.#reward(watch, quota, n)
          const remaining = Math.max(0, textsPerDay - (err.consumedPoints - n))
          return { outcome: 'limited', limit: 'quota', retryAfterSeconds: resetSeconds, resetsAt: endsAt, states: [{ policy: 'daily', quota: textsPerDay, remaining, resetSeconds }] }
        }
      }
      if (limiters.texts !== undefined) {
        try {
          const texts = limiters.texts
          const r = await this.#call(watch, 'texts', async () => await texts.consume(key.id, n))
          states.push({ policy: 'texts', quota: key.limits.textsPerSecond!, remaining: r.remainingPoints, resetSeconds: seconds(r.msBeforeNext) })
        } catch (err) {
          if (!(err instanceof this.#rlf.RateLimiterRes)) throw err
          if (quota !== undefined) await this.#reward(watch, quota, n)
          const state: PolicyState = { policy: 'texts', quota: key.limits.textsPerSecond!, remaining: 0, resetSeconds: seconds(err.msBeforeNext) }
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
