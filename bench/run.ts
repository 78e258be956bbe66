/**
 * `npm run bench [-- --quick] [-- --baseline]`: tfidf-serve under autocannon beside the
 * ceiling of its HTTP stack (no-op Express and node:http servers on the same bodies) and,
 * with --baseline, the FastAPI + scikit-learn service it replaces; in-process speed beside
 * scikit-learn; start-up time and memory per worker count. Targets 127.0.0.1 only; every
 * run is bounded in time. Writes bench/results/<timestamp>.json and .svg and prints a table.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import path from 'node:path'
import { loadModel } from '../src/sklearn/load-model.js'
import { displayLabel } from '../src/labels.js'
import { ROOT, loadTexts } from './lib/corpus.js'
import { runLoad, type Oracle, type Scenario } from './lib/load.js'
import { freePort, startServer, type Server } from './lib/processes.js'
import { chart, markdown, table, type Row } from './lib/report.js'
import { LENGTHS, benchTexts, measureInProcess } from './sklearn/vectorize-score.bench.js'

const argv = new Set(process.argv.slice(2))
const QUICK = argv.has('--quick')
const BASELINE = argv.has('--baseline')
const PYTHON = '/usr/bin/python3'
const DURATION = QUICK ? 2 : 8

interface ModelDir { readonly name: string, readonly dir: string }

const SCENARIOS: Scenario[] = QUICK
  ? [{ name: 'single c10', size: 0, connections: 10 }, { name: 'batch50 c10', size: 50, connections: 10 }]
  : [0, 10, 50].flatMap(size => [1, 10, 50].map(connections => ({ name: `${size === 0 ? 'single' : `batch${size}`} c${connections}`, size, connections })))

let step = 0
function progress (message: string): void {
  process.stderr.write(`[bench ${++step}] ${message}\n`)
}

function hasPython (modules: string[]): boolean {
  try {
    execFileSync(PYTHON, ['-c', `import ${modules.join(', ')}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

function modelPaths (m: ModelDir): { model: string, vectorizer: string } {
  return { model: path.join(m.dir, 'final_best_model.pkl'), vectorizer: path.join(m.dir, 'tfidf_vectorizer.pkl') }
}

async function startTfidf (m: ModelDir, workers: number, cacheSize = 0): Promise<Server> {
  const port = await freePort()
  const { model, vectorizer } = modelPaths(m)
  return await startServer(`tfidf-serve (${workers} workers)`, process.execPath, [path.join(ROOT, 'dist', 'src', 'main.js')],
    { PORT: String(port), HOST: '127.0.0.1', MODEL_PATH: model, VECTORIZER_PATH: vectorizer, WORKERS: String(workers), CACHE_SIZE: String(cacheSize), LOG_LEVEL: 'warn' }, port)
}

async function startBaseline (m: ModelDir, workers: number): Promise<Server> {
  const port = await freePort()
  const { model, vectorizer } = modelPaths(m)
  return await startServer(`baseline (${workers} uvicorn workers)`, PYTHON, ['-m', 'uvicorn', 'app:app', '--app-dir', path.join(ROOT, 'bench', 'baseline'), '--host', '127.0.0.1', '--port', String(port), '--workers', String(workers), '--log-level', 'warning', '--no-access-log'],
    { MODEL_PATH: model, VECTORIZER_PATH: vectorizer }, port)
}

async function startNoop (kind: 'express' | 'http'): Promise<Server> {
  const port = await freePort()
  return await startServer(`noop-${kind}`, process.execPath, [path.join(ROOT, 'dist', 'bench', 'http', `noop-${kind}.js`)], { PORT: String(port) }, port)
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

async function main (): Promise<void> {
  const started = new Date()
  const machine = { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, memory_gb: Math.round(totalmem() / 1024 ** 3), node: process.version, platform: process.platform }
  progress(`machine: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; load generator and servers share these cores`)
  const texts = loadTexts()
  const models: ModelDir[] = [{ name: 'default', dir: path.join(ROOT, 'models') }]
  const python = hasPython(['sklearn'])
  if (!QUICK) {
    const large = path.join(ROOT, 'bench', 'models', 'large')
    if (!existsSync(path.join(large, 'final_best_model.pkl'))) {
      if (python) {
        progress('generating the 200,000-feature model with scikit-learn')
        execFileSync(PYTHON, [path.join(ROOT, 'bench', 'models', 'make_large.py'), large], { stdio: 'inherit' })
      } else {
        progress('no /usr/bin/python3 with scikit-learn: skipping the large model (apt-get install -y python3-sklearn)')
      }
    }
    if (existsSync(path.join(large, 'final_best_model.pkl'))) models.push({ name: 'large', dir: large })
  }

  // Oracles: what each model must answer, from the in-process classifier (itself tested against scikit-learn).
  const oracles = new Map<string, (text: string) => string>()
  for (const m of models) {
    const { model, vectorizer } = modelPaths(m)
    const { predictor } = await loadModel({ model, vectorizers: [vectorizer] })
    oracles.set(m.name, text => displayLabel(predictor.predict(text).label))
  }

  const rows: Row[] = []
  for (const m of models) {
    const server = await startTfidf(m, 2)
    try {
      rows.push(...await loadRows(server, 'tfidf-serve', m.name, SCENARIOS, texts, oracles.get(m.name)))
    } finally {
      await server.stop()
    }
  }
  const cached = await startTfidf(models[0]!, 2, 10000)
  try {
    rows.push(...await loadRows(cached, 'tfidf-serve cached', 'default', [{ name: 'batch50 c10 repeated', size: 50, connections: 10, repeat: true }], texts, oracles.get('default')))
  } finally {
    await cached.stop()
  }
  for (const kind of ['express', 'http'] as const) {
    const server = await startNoop(kind)
    try {
      rows.push(...await loadRows(server, `noop-${kind}`, 'default', SCENARIOS, texts, undefined))
    } finally {
      await server.stop()
    }
  }
  const baselineReady = BASELINE && hasPython(['sklearn', 'fastapi', 'uvicorn'])
  if (BASELINE && !baselineReady) progress('no FastAPI/uvicorn/scikit-learn for /usr/bin/python3: skipping the baseline (apt-get install -y python3-fastapi python3-uvicorn python3-sklearn)')
  const baselineRss: Array<Record<string, unknown>> = []
  if (baselineReady) {
    for (const m of models) {
      for (const workers of [1, 2]) {
        const server = await startBaseline(m, workers)
        try {
          const rssStart = server.rssBytes()
          rows.push(...await loadRows(server, `baseline-${workers}`, m.name, SCENARIOS, texts, oracles.get(m.name)))
          baselineRss.push({ model: m.name, workers, startup_s: server.startupSeconds, rss_start_mb: rssStart / 1e6, rss_after_load_mb: server.rssBytes() / 1e6 })
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
      r.p99VsBaseline = r.p99 / Math.max(base.p99, 1e-9)
    }
  }

  // In-process: one thread of ours beside scikit-learn's whole-list transform + predict_proba.
  const inProcess: Array<Record<string, unknown>> = []
  for (const m of models) {
    const { model, vectorizer } = modelPaths(m)
    const { predictor } = await loadModel({ model, vectorizers: [vectorizer] })
    for (const chars of QUICK ? [1000] : LENGTHS) {
      progress(`in-process ${m.name} ${chars}-character texts`)
      const sample = benchTexts(texts, chars)
      const ours = measureInProcess(predictor, sample, QUICK ? 1 : 3)
      let theirs: { texts_per_s: number, mb_per_s: number, labels: string[] } | undefined
      if (python) {
        const file = path.join(ROOT, 'bench', 'results', `.texts-${chars}.json`)
        mkdirSync(path.dirname(file), { recursive: true })
        writeFileSync(file, JSON.stringify(sample))
        theirs = JSON.parse(execFileSync(PYTHON, [path.join(ROOT, 'bench', 'baseline', 'inprocess.py'), vectorizer, model, file, QUICK ? '1' : '3'], { encoding: 'utf8' })) as typeof theirs
        const mine = sample.slice(0, 20).map(t => predictor.predict(t).label)
        if (JSON.stringify(mine) !== JSON.stringify(theirs!.labels)) throw new Error(`in-process ${m.name} ${chars}: labels differ from scikit-learn's`)
      }
      inProcess.push({ model: m.name, chars, texts_per_s: ours.textsPerSecond, mb_per_s: ours.mbPerSecond, sklearn_texts_per_s: theirs?.texts_per_s, sklearn_mb_per_s: theirs?.mb_per_s, ratio: theirs === undefined ? undefined : ours.textsPerSecond / theirs.texts_per_s })
    }
  }

  // Start-up and memory per worker count; texts/s per worker count shows the scaling.
  const startup: Array<Record<string, unknown>> = []
  for (const m of models) {
    for (const workers of QUICK ? [2] : [1, 2, 4]) {
      progress(`start-up ${m.name} WORKERS=${workers}`)
      const server = await startTfidf(m, workers)
      try {
        const rssStart = server.rssBytes()
        const f = await runLoad(server.url, { name: 'batch50 c10', size: 50, connections: 10 }, QUICK ? 2 : 4, texts, oracles.get(m.name))
        startup.push({ model: m.name, workers, startup_s: server.startupSeconds, rss_start_mb: rssStart / 1e6, rss_after_load_mb: server.rssBytes() / 1e6, batch50_texts_per_s: f.textsPerSecond })
      } finally {
        await server.stop()
      }
    }
  }

  const stamp = started.toISOString().replace(/[:.]/g, '-')
  const dir = path.join(ROOT, 'bench', 'results')
  mkdirSync(dir, { recursive: true })
  const result = { date: started.toISOString(), quick: QUICK, duration_s: DURATION, machine, note: 'autocannon and the servers share the machine\'s cores', http: rows, in_process: inProcess, startup, baseline_memory: baselineRss }
  writeFileSync(path.join(dir, `${stamp}.json`), JSON.stringify(result, null, 2) + '\n')
  writeFileSync(path.join(dir, `${stamp}.svg`), chart(rows.filter(r => r.model === 'default' && !r.server.includes('cached')), `texts/s and p99 by scenario, default model (${started.toISOString().slice(0, 10)}, ${machine.cores} cores, Node ${machine.node})`))

  const fmt = (n: unknown, d = 0): string => typeof n === 'number' ? n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : ''
  console.log(`\n## HTTP (${DURATION} s per scenario, ${machine.cpu}, ${machine.cores} cores shared with the load generator, Node ${machine.node})\n`)
  console.log(table(rows))
  console.log('\n## In-process, one thread\n')
  console.log(markdown(['model', 'chars', 'texts/s', 'MB/s', 'scikit-learn texts/s', 'scikit-learn MB/s', 'ratio'], inProcess.map(r => [String(r.model), String(r.chars), fmt(r.texts_per_s), fmt(r.mb_per_s, 1), fmt(r.sklearn_texts_per_s), fmt(r.sklearn_mb_per_s, 1), r.ratio === undefined ? '' : `${fmt(r.ratio, 1)}x`])))
  console.log('\n## Start-up, memory and scaling\n')
  console.log(markdown(['model', 'WORKERS', 'start-up s', 'RSS after start MB', 'RSS after load MB', 'batch50 c10 texts/s'], startup.map(r => [String(r.model), String(r.workers), fmt(r.startup_s, 2), fmt(r.rss_start_mb), fmt(r.rss_after_load_mb), fmt(r.batch50_texts_per_s)])))
  if (baselineRss.length > 0) {
    console.log('\n## Baseline memory\n')
    console.log(markdown(['model', 'uvicorn workers', 'start-up s', 'RSS after start MB', 'RSS after load MB'], baselineRss.map(r => [String(r.model), String(r.workers), fmt(r.startup_s, 2), fmt(r.rss_start_mb), fmt(r.rss_after_load_mb)])))
  }
  console.log(`\nwrote bench/results/${stamp}.json and .svg`)
}

await main()
