/**
 * The result cache (DECISIONS.md 22): predictions by exact text in an LRU (lru-cache) in
 * the front thread, counting hits over look-ups; size 0 turns it off.
 */
import { LRUCache } from 'lru-cache'
import type { TextResult } from '../pool/classifier-pool.js'

export class ResultCache {
  readonly #lru: LRUCache<string, TextResult> | undefined
  #hits = 0
  #lookups = 0

  constructor (size: number) {
    this.#lru = size > 0 ? new LRUCache<string, TextResult>({ max: size }) : undefined
  }

  get (text: string): TextResult | undefined {
    if (this.#lru === undefined) return undefined
    this.#lookups++
    const hit = this.#lru.get(text)
    if (hit !== undefined) this.#hits++
    return hit
  }

  set (text: string, result: TextResult): void {
    this.#lru?.set(text, result)
  }

  /** Hits over look-ups since start; 0 before the first. */
  get hitRate (): number {
    return this.#lookups === 0 ? 0 : this.#hits / this.#lookups
  }
}
