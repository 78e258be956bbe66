/**
 * `npm run bench:profile`: where the front thread's time goes. Starts tfidf-serve with
 * `--cpu-prof` once per scenario (the spec's /predict and V2 infer at batches of 50 from 50
 * clients, single texts from 50 clients; default model, 2 workers, cache off), loads it for a
 * few seconds, stops it, and reads the main thread's profile: self time grouped by where the
 * code lives (a package, a file of ours, Node's internals, the garbage collector), and the
 * functions that take the most. Writes bench/results/profile-<timestamp>.json and the
 * .cpuprofile files beside it (open them in Chrome's DevTools).
 */
import autocannon from 'autocannon'
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { ROOT, loadTexts } from './lib/corpus.js'
import { benchModels, modelFiles } from './lib/models.js'
import { freePort, startServer } from './lib/processes.js'
import { markdown } from './lib/report.js'
import { SERVER_ENV, SERVER_NODE_FLAGS } from './lib/servers.js'

interface ProfileNode {
  id: number
  callFrame: { functionName: string, url: string, lineNumber: number }
  hitCount?: number
  children?: number[]
}
interface CpuProfile { nodes: ProfileNode[], startTime: number, endTime: number, samples: number[], timeDeltas: number[] }

export interface ProfileScenario {
  readonly name: string
  readonly route: 'predict' | 'v2'
  readonly size: number
  readonly connections: number
  readonly env?: Record<string, string>
}

const SCENARIOS: ProfileScenario[] = [
  { name: 'spec batch50 c50', route: 'predict', size: 50, connections: 50 },
  { name: 'V2 batch50 c50', route: 'v2', size: 50, connections: 50 },
  { name: 'spec single c50', route: 'predict', size: 0, connections: 50 }
]

/** Where a frame's code lives: a package, a file of ours, a Node module, or V8's own. */
export function placeOf (url: string, functionName: string): string {
  if (url === '') return `(${functionName === '' ? 'anonymous' : functionName.replace(/^\(|\)$/g, '')})`
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (pkg !== null) return pkg[1]!
  const ours = /\/dist\/((?:src|workers)\/.+)\.js$/.exec(url)
  if (ours !== null) return ours[1]!
  const internal = /^node:(?:internal\/)?([^/]+(?:\/[^/]+)?)/.exec(url)
  if (internal !== null) return `node:${internal[1]!}`
  return url
}

export interface ProfileSummary {
  readonly scenario: string
  readonly seconds: number
  /** Share of the thread's samples that were not idle. */
  readonly busyShare: number
  readonly places: Array<{ place: string, share: number }>
  readonly functions: Array<{ fn: string, share: number }>
}

/**
 * Self time of each place and function, as shares of the busy (not idle) samples taken
 * between `fromUs` and `toUs` after the profile began (the load, not start-up or shutdown).
 */
export function summarize (scenario: string, profile: CpuProfile, fromUs = 0, toUs = Infinity, top = 14): ProfileSummary {
  const byId = new Map(profile.nodes.map(n => [n.id, n]))
  const micros = new Map<number, number>()
  let at = 0
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0
    at += dt
    if (at >= fromUs && at <= toUs) micros.set(id, (micros.get(id) ?? 0) + dt)
  })
  const places = new Map<string, number>()
  const functions = new Map<string, number>()
  let busy = 0
  let all = 0
  for (const [id, us] of micros) {
    all += us
    const f = byId.get(id)!.callFrame
    if (f.functionName === '(idle)') continue
    busy += us
    const place = placeOf(f.url, f.functionName)
    places.set(place, (places.get(place) ?? 0) + us)
    const fn = `${f.functionName === '' ? '(anonymous)' : f.functionName} ${place}${f.url === '' ? '' : `:${f.lineNumber + 1}`}`
    functions.set(fn, (functions.get(fn) ?? 0) + us)
  }
  const ranked = (m: Map<string, number>): Array<[string, number]> => [...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, v]) => [k, v / busy])
  return {
    scenario,
    seconds: all / 1e6,
    busyShare: busy / all,
    places: ranked(places).map(([place, share]) => ({ place, share })),
    functions: ranked(functions).map(([fn, share]) => ({ fn, share }))
  }
}

async function load (url: string, s: ProfileScenario, texts: readonly string[], seconds: number): Promise<number> {
  let k = 0
  const batch = (): string[] => Array.from({ length: Math.max(1, s.size) }, () => `${texts[k % texts.length]!} ${k++}`)
  const body = (): unknown => s.route === 'v2'
    ? { inputs: [{ name: 'text', shape: [Math.max(1, s.size)], datatype: 'BYTES', data: batch() }], outputs: [{ name: 'predict' }] }
    : s.size === 0 ? { text: batch()[0] } : { texts: batch(), batch_size: 10 }
  const r = await autocannon({
    url,
    connections: s.connections,
    duration: seconds,
    requests: [{ method: 'POST', path: s.route === 'v2' ? '/v2/models/default/infer' : '/predict', headers: { 'content-type': 'application/json' }, setupRequest: req => ({ ...req, body: JSON.stringify(body()) }) }]
  })
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${s.name}: ${r.non2xx} non-2xx, ${r.errors} errors`)
  return r.requests.average * Math.max(1, s.size)
}

/** Runs `s` against a server started with --cpu-prof and answers the main thread's profile. */
export async function profileScenario (s: ProfileScenario, dir: string, texts: readonly string[], seconds: number): Promise<{ summary: ProfileSummary, textsPerSecond: number, file: string }> {
  const [m] = benchModels(false, () => {})
  const { model, vectorizer } = modelFiles(m!)
  const port = await freePort()
  const scratch = path.join(dir, `cpu-${Date.now()}`)
  const spawned = performance.now()
  // tsc's main.js, not the bundle: the same code, but each sample keeps the file (and package) it ran in.
  const server = await startServer(`tfidf-serve (${s.name}, profiled)`, process.execPath, [...SERVER_NODE_FLAGS, '--cpu-prof', `--cpu-prof-dir=${scratch}`, path.join(ROOT, 'dist', 'src', 'main.js')],
    { ...SERVER_ENV, PORT: String(port), HOST: '127.0.0.1', MODEL_PATH: model, VECTORIZER_PATH: vectorizer, WORKERS: '2', CACHE_SIZE: '0', LOG_LEVEL: 'warn', ...s.env }, port)
  let textsPerSecond: number
  // The window of the measured load, in us after the spawn (the profile begins a few ms after it).
  let window: [number, number]
  try {
    await load(server.url, { ...s }, texts, 1)
    const from = (performance.now() - spawned) * 1000
    textsPerSecond = await load(server.url, s, texts, seconds)
    window = [from, (performance.now() - spawned) * 1000]
  } finally {
    await server.stop()
  }
  // One profile per thread, CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile; the main thread's id is 0.
  const main = readdirSync(scratch).find(f => /\.0\.\d+\.cpuprofile$/.test(f))!
  const file = path.join(dir, `${s.name.replace(/\W+/g, '-')}.cpuprofile`)
  renameSync(path.join(scratch, main), file)
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile
  return { summary: summarize(s.name, profile, ...window), textsPerSecond, file }
}

async function main (): Promise<void> {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-')
  const dir = path.join(ROOT, 'bench', 'results', `profile-${stamp}`)
  mkdirSync(dir, { recursive: true })
  const texts = loadTexts()
  const seconds = Number(process.env.PROFILE_SECONDS ?? 6)
  const results = []
  for (const s of SCENARIOS) {
    process.stderr.write(`[profile] ${s.name}: ${seconds} s\n`)
    const r = await profileScenario(s, dir, texts, seconds)
    results.push({ ...r.summary, textsPerSecond: r.textsPerSecond, file: path.relative(ROOT, r.file) })
    console.log(`\n## ${s.name}: ${Math.round(r.textsPerSecond).toLocaleString('en-US')} texts/s, front thread busy ${(r.summary.busyShare * 100).toFixed(0)}% of ${r.summary.seconds.toFixed(1)} s\n`)
    console.log(markdown(['where (self time)', 'share of busy'], r.summary.places.map(p => [p.place, `${(p.share * 100).toFixed(1)}%`])))
    console.log('')
    console.log(markdown(['function', 'share of busy'], r.summary.functions.map(f => [f.fn, `${(f.share * 100).toFixed(1)}%`])))
  }
  writeFileSync(path.join(dir, 'summary.json'), JSON.stringify(results, null, 2) + '\n')
}

if (import.meta.url === `file://${process.argv[1]}`) await main()
