/**
 * `npm run bench:startup [-- --rounds=7] [-- --model=large] [-- --workers=2] [-- --baseline] [-- --before=DIR] [-- --memory] [-- --profile]`:
 * start-up to ready, measured as the bench's start-up section measures it (spawn to the first
 * 200 from /health, `npm start`'s flags and environment), several rounds, medians; the CPU the
 * server's threads spent by then (all of them, V8's helpers included: on two shared cores that
 * is what decides the wall time) and its resident memory. With --baseline the FastAPI service
 * starts in the same rounds, one after the other, for the ratio; --before=DIR starts another
 * checkout's build (with dist/ built, run with the flags it shipped with: --max-semi-space-size=2)
 * in the same rounds too. --memory loads each start of ours as the bench's start-up section does
 * (batches of 50 from 10 clients for 4 s) and reads its RSS right after. With --profile one more start
 * runs under `--cpu-prof` and each thread's time up to ready is split into loading modules (by
 * package, or by folder of ours), running them, and garbage collection; the profiles are kept in
 * bench/results/profile-startup-<timestamp>/ (open them in Chrome's DevTools).
 */
import { mkdirSync, readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { ROOT } from './lib/corpus.js'
import { benchModels, hasPython, modelFiles, type ModelDir } from './lib/models.js'
import { runLoad } from './lib/load.js'
import { loadTexts } from './lib/corpus.js'
import { cpuMicros, freePort, startServer, type Server } from './lib/processes.js'
import { markdown } from './lib/report.js'
import { buildLabel } from './lib/portable-paths.js'
import { SERVER_ENV, SERVER_NODE_FLAGS, serviceEntry, startBaseline, startTfidf } from './lib/servers.js'

interface ProfileNode {
  id: number
  callFrame: { functionName: string, url: string }
  children?: number[]
}
interface CpuProfile { nodes: ProfileNode[], startTime: number, endTime: number, samples: number[], timeDeltas: number[] }

const args = new Map(process.argv.slice(2).map(a => a.replace(/^--/, '').split('=') as [string, string | undefined]))
const ROUNDS = Number(args.get('rounds') ?? 7)
const WORKERS = Number(args.get('workers') ?? 2)
const MODEL = args.get('model') ?? 'large'

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}
const fmt = (n: number, d = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d })

interface Start { seconds: number, cpuSeconds: number, rssMb: number, rssAfterLoadMb?: number }

async function once (start: () => Promise<Server>, load = false): Promise<Start> {
  const server = await start()
  try {
    const figures: Start = { seconds: server.startupSeconds, cpuSeconds: cpuMicros(server.child.pid!) / 1e6, rssMb: server.rssBytes() / 1e6 }
    if (!load) return figures
    await runLoad(server.url, { name: 'batch50 c10', size: 50, connections: 10 }, 4, loadTexts(), undefined)
    return { ...figures, rssAfterLoadMb: server.rssBytes() / 1e6 }
  } finally {
    await server.stop()
  }
}

/** Another checkout's build on `m`, with the flags and environment it shipped with. */
async function startBefore (root: string, m: ModelDir): Promise<Server> {
  const port = await freePort()
  const { model, vectorizer } = modelFiles(m)
  return await startServer('tfidf-serve (before)', process.execPath, ['--max-semi-space-size=2', serviceEntry(root)],
    { ...SERVER_ENV, PORT: String(port), HOST: '127.0.0.1', MODEL_PATH: model, VECTORIZER_PATH: vectorizer, WORKERS: String(WORKERS), CACHE_SIZE: '0', LOG_LEVEL: 'warn' }, port)
}

/** Where a sample's time went: GC, idle, or loading/running code of a package or folder of ours. */
function categorize (profile: CpuProfile): (id: number) => string {
  const byId = new Map(profile.nodes.map(n => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const memo = new Map<number, string>()
  return id => {
    const known = memo.get(id)
    if (known !== undefined) return known
    const node = byId.get(id)!
    const name = node.callFrame.functionName
    let category: string
    if (name === '(garbage collector)') category = 'GC'
    else if (name === '(idle)' || name === '(program)') category = name.slice(1, -1)
    else {
      const stack: ProfileNode['callFrame'][] = []
      for (let n: ProfileNode | undefined = node; n !== undefined; n = byId.get(parent.get(n.id) ?? -1)) stack.push(n.callFrame)
      if (stack.some(f => f.functionName === 'atomicsWaitLoop')) category = 'idle'
      else {
        const loading = stack.some(f => /internal\/modules\/(esm|cjs)/.test(f.url))
        const inner = stack.find(f => f.url !== '' && !f.url.startsWith('node:'))?.url ?? ''
        const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(inner)?.[1]
        const ours = /\/dist\/((?:src|workers)(?:\/[^/]+)?)/.exec(inner)?.[1]?.replace(/\.js$/, '')
        category = `${loading ? 'load' : 'run'} ${pkg ?? ours ?? '(node)'}`
      }
    }
    memo.set(id, category)
    return category
  }
}

/** One start under --cpu-prof; per thread: when it started, its busy milliseconds by category. */
async function profiledStart (m: ModelDir): Promise<void> {
  const dir = path.join(ROOT, 'bench', 'results', `profile-startup-${new Date().toISOString().replace(/[:.]/g, '-')}`)
  mkdirSync(dir, { recursive: true })
  const port = await freePort()
  const { model, vectorizer } = modelFiles(m)
  const server = await startServer('tfidf-serve (profiled)', process.execPath, [...SERVER_NODE_FLAGS, '--cpu-prof', `--cpu-prof-dir=${dir}`, serviceEntry()],
    { ...SERVER_ENV, PORT: String(port), HOST: '127.0.0.1', MODEL_PATH: model, VECTORIZER_PATH: vectorizer, WORKERS: String(WORKERS), CACHE_SIZE: '0', LOG_LEVEL: 'warn' }, port)
  const ready = server.startupSeconds * 1000
  await server.stop()
  const files = readdirSync(dir).filter(f => f.endsWith('.cpuprofile')).sort()
  const profiles = files.map(f => ({ file: f, profile: JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as CpuProfile }))
  const origin = Math.min(...profiles.map(p => p.profile.startTime))
  console.log(`\n## One start under --cpu-prof (${fmt(ready)} ms to ready with the profiler's own cost; ms of each thread's samples up to then, by what ran)\n`)
  const rows: string[][] = []
  for (const [i, { file, profile }] of profiles.entries()) {
    const category = categorize(profile)
    const totals = new Map<string, number>()
    let t = profile.startTime
    for (let s = 0; s < profile.samples.length; s++) {
      t += profile.timeDeltas[s]!
      // Up to ready, counted from the first profile's start (the profiler starts with the process).
      if ((t - origin) / 1000 > ready) break
      const c = category(profile.samples[s]!)
      totals.set(c, (totals.get(c) ?? 0) + (profile.timeDeltas[s + 1] ?? 0) / 1000)
    }
    const busy = [...totals].filter(([c]) => c !== 'idle').reduce((a, [, v]) => a + v, 0)
    const top = [...totals].filter(([c]) => c !== 'idle').sort((a, b) => b[1] - a[1]).slice(0, 7).map(([c, v]) => `${c} ${fmt(v)}`).join(', ')
    const thread = i === 0 ? 'main' : file.includes('.1.') && i === 1 ? 'thread 1 (decoder)' : `thread ${i}`
    rows.push([thread, fmt((profile.startTime - origin) / 1000), fmt(busy), top])
  }
  console.log(markdown(['thread', 'starts at ms', 'busy ms to ready', 'largest items (ms)'], rows))
  console.log(`\nprofiles in ${path.relative(ROOT, dir)}`)
}

async function main (): Promise<void> {
  const m = benchModels(MODEL !== 'default', message => process.stderr.write(`${message}\n`)).find(d => d.name === MODEL)
  if (m === undefined) throw new Error(`no ${MODEL} model (scikit-learn missing?)`)
  const python = args.has('baseline') && hasPython(['sklearn', 'fastapi', 'uvicorn'])
  const before = args.get('before')
  const memory = args.has('memory')
  const ours: Start[] = []
  const earlier: Start[] = []
  const baseline: Start[] = []
  // Interleaved, so all meet the same load from whatever else shares the machine.
  for (let r = 0; r < ROUNDS; r++) {
    process.stderr.write(`[start-up ${r + 1}/${ROUNDS}]\n`)
    ours.push(await once(async () => await startTfidf(m, WORKERS), memory))
    if (before !== undefined) earlier.push(await once(async () => await startBefore(before, m), memory))
    if (python) baseline.push(await once(async () => await startBaseline(m, 1)))
  }
  const seconds = (s: Start[]): number => median(s.map(x => x.seconds))
  const ratio = (s: Start[]): string => baseline.length > 0 ? `${fmt(seconds(s) / seconds(baseline), 2)}x` : ''
  const row = (name: string, s: Start[]): string[] => [name, fmt(seconds(s), 3), `${fmt(Math.min(...s.map(x => x.seconds)), 3)}-${fmt(Math.max(...s.map(x => x.seconds)), 3)}`, ratio(s), fmt(median(s.map(x => x.cpuSeconds)), 2), fmt(median(s.map(x => x.rssMb))), s[0]?.rssAfterLoadMb === undefined ? '' : fmt(median(s.map(x => x.rssAfterLoadMb!)))]
  console.log(`\n## Start-up to ready, ${m.name} model (${m.description}), medians of ${ROUNDS}\n`)
  const rows = [row(`tfidf-serve, WORKERS=${WORKERS}`, ours)]
  if (earlier.length > 0) rows.push(row(`${buildLabel(before!)}, WORKERS=${WORKERS}`, earlier))
  if (baseline.length > 0) rows.push(row('FastAPI + scikit-learn, 1 uvicorn worker', baseline))
  console.log(markdown(['server', 'start-up s', 'range s', 'vs Python', 'CPU s by then', 'RSS MB', 'RSS after 4 s of batches MB'], rows))
  if (baseline.length > 0) console.log('\n(issue 24\'s goal: start-up at most 0.55x the Python service\'s; RSS after load at most 150 MB)')
  if (args.has('profile')) await profiledStart(m)
}

await main()
