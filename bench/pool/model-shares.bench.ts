/**
 * Fair sharing of the workers between models (src/pool/model-shares.ts, issue #38): the
 * default model's latency while a slow model (its app function backtracks catastrophically,
 * test/fixtures/sharing/) keeps four requests in flight, with the models' shares (the slow
 * model holds at most one of the two workers) and without (the slow model's max_workers 2: the
 * pool as it was); and what the shares cost a server of one model, where no share applies.
 * Real servers on 127.0.0.1, two workers, PREDICTION_TIMEOUT_MS 2000, no cache; the default
 * model's client sends one text at a time for SECONDS per case.
 * Run alone: `npm run bench:shares [-- SECONDS]` (default 8).
 */
import { rmSync } from 'node:fs'
import { availableParallelism, cpus } from 'node:os'
import { ModelShares } from '../../src/pool/model-shares.js'
import { makeSlowModelRepository, whileSlowModelLoaded } from '../../test/helpers/repositories.js'
import { serveRepository, timedPost } from '../../test/helpers/service.js'

const SECONDS = Number(process.argv[2] ?? 8)
const ENV = { DEFAULT_MODEL: 'sentiment', PREDICTION_TIMEOUT_MS: '2000', CACHE_SIZE: '0' }

interface Row { readonly requests: number, readonly non200: number, readonly p50: number, readonly p99: number, readonly max: number, readonly slow200: number, readonly slow503: number }

const quantile = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!

/** The default model's requests for SECONDS, beside `slowClients` requests to the slow model. */
async function measure (slow: Record<string, unknown> | null, slowClients: number): Promise<Row> {
  const root = makeSlowModelRepository('tfidf-shares-bench-', slow ?? {})
  if (slow === null) rmSync(`${root}/slow`, { recursive: true })
  const server = await serveRepository(root, ENV)
  try {
    const { result: answers, slowStatuses: statuses } = await whileSlowModelLoaded(server.base, slowClients, async () => {
      const out: Array<{ status: number, ms: number }> = []
      const until = performance.now() + SECONDS * 1000
      for (let i = 0; performance.now() < until; i++) out.push(await timedPost(server.base, '/predict', { text: `a good film, number ${i}` }))
      return out
    })
    const sorted = answers.map(a => a.ms).sort((a, b) => a - b)
    return { requests: sorted.length, non200: answers.filter(a => a.status !== 200).length, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), max: sorted.at(-1)!, slow200: statuses.filter(s => s === 200).length, slow503: statuses.filter(s => s === 503).length }
  } finally {
    await server.close()
    rmSync(root, { recursive: true, force: true })
  }
}

/** Nanoseconds ModelShares adds to a task of a server of one model (no share applies: bookkeeping only). */
async function bookkeepingNs (): Promise<number> {
  const shares = new ModelShares(2)
  shares.add('default', null)
  const hand = async (): Promise<number> => 1
  const n = 200_000
  for (let i = 0; i < 10_000; i++) await shares.run('default', {}, undefined, hand)
  const started = performance.now()
  for (let i = 0; i < n; i++) await shares.run('default', {}, undefined, hand)
  const withShares = performance.now() - started
  const bare = performance.now()
  for (let i = 0; i < n; i++) await hand()
  return (withShares - (performance.now() - bare)) / n * 1e6
}

const cases: Array<[string, Record<string, unknown> | null, number]> = [
  ['one model served, no slow load', null, 0],
  ['slow model idle beside it (shares on)', {}, 0],
  ['slow model loaded, shares on (default: 1 of 2 workers)', {}, 4],
  ['slow model loaded, shares off (its max_workers: 2)', { max_workers: 2 }, 4]
]
const ms = (v: number): string => v.toFixed(1)
console.log(`model shares: ${cpus()[0]?.model ?? 'cpu'} x${availableParallelism()}, Node ${process.version}, ${SECONDS} s per case`)
console.log('| case | default model requests | not 200 | p50 ms | p99 ms | max ms | slow model 200 / 503 |')
console.log('|---|---|---|---|---|---|---|')
for (const [name, slow, clients] of cases) {
  const r = await measure(slow, clients)
  console.log(`| ${name} | ${r.requests} | ${r.non200} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.max)} | ${clients === 0 ? '-' : `${r.slow200} / ${r.slow503}`} |`)
}
console.log(`ModelShares bookkeeping on a server of one model: ${(await bookkeepingNs()).toFixed(0)} ns per task`)
