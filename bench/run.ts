/**
 * `npm run bench [-- --quick] [-- --baseline]`: tfidf-serve under autocannon beside the
 * ceiling of its HTTP stack (no-op Express and node:http servers on the same bodies) and,
 * with --baseline, the FastAPI + scikit-learn service it replaces; in-process speed beside
 * scikit-learn; start-up and memory per worker count; the result cache's memory under
 * unique texts; the CLI on one worker and on two. Targets 127.0.0.1 only; every run is
 * bounded in time. Writes bench/results/<timestamp>.json and .svg and prints the tables.
 */
import { cpus, totalmem } from 'node:os'
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { loadModel } from '../src/sklearn/load-model.js'
import { displayLabel } from '../src/labels.js'
import { ROOT, loadTexts } from './lib/corpus.js'
import { runLoad, type Oracle, type Scenario } from './lib/load.js'
import { benchModels, hasPython, modelFiles, type ModelDir } from './lib/models.js'
import { buildLabel, portablePath } from './lib/portable-paths.js'
import type { Server } from './lib/processes.js'
import { chart } from './lib/chart.js'
import { markdown, table, type Row } from './lib/report.js'
import { beside, matching, previousRun } from './lib/previous.js'
import { targetRows } from './lib/targets.js'
import { startBaseline, startNoop, startTfidf } from './lib/servers.js'
import { accessRows, type AccessRow } from './sections/access.js'
import { ceilingRows } from './sections/ceiling.js'
import { tracingCostRows } from './sections/tracing-cost.js'
import { tracingRows, type TracingRow } from './sections/tracing.js'
import { cacheRows } from './sections/cache-fill.js'
import { cliRows } from './sections/cli-scaling.js'
import { hostileRows, scanRows } from './sections/hostile-bodies.js'
import { repositoryRows } from './sections/repository.js'
import { transportRows } from './sections/transports.js'
import { batchingRows, type BatchingSetting } from './sections/batching.js'
import { inProcessRows } from './sections/in-process.js'
import { againstRows, type Contender } from './sections/against.js'
import { buildCheckout } from './lib/checkout.js'
import { cliCpuPerText } from './lib/cli-floor.js'
import { median } from './lib/paired-turns.js'
import { baselineStartupRows, decodeFloorRows, serviceFloorRow, startupRows } from './sections/startup-memory.js'
import { compiledRows } from './sections/compiled.js'
import { explanationRows } from './sections/explanations.js'
import { LENGTHS } from './sklearn/vectorize-score.bench.js'

const args = process.argv.slice(2)
const argv = new Set(args)
/** `--against REF` (repeatable): this build beside REF's, interleaved (sections/against.ts); alone unless --only names other sections too. */
const AGAINST = [...args.flatMap((a, i) => args[i - 1] === '--against' ? [a] : []), ...args.filter(a => a.startsWith('--against=')).map(a => a.slice('--against='.length))]
/** `--node-flags '--a --b NAME=value'` (repeatable): this build under those node flags (and environment) too, beside npm start's (the heap flags' cost). */
const NODE_FLAGS = args.flatMap((a, i) => args[i - 1] === '--node-flags' ? [a] : [])
/** `--mlserver PYTHON`: MLServer beside them, run by that Python (with mlserver and mlserver-sklearn installed). */
const MLSERVER = args.includes('--mlserver') ? args[args.indexOf('--mlserver') + 1] : undefined
const SIDE_BY_SIDE = AGAINST.length > 0 || NODE_FLAGS.length > 0 || MLSERVER !== undefined
/** `--model=large` (or unigram): the side-by-side runs on that bench model instead of the default one. */
const SIDE_MODEL = args.find(a => a.startsWith('--model='))?.slice('--model='.length) ?? 'default'
const QUICK = argv.has('--quick')
const BASELINE = argv.has('--baseline')
/** `--only=http,cli` runs those sections alone (http, in-process, startup, compiled, cache, cli, hostile, repository, access, transports, batching, ceiling, tracing, explain). */
const ONLY = [...argv].find(a => a.startsWith('--only='))?.slice('--only='.length).split(',')
const runs = (section: string): boolean => ONLY === undefined ? !SIDE_BY_SIDE : ONLY.includes(section)
const DURATION = QUICK ? 2 : 8

const SCENARIOS: Scenario[] = QUICK
  ? [{ name: 'single c10', size: 0, connections: 10 }, { name: 'batch50 c10', size: 50, connections: 10 }]
  : [0, 10, 50].flatMap(size => [1, 10, 50].map(connections => ({ name: `${size === 0 ? 'single' : `batch${size}`} c${connections}`, size, connections })))

let step = 0
function progress (message: string): void {
  process.stderr.write(`[bench ${++step}] ${message}\n`)
}

async function loadRows (server: Server, label: string, model: string, scenarios: readonly Scenario[], texts: readonly string[], oracle: Oracle): Promise<Row[]> {
  const rows: Row[] = []
  // A second of unrecorded load first, so the JIT has warmed up before anything is measured.
  await runLoad(server.url, scenarios[0]!, 1, texts, undefined)
  for (const s of scenarios) {
    progress(`${label} ${model} ${s.name}: ${DURATION} s`)
    const f = await runLoad(server.url, s, DURATION, texts, oracle)
    if (f.wrong > 0) throw new Error(`${label} ${model} ${s.name}: ${f.wrong} of ${f.checked} sampled answers are wrong`)
    rows.push({ server: label, model, scenario: s.name, ...f })
  }
  return rows
}

/** What each model must answer, from the in-process classifier (itself tested against scikit-learn). */
async function oraclesOf (models: readonly ModelDir[]): Promise<Map<string, Oracle>> {
  const oracles = new Map<string, Oracle>()
  for (const m of models) {
    const { model, vectorizer } = modelFiles(m)
    const { predictor } = await loadModel({ model, vectorizers: [vectorizer] })
    oracles.set(m.name, text => displayLabel(predictor.predict(text).label))
  }
  return oracles
}

async function httpRows (models: readonly ModelDir[], texts: readonly string[], oracles: ReadonlyMap<string, Oracle>): Promise<{ rows: Row[], baselineMemory: Array<Record<string, unknown>> }> {
  const rows: Row[] = []
  for (const m of models) {
    const server = await startTfidf(m, 2)
    try {
      rows.push(...await loadRows(server, 'tfidf-serve', m.name, SCENARIOS, texts, oracles.get(m.name)))
    } finally {
      await server.stop()
    }
  }
  const cached = await startTfidf(models[0]!, 2, { CACHE_SIZE: '10000' })
  try {
    rows.push(...await loadRows(cached, 'tfidf-serve cached', 'default', [{ name: 'batch50 c10 repeated', size: 50, connections: 10, repeat: true }], texts, oracles.get('default')))
  } finally {
    await cached.stop()
  }
  for (const kind of ['express', 'express-worker', 'http'] as const) {
    const server = await startNoop(kind)
    try {
      rows.push(...await loadRows(server, `noop-${kind}`, 'default', SCENARIOS, texts, undefined))
    } finally {
      await server.stop()
    }
  }
  const baselineReady = BASELINE && hasPython(['sklearn', 'fastapi', 'uvicorn'])
  if (BASELINE && !baselineReady) progress('no FastAPI/uvicorn/scikit-learn for /usr/bin/python3: skipping the baseline (apt-get install -y python3-fastapi python3-uvicorn python3-sklearn)')
  const baselineMemory: Array<Record<string, unknown>> = []
  if (baselineReady) {
    for (const m of models) {
      for (const workers of [1, 2]) {
        const server = await startBaseline(m, workers)
        try {
          const rssStart = server.rssBytes()
          rows.push(...await loadRows(server, `baseline-${workers}`, m.name, SCENARIOS, texts, oracles.get(m.name)))
          baselineMemory.push({ model: m.name, workers, startup_s: server.startupSeconds, rss_start_mb: rssStart / 1e6, rss_after_load_mb: server.rssBytes() / 1e6 })
        } finally {
          await server.stop()
        }
      }
    }
  }
  for (const r of rows.filter(r => r.server === 'tfidf-serve')) {
    const ceiling = rows.find(c => c.server === 'noop-express' && c.scenario === r.scenario)
    const base = rows.find(c => c.server === 'baseline-1' && c.model === r.model && c.scenario === r.scenario)
    if (ceiling !== undefined && r.model === 'default') r.ofCeiling = r.requestsPerSecond / ceiling.requestsPerSecond
    if (base !== undefined) {
      r.vsBaseline = r.textsPerSecond / base.textsPerSecond
      // autocannon's latencies are whole milliseconds: a p99 of 0 has no ratio.
      r.p99VsBaseline = base.p99 > 0 ? r.p99 / base.p99 : undefined
    }
  }
  return { rows, baselineMemory }
}

const fmt = (n: unknown, d = 0): string => typeof n === 'number' ? n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : ''
const ratio = (a: number, b: number | undefined): string => b === undefined ? '' : `${fmt(a / b, 1)}x`
const ratio2 = (a: number, b: number | undefined): string => b === undefined ? '' : `${fmt(a / b, 2)}x`

async function main (): Promise<void> {
  const started = new Date()
  const machine = { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, memory_gb: Math.round(totalmem() / 1024 ** 3), node: process.version, platform: process.platform }
  progress(`machine: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; load generator and servers share these cores`)
  const texts = loadTexts()
  const python = hasPython(['sklearn'])
  const models = benchModels(!QUICK, progress)
  const oracles = await oraclesOf(models)
  const served = models.filter(m => m.name !== 'unigram')

  const settle = QUICK ? 2 : 15
  const { rows, baselineMemory } = runs('http') ? await httpRows(served, texts, oracles) : { rows: [], baselineMemory: [] }
  const inProcess = runs('in-process') ? await inProcessRows(models, texts, QUICK ? [1000] : LENGTHS, QUICK ? 1 : 3, python, progress) : []
  // Start-up is timed over several starts (medians), and with --baseline the Python service's too, in the same section.
  const startupRounds = QUICK ? 1 : 5
  const startup = runs('startup') ? await startupRows(served, QUICK ? [2] : [1, 2, 4], QUICK ? 2 : 4, settle, texts, oracles, progress, startupRounds) : []
  const decodeFloor = runs('startup') ? decodeFloorRows(served, startupRounds, progress) : []
  // The compiled section reads its start-ups against this floor too.
  const serviceFloor = runs('startup') || runs('compiled') ? await serviceFloorRow(startupRounds, progress) : undefined
  const baselineStartup = runs('startup') && BASELINE && hasPython(['sklearn', 'fastapi', 'uvicorn']) ? await baselineStartupRows(served, startupRounds, progress) : []
  const compiled = runs('compiled') ? await compiledRows(served, QUICK ? 1 : 5, QUICK ? 2 : 4, BASELINE && hasPython(['sklearn', 'fastapi', 'uvicorn']), texts, oracles, progress) : []
  const cache = runs('cache') ? await cacheRows(models[0]!, texts, QUICK ? 1_100 : 11_000, QUICK ? 14_000 : 140_000, settle, progress) : []
  const cli = runs('cli') ? cliRows(models[0]!, texts, QUICK ? 0.1 : 1, QUICK ? 1 : 3, progress) : []
  // HOSTILE_BEFORE=<checkout with dist/> adds the same run against an older build.
  const builds = [{ label: 'this build' }, ...(process.env.HOSTILE_BEFORE === undefined ? [] : [{ label: buildLabel(process.env.HOSTILE_BEFORE), root: process.env.HOSTILE_BEFORE }])]
  const large = models.find(m => m.name === 'large')
  const repository = runs('repository') && large !== undefined ? await repositoryRows(large, texts, QUICK ? 3 : 8, settle, progress) : undefined
  const access = runs('access') ? await accessRows(models[0]!, texts, oracles.get(models[0]!.name), DURATION, QUICK ? 1 : 5, progress) : []
  const ceiling = runs('ceiling') ? await ceilingRows(models[0]!, texts, oracles.get(models[0]!.name), QUICK ? 1 : 3, QUICK ? 2 : 8, progress) : []
  const tracingCost = runs('tracing') ? await tracingCostRows(QUICK ? 4000 : 8000, QUICK ? 2 : 5, progress) : []
  const tracing = runs('tracing') ? await tracingRows(models[0]!, texts, oracles.get(models[0]!.name), QUICK ? 1 : 2, QUICK ? 2 : 12, progress) : []
  // TRANSPORTS_BEFORE=<checkout with dist/>: the same protocols against an older build, round by round.
  const transportBuilds = [{ label: 'this build' }, ...(process.env.TRANSPORTS_BEFORE === undefined ? [] : [{ label: buildLabel(process.env.TRANSPORTS_BEFORE), root: process.env.TRANSPORTS_BEFORE }])]
  const transports = runs('transports') ? await transportRows(models[0]!, transportBuilds, texts, QUICK ? 2 : DURATION, QUICK ? 1 : 5, progress) : []
  // BATCHING=<max texts>/<max wait ms>,... : the settings to compare with batching off.
  const batchingSettings: BatchingSetting[] = [{ label: 'off', maxTexts: 1, maxWaitMs: 0 }, ...(process.env.BATCHING ?? '64/5').split(',').map(s => {
    const [maxTexts, maxWaitMs] = s.split('/').map(Number) as [number, number]
    return { label: `${maxTexts} texts, ${maxWaitMs} ms`, maxTexts, maxWaitMs }
  })]
  const batching = runs('batching') ? await batchingRows(models[0]!, batchingSettings, texts, oracles.get(models[0]!.name), QUICK ? 2 : DURATION, QUICK ? 1 : 3, progress) : []
  const contenders: Contender[] = SIDE_BY_SIDE ? [{ label: 'this build', root: ROOT }] : []
  for (const ref of AGAINST) contenders.push(buildCheckout(ref, progress))
  for (const flags of NODE_FLAGS) {
    // NAME=value words set the environment (MALLOC_ARENA_MAX=2, say); the rest are node's flags.
    const words = flags.split(/\s+/).filter(f => f !== '')
    const env = Object.fromEntries(words.filter(w => /^[A-Z_][A-Z0-9_]*=/.test(w)).map(w => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]))
    contenders.push({ label: `this build, ${flags}`, root: ROOT, nodeFlags: words.filter(w => !(w in env) && !/^[A-Z_][A-Z0-9_]*=/.test(w)), env })
  }
  if (MLSERVER !== undefined) contenders.push({ label: 'MLServer', root: ROOT, mlserverPython: MLSERVER })
  const sideModel = models.find(m => m.name === SIDE_MODEL) ?? models[0]!
  const against = SIDE_BY_SIDE ? await againstRows(contenders, sideModel, texts, QUICK ? 2 : 4, QUICK ? 1 : 3, progress) : []
  // The model's own work per text in the same run: the floor the server's CPU per text is read against.
  if (SIDE_BY_SIDE) progress('the CLI on one worker, for the model\'s own CPU per text')
  const cliUsPerText = SIDE_BY_SIDE ? cliCpuPerText(sideModel, texts, QUICK ? 11_000 : 51_000) : undefined
  const explanations = runs('explain') ? await explanationRows(progress) : []
  const hostile = runs('hostile') ? { load: await hostileRows(models[0]!, builds, QUICK ? 3 : 10, progress), scan: scanRows() } : { load: [], scan: [] }

  const stamp = started.toISOString().replace(/[:.]/g, '-')
  const dir = path.join(ROOT, 'bench', 'results')
  mkdirSync(dir, { recursive: true })
  const result = { date: started.toISOString(), quick: QUICK, duration_s: DURATION, machine, note: 'autocannon and the servers share the machine\'s cores', models, http: rows, in_process: inProcess, startup, baseline_startup: baselineStartup, decode_floor: decodeFloor, service_floor: serviceFloor, compiled, baseline_memory: baselineMemory, side_by_side: { model: SIDE_MODEL, contenders, rows: against, cli_us_per_text: cliUsPerText }, cache, cli, hostile, repository, access, transports, batching, ceiling, tracing, tracing_cost: tracingCost, explanations }
  writeFileSync(path.join(dir, `${stamp}.json`), JSON.stringify(result, portablePath, 2) + '\n')
  writeFileSync(path.join(dir, `${stamp}.svg`), await chart(rows.filter(r => r.model === 'default' && !r.server.includes('cached')), `texts/s and p99 by scenario, default model (${started.toISOString().slice(0, 10)}, ${machine.cores} cores, Node ${machine.node})`))

  const was = (section: string): ReturnType<typeof previousRun> => previousRun(dir, stamp, section)
  if (rows.length > 0) {
    console.log(`\n## HTTP (${DURATION} s per scenario, ${machine.cpu}, ${machine.cores} cores shared with the load generator, Node ${machine.node})\n`)
    const wasHttp = was('http')
    if (wasHttp !== undefined) console.log(`(beside each figure: the previous full run's, ${String(wasHttp.date)})\n`)
    console.log(table(rows, r => matching(wasHttp, 'http', r, ['server', 'model', 'scenario'])))
  }
  if (inProcess.length > 0) {
    console.log('\n## In-process, one thread (scikit-learn in calls of 50 texts and of one)\n')
    console.log(markdown(['model', 'chars', 'texts/s', 'MB/s', 'sklearn batch-50 texts/s', 'MB/s', 'sklearn single texts/s', 'vs batch-50', 'vs single'],
      inProcess.map(r => [r.model, fmt(r.chars), fmt(r.textsPerSecond), fmt(r.mbPerSecond, 1), fmt(r.sklearnBatch50?.texts_per_s), fmt(r.sklearnBatch50?.mb_per_s, 1), fmt(r.sklearnSingle?.texts_per_s), ratio(r.textsPerSecond, r.sklearnBatch50?.texts_per_s), ratio(r.textsPerSecond, r.sklearnSingle?.texts_per_s)])))
  }
  if (compiled.length > 0) {
    console.log('\n## Start-up from a compiled model file and from the cache (WORKERS=2, medians of interleaved starts)\n')
    console.log(markdown(['model', 'compile s', 'compiled MB', 'from pickles s', 'compiled s', 'cache hit s', 'cache fill s', 'Python service s', 'compiled / Python', 'RSS after load, pickles MB', 'compiled MB'],
      compiled.map(r => [r.model, fmt(r.compileSeconds, 2), fmt(r.compiledMb, 1), fmt(r.picklesStartupSeconds, 2), fmt(r.compiledStartupSeconds, 2), fmt(r.cachedStartupSeconds, 2), fmt(r.cacheFillStartupSeconds, 2), fmt(r.baselineStartupSeconds ?? undefined, 2), r.baselineStartupSeconds === null ? '' : ratio2(r.compiledStartupSeconds, r.baselineStartupSeconds), fmt(r.picklesRssAfterLoadMb), fmt(r.compiledRssAfterLoadMb)])))
    if (serviceFloor !== undefined) console.log(`\nThe floor under any start, in the same run: ready on a ${fmt(serviceFloor.modelKb)} KB model (next to nothing to decode) in ${fmt(serviceFloor.seconds, 2)} s${compiled[0]?.baselineStartupSeconds == null ? '' : `, ${compiled.map(r => `${ratio2(serviceFloor.seconds, r.baselineStartupSeconds!)} of the Python service's start on the ${r.model} model`).join(', ')}`}.`)
  }
  if (explanations.length > 0) {
    console.log('\n## Tree explanations: one text, beside shap\'s own time (medians of 50 texts; values checked against shap\'s first)\n')
    console.log(markdown(['model', 'in process ms', 'through /explain ms (2 workers)', 'shap ms', 'shap / ours in process', 'max diff from shap', 'shap run'],
      explanations.map(r => [r.model, fmt(r.inProcessMedianMs, 1), fmt(r.serviceMedianMs, 1), fmt(r.shapMedianMs, 1), ratio2(r.shapMedianMs, r.inProcessMedianMs), r.maxDiff.toExponential(1), r.shap])))
  }
  if (startup.length > 0) {
    console.log('\n## Start-up, memory and scaling\n')
    console.log(markdown(['model', 'WORKERS', 'start-up s', 'RSS after start MB', 'RSS after load MB', `RSS ${settle} s later MB`, 'batch50 c10 texts/s'], startup.map(r => {
      const w = matching(was('startup'), 'startup', r, ['model', 'workers'])
      return [r.model, String(r.workers), beside(r.startupSeconds, w?.startupSeconds, 2), fmt(r.rssStartMb), beside(r.rssAfterLoadMb, w?.rssAfterLoadMb), fmt(r.rssSettledMb), beside(r.batch50TextsPerSecond, w?.batch50TextsPerSecond)]
    })))
  }
  if (baselineStartup.length > 0) {
    console.log(`\n## The Python service's start-up in the same section (1 uvicorn worker, medians of ${startupRounds})\n`)
    console.log(markdown(['model', 'start-up s', 'tfidf-serve WORKERS=2 s', 'ratio', 'a process that only decodes the model s', 'its ratio'], baselineStartup.map(b => {
      const ours = startup.find(r => r.model === b.model && r.workers === 2)
      const floor = decodeFloor.find(d => d.model === b.model)
      return [b.model, fmt(b.startupSeconds, 2), fmt(ours?.startupSeconds, 2), ours === undefined ? '' : ratio2(ours.startupSeconds, b.startupSeconds), fmt(floor?.seconds, 2), floor === undefined ? '' : ratio2(floor.seconds, b.startupSeconds)]
    })))
  }
  if (baselineMemory.length > 0) {
    console.log('\n## Baseline start-up and memory\n')
    console.log(markdown(['model', 'uvicorn workers', 'start-up s', 'RSS after start MB', 'RSS after load MB'], baselineMemory.map(r => [String(r.model), String(r.workers), fmt(r.startup_s, 2), fmt(r.rss_start_mb), fmt(r.rss_after_load_mb)])))
  }
  if (cache.length > 0) {
    console.log('\n## Result cache under unique texts (default model, 2 workers)\n')
    console.log(markdown(['cache', 'bound MB', 'RSS after start MB', 'after the long texts', 'after all', `${settle} s later`, 'settled, over the cache-off run'], cache.map(r => [r.cache, fmt(r.boundMb, 1), fmt(r.rssStartMb), fmt(r.rssAfterLongMb), fmt(r.rssAfterAllMb), fmt(r.rssSettledMb), fmt(r.rssSettledMb - cache[0]!.rssSettledMb, 1)])))
  }
  if (cli.length > 0) {
    console.log('\n## CLI (default model; texts/s after loading, medians)\n')
    console.log(markdown(['input', '--workers', 'texts/s', 'peak RSS MB', 'vs one worker'], cli.map(r => [r.input, String(r.workers), fmt(r.textsPerSecond), fmt(r.maxRssMb), ratio(r.textsPerSecond, cli.find(o => o.input === r.input && o.workers === 1)?.textsPerSecond)])))
  }
  if (hostile.load.length > 0) {
    console.log('\n## Refused bodies: 8 clients sending 1 MB nested 520,000 deep (default model, 2 workers)\n')
    console.log(markdown(['build', 'refused/s', 'statuses', '/health p50 ms', 'p99 ms', 'max ms', 'RSS idle MB', 'RSS max MB'], hostile.load.map(r => [r.build, fmt(r.refusedPerSecond), JSON.stringify(r.statuses), fmt(r.healthP50Ms, 1), fmt(r.healthP99Ms, 1), fmt(r.healthMaxMs, 1), fmt(r.rssIdleMb), fmt(r.rssMaxMb)])))
    console.log(markdown(['body', 'KB', 'shape scan us/KB', 'JSON.parse us/KB'], hostile.scan.map(r => [r.body, fmt(r.kb), fmt(r.scanUsPerKb, 3), fmt(r.parseUsPerKb, 3)])))
  }
  if (repository !== undefined) {
    console.log('\n## Many models: 10 copies of the 200,000-feature model, 2 workers\n')
    console.log(markdown(['all READY s', `RSS settled MB`, '/predict texts/s (batch 50, c50)', 'V2 infer texts/s', 'V2 / predict', 'gRPC texts/s', 'gRPC / V2', 'steady p99 ms', 'p99 during a reload ms', 'non-2xx during reload', 'errors', 'RSS after unloading 9 MB'],
      [[fmt(repository.allReadySeconds, 1), fmt(repository.rssSettledMb), fmt(repository.predictTextsPerSecond), fmt(repository.v2TextsPerSecond), ratio(repository.v2TextsPerSecond, repository.predictTextsPerSecond), fmt(repository.grpcTextsPerSecond), ratio(repository.grpcTextsPerSecond, repository.v2TextsPerSecond), fmt(repository.steadyP99Ms), fmt(repository.reloadP99Ms), String(repository.reloadNon2xx), String(repository.reloadErrors), fmt(repository.rssAfterUnloadMb)]]))
    console.log(`\nThe nine loaded again: ${fmt(repository.rssReloadedMb)} MB; unloaded again and settled: ${fmt(repository.rssAfterSecondUnloadMb)} MB (${fmt(repository.rssAfterSecondUnloadMb - repository.rssAfterUnloadMb, 1)} MB against the first unload)`)
    console.log('\nWhat a text cost (us of CPU), V2 REST against gRPC at batches of 50:\n')
    console.log(markdown(['protocol', 'server front thread', 'server, all threads', 'load generator (this process)'],
      [['V2 REST (autocannon)', fmt(repository.v2Cost.frontUs, 2), fmt(repository.v2Cost.serverUs, 2), fmt(repository.v2Cost.clientUs, 2)], ['gRPC (@grpc/grpc-js client)', fmt(repository.grpcCost.frontUs, 2), fmt(repository.grpcCost.serverUs, 2), fmt(repository.grpcCost.clientUs, 2)], ['gRPC / REST', ratio2(repository.grpcCost.frontUs, repository.v2Cost.frontUs), ratio2(repository.grpcCost.serverUs, repository.v2Cost.serverUs), ratio2(repository.grpcCost.clientUs, repository.v2Cost.clientUs)]]))
  }
  if (access.length > 0) {
    console.log('\n## Access control: keys off, keys with limits in the process, in Redis (default model, 2 workers; medians)\n')
    const off = (scenario: string): AccessRow | undefined => access.find(r => r.server === 'keys off' && r.scenario === scenario)
    console.log(markdown(['server', 'scenario', 'texts/s', 'vs keys off', 'p99 ms', 'CPU us/request (all threads)', 'front thread us/request', 'front thread vs keys off', 'added front us/request', 'non-2xx or wrong'],
      access.map(r => {
        const o = off(r.scenario)
        return [r.server, r.scenario, fmt(r.textsPerSecond), ratio2(r.textsPerSecond, o?.textsPerSecond), fmt(r.p99Ms), fmt(r.cpuUsPerRequest, 1), fmt(r.frontCpuUsPerRequest, 1), ratio2(r.frontCpuUsPerRequest, o?.frontCpuUsPerRequest), fmt(r.frontCpuUsPerRequest - (o?.frontCpuUsPerRequest ?? 0), 1), String(r.non2xx)]
      })))
  }
  if (transports.length > 0) {
    console.log('\n## What a text costs the server by protocol: batches of 50 from 10 clients, default model, 2 workers (medians)\n')
    const before = (r: typeof transports[number]): typeof transports[number] | undefined => transports.find(o => o.build !== 'this build' && o.protocol === r.protocol)
    const spec = (build: string): typeof transports[number] | undefined => transports.find(o => o.build === build && o.protocol === 'spec /predict')
    console.log(markdown(['build', 'protocol', 'texts/s', 'front thread us/text', 'all threads us/text', 'vs spec route (all threads)', 'this build vs before (all threads)', 'front thread vs before'],
      transports.map(r => [r.build, r.protocol, beside(r.textsPerSecond, matching(was('transports'), 'transports', r, ['build', 'protocol'])?.textsPerSecond), fmt(r.frontUs, 2), beside(r.serverUs, matching(was('transports'), 'transports', r, ['build', 'protocol'])?.serverUs, 2), ratio2(r.serverUs, spec(r.build)?.serverUs), r.build === 'this build' ? ratio2(r.serverUs, before(r)?.serverUs) : '', r.build === 'this build' ? ratio2(r.frontUs, before(r)?.frontUs) : ''])))
  }
  if (batching.length > 0) {
    console.log('\n## Adaptive batching: the spec\'s /predict, default model, 2 workers (medians)\n')
    const off = (r: typeof batching[number]): typeof batching[number] | undefined => batching.find(o => o.setting === 'off' && o.scenario === r.scenario)
    console.log(markdown(['batching', 'scenario', 'texts/s', 'vs off', 'p99 ms', 'front thread us/text', 'all threads us/text', 'texts per worker task'],
      batching.map(r => {
        const w = matching(was('batching'), 'batching', r, ['setting', 'scenario'])
        return [r.setting, r.scenario, beside(r.textsPerSecond, w?.textsPerSecond), ratio2(r.textsPerSecond, off(r)?.textsPerSecond), beside(r.p99Ms, w?.p99Ms), beside(r.frontUs, w?.frontUs, 2), beside(r.serverUs, w?.serverUs, 2), fmt(r.textsPerTask, 1)]
      })))
  }
  if (ceiling.length > 0) {
    console.log('\n## Against the no-op Express ceiling, side by side (default model, 2 workers; 3 s turns in a rotating order, shares taken within a round, medians)\n')
    console.log(markdown(['server', 'scenario', 'requests/s', 'of the ceiling', 'each round', 'front thread us/request', 'all threads us/request'],
      ceiling.map(r => {
        const w = matching(was('ceiling'), 'ceiling', r, ['server', 'scenario'])
        return [r.server, r.scenario, fmt(r.requestsPerSecond), `${fmt(r.ofCeiling * 100)}%${w === undefined ? '' : ` (was ${fmt(w.ofCeiling * 100)}%)`}`, r.roundShares.join(' '), fmt(r.frontUsPerRequest, 1), fmt(r.serverUsPerRequest, 1)]
      })))
  }
  if (against.length > 0) {
    console.log(`\n## Side by side: ${contenders.map(c => c.label).join('; ')} (${SIDE_MODEL} model, 2 workers each, all running at once; ${QUICK ? 2 : 4} s turns in a rotating order; medians of rounds; ratios to the first within each round)\n`)
    console.log(markdown(['scenario', 'server', 'texts per server-CPU-second', 'vs the first (median)', 'each round', 'server CPU us a text', 'over the CLI\'s', 'texts/s', 'RSS after MB'],
      // NaN: a route that server does not serve (MLServer and the spec's routes).
      against.flatMap(r => r.contenders.filter(c => !Number.isNaN(c.textsPerCpuSecond)).map((c, i) => [i === 0 ? r.scenario : '', c.label, fmt(c.textsPerCpuSecond), i === 0 ? '' : `${fmt(median(c.ratios), 2)}x`, i === 0 ? '' : c.ratios.map(x => fmt(x, 2)).join(' '), fmt(1e6 / c.textsPerCpuSecond, 1), `${fmt(1e6 / c.textsPerCpuSecond / cliUsPerText!, 2)}x`, fmt(c.textsPerSecond), fmt(c.rssMb)]))))
    console.log(`\nThe CLI (predict --workers 1 --format jsonl, probabilities written) in the same run: ${fmt(cliUsPerText!, 1)} us of CPU a text, loading excluded.`)
  }
  const targets = targetRows({ http: rows, ceiling, startup, baselineStartup, decodeFloor, serviceFloor, baselineMemory, batching, transports })
  if (targets.length > 0) {
    console.log('\n## Issue 24\'s targets, from this run\n')
    console.log(markdown(['target', 'figure', 'goal', 'met'], targets.map(t => [t.target, t.figure, t.goal, t.met ? 'yes' : 'no'])))
  }
  if (tracing.length > 0) {
    console.log('\n## Tracing: off, configured with sampling 0, sampling 1 (OTLP/HTTP to a receiver on 127.0.0.1; default model, 2 workers; side by side in short turns, medians of ratios within a round)\n')
    const off = (scenario: string): TracingRow | undefined => tracing.find(r => r.server === 'tracing off' && r.scenario === scenario)
    console.log(markdown(['server', 'scenario', 'texts/s', 'vs tracing off', 'each round vs off', 'p99 ms', 'front thread us/request', 'added front us/request', 'server CPU us/request', 'server CPU vs off', 'spans exported (both scenarios)', 'spans dropped', 'non-2xx or wrong'],
      tracing.map(r => {
        const o = off(r.scenario)
        const w = matching(was('tracing'), 'tracing', r, ['server', 'scenario'])
        return [r.server, r.scenario, beside(r.textsPerSecond, w?.textsPerSecond), fmt(r.vsOff, 2) + 'x', r.roundRatios.join(' '), fmt(r.p99Ms), fmt(r.frontCpuUsPerRequest, 1), fmt(r.frontCpuUsPerRequest - (o?.frontCpuUsPerRequest ?? 0), 1), beside(r.serverCpuUsPerRequest, w?.serverCpuUsPerRequest, 1), fmt(r.serverCpuVsOff, 3) + 'x', String(r.spansExported), String(r.spansDropped), String(r.non2xx)]
      })))
  }
  if (tracingCost.length > 0) {
    const offCpu = (scenario: string): number | undefined => tracing.find(r => r.server === 'tracing off' && r.scenario === scenario)?.serverCpuUsPerRequest
    const share = (us: number, scenario: string): string => { const of = offCpu(scenario); return of === undefined ? '' : `${fmt(100 * us / of, 1)}%` }
    console.log('\n## Tracing: CPU added to a single-text request\'s 4 spans, paced, no load generator (medians of rounds, the loop\'s own cost taken away; shares of a request\'s server CPU with tracing off, from the table above)\n')
    console.log(markdown(['setting', 'front thread us/request', 'all threads us/request', 'share of a single text @10', 'share of a batch of 50 @50', 'spans exported'],
      tracingCost.map(r => {
        const w = matching(was('tracing_cost'), 'tracing_cost', r, ['setting'])
        return [r.setting, beside(r.frontUs, w?.frontUs, 1), beside(r.processUs, w?.processUs, 1), share(r.processUs, 'single c10'), share(r.processUs, 'batch50 c50'), String(r.spansExported)]
      })))
  }
  console.log(`\nwrote bench/results/${stamp}.json and .svg`)
}

await main()
