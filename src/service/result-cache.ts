/**
 * The result cache (docs/http-api.md, "Answers"): predictions by text in an LRU (lru-cache) in the
 * front thread, counting hits over look-ups. Keyed by the SHA-256 of the text, never the
 * text itself, so every entry has the same small size and the cache is bounded in bytes as
 * well as entries (CACHE_MAX_BYTES, CACHE_SIZE): no client decides how much memory it holds.
 * A look-up costs one SHA-256 of the text (Node's one-shot crypto.hash) and a map probe:
 * measured 0.4 us for a 200-character text, 5.5 us for 10,000 characters.
 */
import { hash } from 'node:crypto'
import { LRUCache } from 'lru-cache'

/** One cached prediction: the class and confidence (the worker's time is not kept). */
export interface CachedResult {
  readonly classIndex: number
  readonly confidence: number
}

/**
 * What an entry may hold on the heap: a 44-character base64 key, the result, and lru-cache's
 * slots in its arrays and key map, measured at 158 bytes (test/service/result-cache.test.ts
 * checks it stays below this bound).
 */
export const ENTRY_BYTES = 256

export class ResultCache {
  readonly #lru: LRUCache<string, CachedResult> | undefined
  #hits = 0
  #lookups = 0

  /** @param size most entries (0: off); @param maxBytes most bytes (0: off). */
  constructor (size: number, maxBytes: number) {
    const entries = Math.min(size, Math.floor(maxBytes / ENTRY_BYTES))
    // Every entry counts ENTRY_BYTES, so the byte bound is an entry bound: no size to track.
    this.#lru = entries > 0 ? new LRUCache<string, CachedResult>({ max: entries }) : undefined
  }

  get enabled (): boolean {
    return this.#lru !== undefined
  }

  /** The key a text is cached under, for the model served under `model` (a result belongs to one model's load). */
  keyOf (text: string, model = 'default'): string {
    return hash('sha256', model === 'default' ? text : `${model}\u0000${text}`, 'base64')
  }

  get (key: string): CachedResult | undefined {
    if (this.#lru === undefined) return undefined
    this.#lookups++
    const hit = this.#lru.get(key)
    if (hit !== undefined) this.#hits++
    return hit
  }

  set (key: string, result: CachedResult): void {
    this.#lru?.set(key, result)
  }

  /** Entries held now, and their bytes as the bound counts them. */
  get size (): { entries: number, bytes: number } {
    const entries = this.#lru?.size ?? 0
    return { entries, bytes: entries * ENTRY_BYTES }
  }

  /** Look-ups and hits since start. */
  get counts (): { lookups: number, hits: number } {
    return { lookups: this.#lookups, hits: this.#hits }
  }

  /** Hits over look-ups since start; 0 before the first. */
  get hitRate (): number {
    return this.#lookups === 0 ? 0 : this.#hits / this.#lookups
  }
}
