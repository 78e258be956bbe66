/**
 * `node dist/bench/reloads.js [--reloads=10000] [--workers=2]`: the resident memory of a pool
 * over many reloads of one small model (the label-map pipeline of the test fixtures), a light
 * load of predictions running throughout, as a repository reload does them (add the new
 * version, drop the old once its requests are answered). Prints RSS every tenth of the run and
 * checks, at the end, that the pool's and every worker's maps hold only the live model
 * (docs/many-models.md). Each load decodes in a thread of its own (about 0.1-0.7 s on two
 * shared cores), so 10,000 reloads take a while; --reloads shortens it.
 */
import path from 'node:path'
import { parseConfig } from '../src/config.js'
import { ClassifierPool } from '../src/pool/classifier-pool.js'
import { ROOT } from './lib/corpus.js'

const args = new Map(process.argv.slice(2).map(a => a.replace(/^--/, '').split('=') as [string, string | undefined]))
const RELOADS = Number(args.get('reloads') ?? 10000)
const WORKERS = Number(args.get('workers') ?? 2)
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'apps', '1.2.1', 'label-map', 'pipeline.joblib')
const spec = { paths: { model: FIXTURE, vectorizers: [] }, settingsFile: null }

const mb = (bytes: number): string => (bytes / 2 ** 20).toFixed(1)

const config = parseConfig({ WORKERS: String(WORKERS), LOG_LEVEL: 'silent' })
// The pool's threads and channels do not keep the process alive on their own.
const alive = setInterval(() => {}, 1000)
const pool = await ClassifierPool.start({ ...config, modelPath: FIXTURE, vectorizerPaths: [] })
let key = 'v0'
await pool.addModel(key, spec)
let running = true
let answered = 0
const load = (async () => {
  while (running) {
    await pool.classify(['a wonderful film', 'a dull one', 'fine'], 1, key)
    answered++
    await new Promise(resolve => setTimeout(resolve, 5))
  }
})()
const started = performance.now()
const rss: Array<[number, number]> = [[0, process.memoryUsage().rss]]
for (let i = 1; i <= RELOADS; i++) {
  const old = key
  await pool.addModel(`v${i}`, spec)
  // Requests pick the new version only once it serves, as a repository's do.
  key = `v${i}`
  await pool.removeModel(old)
  if (i % Math.max(1, Math.floor(RELOADS / 10)) === 0) {
    rss.push([i, process.memoryUsage().rss])
    console.log(`${i} reloads: RSS ${mb(process.memoryUsage().rss)} MB, ${((performance.now() - started) / i).toFixed(0)} ms a reload, ${answered} predictions`)
  }
}
running = false
await load
const { models, shares } = pool.modelKeys
const held = await pool.workersHeld()
const live = new Set(['default', key])
const stale = [...models, ...shares, ...held.flatMap(w => [...w.models, ...w.waiting])].filter(k => !live.has(k))
console.log(`after ${RELOADS} reloads: pool models [${models.join(', ')}], shares [${shares.join(', ')}], workers ${held.map(w => `[${w.models.join(', ')}]`).join(' ')}; stale keys: ${stale.length}`)
console.log(`RSS ${mb(rss[0]![1])} MB at the start, ${mb(rss[1]?.[1] ?? rss[0]![1])} MB after the first tenth, ${mb(rss[rss.length - 1]![1])} MB at the end`)
await pool.close()
clearInterval(alive)
if (stale.length > 0) process.exitCode = 1
