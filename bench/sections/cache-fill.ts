/**
 * The result cache under a stream of unique texts: resident memory of a server with the
 * cache off, with the default cache (10,000 entries) and with one bounded only by
 * CACHE_MAX_BYTES (32 MiB), after the same traffic: long texts first (10,000 characters,
 * which a cache keyed by text would hold whole), then many short ones (more entries than
 * the byte bound allows).
 */
import { setTimeout } from 'node:timers/promises'
import { uniqueTexts } from '../lib/corpus.js'
import type { ModelDir } from '../lib/models.js'
import { startTfidf } from '../lib/servers.js'

export interface CacheRow {
  readonly cache: string
  readonly boundMb: number
  readonly rssStartMb: number
  readonly rssAfterLongMb: number
  readonly rssAfterAllMb: number
  readonly rssSettledMb: number
}

const SETTINGS = [
  { cache: 'off (CACHE_SIZE=0)', env: { CACHE_SIZE: '0' }, boundMb: 0 },
  { cache: 'default (CACHE_SIZE=10000, CACHE_MAX_BYTES=32 MiB)', env: { CACHE_SIZE: '10000' }, boundMb: 10000 * 256 / 1e6 },
  { cache: 'bound by bytes (CACHE_SIZE=1000000, CACHE_MAX_BYTES=32 MiB)', env: { CACHE_SIZE: '1000000' }, boundMb: 32 * 1024 * 1024 / 1e6 }
] as const

/** Sends `texts` in batches of `size` over `connections` concurrent loops of requests. */
async function send (url: string, texts: readonly string[], size: number, connections: number): Promise<void> {
  let next = 0
  const loop = async (): Promise<void> => {
    while (next < texts.length) {
      const batch = texts.slice(next, next + size)
      next += size
      const res = await fetch(`${url}/predict`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ texts: batch, batch_size: 10 }) })
      if (res.status !== 200) throw new Error(`cache fill: status ${res.status}: ${await res.text()}`)
      await res.arrayBuffer()
    }
  }
  await Promise.all(Array.from({ length: connections }, loop))
}

export async function cacheRows (model: ModelDir, corpus: readonly string[], longCount: number, shortCount: number, settleSeconds: number, progress: (m: string) => void): Promise<CacheRow[]> {
  const long = uniqueTexts(corpus, 10000, longCount, 'long')
  const short = uniqueTexts(corpus, 120, shortCount, 'short')
  const rows: CacheRow[] = []
  for (const s of SETTINGS) {
    progress(`cache fill, ${s.cache}: ${longCount} texts of 10,000 characters, then ${shortCount} of 120`)
    const server = await startTfidf(model, 2, s.env)
    try {
      const rssStart = server.rssBytes()
      await send(server.url, long, 20, 4)
      const rssAfterLong = server.rssBytes()
      await send(server.url, short, 50, 4)
      const rssAfterAll = server.rssBytes()
      await setTimeout(settleSeconds * 1000)
      rows.push({ cache: s.cache, boundMb: s.boundMb, rssStartMb: rssStart / 1e6, rssAfterLongMb: rssAfterLong / 1e6, rssAfterAllMb: rssAfterAll / 1e6, rssSettledMb: server.rssBytes() / 1e6 })
    } finally {
      await server.stop()
    }
  }
  return rows
}
