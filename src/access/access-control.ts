/**
 * The one decision on who may do what, shared by the HTTP routes and gRPC: which key a
 * request carries (`Authorization: Bearer <secret>` or `X-API-Key`), whether its scopes
 * cover the route, and whether its limits let it through. Off (no instance) when
 * API_KEYS_FILE is unset. A failing rate-limit store never fails a request with a 500 or
 * holds it: the request goes through (open) or gets 503 (closed), as
 * RATE_LIMIT_ON_STORE_ERROR says, the outage logged once and each failure counted.
 */
import { createRequire } from 'node:module'
import type { Redis } from 'ioredis'
import type { Config } from '../config.js'
import type { Logger } from '../logger.js'
import { KeyRing } from './key-ring.js'
import type { ApiKey, Scope } from './key-file.js'
import { policyField, RateLimits, type Charge, type LimitKind, type PolicyState, type StoreWatch } from './rate-limits.js'

export type { ApiKey, Scope }

export type Denial = 'missing' | 'unknown' | 'scope'

export type Decision =
  | { readonly ok: true, readonly key: ApiKey, readonly policy: string, readonly states: readonly PolicyState[] }
  | { readonly ok: false, readonly status: 401 | 403 | 429 | 503, readonly detail: string, readonly key?: ApiKey, readonly retryAfterSeconds?: number, readonly policy?: string, readonly states?: readonly PolicyState[] }

/** What a key could be, before it is checked: the header's secret, if any. */
export interface Credentials {
  readonly authorization?: string | undefined
  readonly apiKey?: string | undefined
}

/** Secrets are 47 characters; anything far longer is not one of ours and is not hashed. */
const MAX_SECRET_LENGTH = 1024

/** The secret a request carries: a Bearer token (the scheme in any case), else X-API-Key. */
export function secretOf ({ authorization, apiKey }: Credentials): string | undefined {
  if (authorization !== undefined && authorization.length > 7 && authorization.slice(0, 7).toLowerCase() === 'bearer ') {
    const token = authorization.slice(7).trim()
    if (token !== '' && !/\s/.test(token)) return token
  }
  return apiKey === undefined || apiKey === '' ? undefined : apiKey.trim()
}

export interface AccessEvents {
  /** A key used up its texts for the UTC day `day` (once per key and day per process). */
  readonly onQuotaExhausted?: (key: string, day: string, limit: number, resetsAt: Date) => void
}

export class AccessControl {
  readonly keys: KeyRing
  readonly #limits: RateLimits
  readonly #redis: Redis | undefined
  readonly #logger: Logger
  readonly #onStoreError: 'open' | 'closed'
  readonly #events: AccessEvents
  #storeDown = false
  readonly #exhausted = new Set<string>()
  /** Counts read by the Prometheus scrape. */
  readonly counts = { denied: new Map<Denial, number>(), limited: new Map<string, number>(), storeErrors: 0 }

  /** @throws ServiceError ERR_CONFIG_INVALID for a key file that cannot be used. */
  constructor (config: Pick<Config, 'apiKeysFile' | 'redisUrl' | 'redisTimeoutMs' | 'rateLimitOnStoreError'> & { apiKeysFile: string }, logger: Logger, events: AccessEvents = {}) {
    this.#logger = logger
    this.#events = events
    this.#onStoreError = config.rateLimitOnStoreError
    this.keys = new KeyRing(config.apiKeysFile, {
      onReload: keys => logger.info('api keys reloaded', { file: config.apiKeysFile, keys }),
      onReloadFailed: err => logger.error(`api keys not reloaded, the previous keys stay in force: ${err.message}`)
    })
    if (config.redisUrl !== null) {
      // ioredis is loaded only here: a service with no REDIS_URL never loads it.
      const { Redis } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis')
      this.#redis = new Redis(config.redisUrl, {
        // Every command bounded; none queued while the connection is down: a request never waits on Redis.
        commandTimeout: config.redisTimeoutMs,
        connectTimeout: Math.max(1000, config.redisTimeoutMs),
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        retryStrategy: times => Math.min(times * 100, 2000)
      })
      // Connection errors surface through the commands that fail; this listener only keeps them from being thrown.
      this.#redis.on('error', () => {})
    }
    this.#limits = new RateLimits(this.#redis)
  }

  /** Resolves once the store can be used (at once in memory), or after `ms` whatever its state. */
  async ready (ms: number): Promise<boolean> {
    const redis = this.#redis
    if (redis === undefined || redis.status === 'ready') return true
    return await new Promise(resolve => {
      const timer = setTimeout(() => { redis.off('ready', onReady); resolve(false) }, ms)
      const onReady = (): void => { clearTimeout(timer); resolve(true) }
      redis.once('ready', onReady)
    })
  }

  #deny (reason: Denial): void {
    this.counts.denied.set(reason, (this.counts.denied.get(reason) ?? 0) + 1)
  }

  /**
   * The decision on a request for `scope` carrying `credentials`: its key, and one request
   * counted against it. `watch` is told of each call to the store (tracing).
   */
  async admit (credentials: Credentials, scope: Scope, watch?: StoreWatch): Promise<Decision> {
    const secret = secretOf(credentials)
    if (secret === undefined) {
      this.#deny('missing')
      return { ok: false, status: 401, detail: 'an API key is required: send it as "Authorization: Bearer <key>" or "X-API-Key: <key>"' }
    }
    const key = secret.length > MAX_SECRET_LENGTH ? undefined : this.keys.find(secret)
    if (key === undefined) {
      this.#deny('unknown')
      return { ok: false, status: 401, detail: 'the API key is not valid' }
    }
    if (!key.scopes.has(scope)) {
      this.#deny('scope')
      return { ok: false, status: 403, key, detail: `the API key ${key.id} lacks the "${scope}" scope` }
    }
    return this.#decide(key, await this.#limits.chargeRequest(key, watch))
  }

  /** `n` texts of `key` (a request already admitted), counted against its limits and quota. */
  async chargeTexts (key: ApiKey, n: number, watch?: StoreWatch): Promise<Decision> {
    return this.#decide(key, await this.#limits.chargeTexts(key, n, new Date(), watch))
  }

  #decide (key: ApiKey, charge: Charge): Decision {
    const policy = policyField(key)
    if (charge.outcome === 'store_failed') return this.#storeFailed(key, policy, charge.error)
    // A charge with states came from the store (one with none asked it nothing): the store is back.
    if (this.#storeDown && charge.states.length > 0) {
      this.#storeDown = false
      this.#logger.info('rate limit store is back')
    }
    if (charge.outcome === 'allowed') return { ok: true, key, policy, states: charge.states }
    const name = `${key.id}\u0000${charge.limit}`
    this.counts.limited.set(name, (this.counts.limited.get(name) ?? 0) + 1)
    return { ok: false, status: 429, key, policy, states: charge.states, retryAfterSeconds: charge.retryAfterSeconds, detail: this.#limitedDetail(key, charge.limit, charge.resetsAt) }
  }

  #limitedDetail (key: ApiKey, limit: LimitKind, resetsAt: Date | undefined): string {
    const l = key.limits
    if (limit === 'requests') return `rate limit of ${String(l.requestsPerSecond)} requests a second exceeded for key ${key.id}`
    if (limit === 'texts') return `rate limit of ${String(l.textsPerSecond)} texts a second exceeded for key ${key.id}${l.textsBurst > 0 ? ` (and its burst of ${l.textsBurst} a minute)` : ''}`
    const resets = resetsAt!.toISOString().replace('.000Z', 'Z')
    const day = resets.slice(0, 10)
    const once = `${key.id}\u0000${day}`
    if (!this.#exhausted.has(once)) {
      this.#exhausted.add(once)
      this.#events.onQuotaExhausted?.(key.id, new Date(resetsAt!.getTime() - 86400_000).toISOString().slice(0, 10), l.textsPerDay!, resetsAt!)
    }
    return `daily quota of ${String(l.textsPerDay)} texts used up for key ${key.id}; it resets at ${resets}`
  }

  #storeFailed (key: ApiKey, policy: string, error: Error): Decision {
    this.counts.storeErrors++
    if (!this.#storeDown) {
      this.#storeDown = true
      this.#logger.error(`rate limit store unavailable, requests ${this.#onStoreError === 'open' ? 'let through' : 'refused'} until it is back: ${error.message}`)
    }
    if (this.#onStoreError === 'open') return { ok: true, key, policy, states: [] }
    return { ok: false, status: 503, key, retryAfterSeconds: 1, detail: 'rate limits cannot be checked right now (their store is unavailable); retry shortly' }
  }

  async close (): Promise<void> {
    this.keys.close()
    this.#redis?.disconnect()
  }
}
