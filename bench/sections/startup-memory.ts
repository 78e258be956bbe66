/** Start-up to the first healthy /health and resident memory, per model and WORKERS. */
import { execFileSync } from 'node:child_process'
import { statSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { setTimeout } from 'node:timers/promises'
import { ROOT } from '../lib/corpus.js'
import { runLoad, type Oracle } from '../lib/load.js'
import { modelFiles, type ModelDir } from '../lib/models.js'
import { SERVER_ENV, SERVER_NODE_FLAGS, startBaseline, startTfidf } from '../lib/servers.js'

export interface StartupRow {
  readonly model: string
  readonly workers: number
  /** The median of `rounds` starts. */
  readonly startupSeconds: number
  readonly rssStartMb: number
  readonly rssAfterLoadMb: number
  /** After `settleSeconds` idle: V8 gives back the heap that load grew once allocation stops. */
  readonly rssSettledMb: number
  readonly batch50TextsPerSecond: number
}

export interface BaselineStartupRow {
  readonly model: string
  /** The FastAPI service with one uvicorn worker, median of `rounds` starts. */
  readonly startupSeconds: number
}

export interface DecodeFloorRow {
  readonly model: string
  /** A Node process that only decodes the model as the service does (its decoding thread) and exits: start to decoded, median of `rounds`. */
  readonly seconds: number
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

/**
 * Per model and worker count: `rounds` starts (one start is noisy on shared cores), the
 * median start-up; the first start is then loaded and its memory read.
 */
export async function startupRows (models: readonly ModelDir[], workerCounts: readonly number[], loadSeconds: number, settleSeconds: number, texts: readonly string[], oracles: ReadonlyMap<string, Oracle>, progress: (m: string) => void, rounds = 1): Promise<StartupRow[]> {
  const rows: StartupRow[] = []
  for (const m of models) {
    for (const workers of workerCounts) {
      progress(`start-up and memory ${m.name} WORKERS=${workers}${rounds > 1 ? ` (${rounds} starts)` : ''}`)
      const starts: number[] = []
      for (let r = 1; r < rounds; r++) {
        const server = await startTfidf(m, workers)
        starts.push(server.startupSeconds)
        await server.stop()
      }
      const server = await startTfidf(m, workers)
      starts.push(server.startupSeconds)
      try {
        const rssStart = server.rssBytes()
        const f = await runLoad(server.url, { name: 'batch50 c10', size: 50, connections: 10 }, loadSeconds, texts, oracles.get(m.name))
        if (f.wrong > 0) throw new Error(`start-up ${m.name} WORKERS=${workers}: ${f.wrong} wrong answers`)
        const rssAfterLoad = server.rssBytes()
        await setTimeout(settleSeconds * 1000)
        rows.push({ model: m.name, workers, startupSeconds: median(starts), rssStartMb: rssStart / 1e6, rssAfterLoadMb: rssAfterLoad / 1e6, rssSettledMb: server.rssBytes() / 1e6, batch50TextsPerSecond: f.textsPerSecond })
      } finally {
        await server.stop()
      }
    }
  }
  return rows
}

/** The Python service's start-up per model, measured in the same section as ours (medians of `rounds`). */
export async function baselineStartupRows (models: readonly ModelDir[], rounds: number, progress: (m: string) => void): Promise<BaselineStartupRow[]> {
  const rows: BaselineStartupRow[] = []
  for (const m of models) {
    progress(`start-up of the Python service, ${m.name} model (${rounds} starts)`)
    const starts: number[] = []
    for (let r = 0; r < rounds; r++) {
      const server = await startBaseline(m, 1)
      starts.push(server.startupSeconds)
      await server.stop()
    }
    rows.push({ model: m.name, startupSeconds: median(starts) })
  }
  return rows
}

export interface ServiceFloorRow {
  /** The model and vectorizer files' size: next to nothing to decode. */
  readonly modelKb: number
  /** The service's start-up to ready on it (2 workers, `npm start`'s flags), median of `rounds`. */
  readonly seconds: number
}

/** The smallest model of the test fixtures: a logistic regression over a vectorizer of a few hundred terms. */
const SMALLEST_MODEL = { dir: path.join(ROOT, 'test', 'fixtures', 'sklearn', 'logreg-binary') }

/**
 * The floor under start-up from everything but the model: the service started as the
 * start-up section starts it, on a model that takes a few milliseconds to decode. What the
 * process, Express, ajv, the pool and its workers cost before any model can be served.
 */
export async function serviceFloorRow (rounds: number, progress: (m: string) => void): Promise<ServiceFloorRow> {
  progress(`start-up on the smallest model (${rounds} starts)`)
  const starts: number[] = []
  for (let r = 0; r < rounds; r++) {
    const server = await startTfidf(SMALLEST_MODEL, 2)
    starts.push(server.startupSeconds)
    await server.stop()
  }
  const { model, vectorizer } = modelFiles(SMALLEST_MODEL)
  return { modelKb: (statSync(model).size + statSync(vectorizer).size) / 1024, seconds: median(starts) }
}

/**
 * The floor under our start-up: a process that does nothing but decode the model in the
 * service's decoding thread (read, unpickle, check, build the shared tables), from its start
 * to decoded. No service can be ready sooner with this decoder; the service also loads its
 * HTTP stack and starts its workers, on the same cores.
 */
export function decodeFloorRows (models: readonly ModelDir[], rounds: number, progress: (m: string) => void): DecodeFloorRow[] {
  const decoder = pathToFileURL(path.join(ROOT, 'dist', 'src', 'pool', 'decode-model-thread.js')).href
  return models.map(m => {
    progress(`decoding alone, ${m.name} model (${rounds} processes)`)
    const { model, vectorizer } = modelFiles(m)
    // A CommonJS -e (its import() is dynamic): the decoding thread would inherit --input-type.
    const script = `import(${JSON.stringify(decoder)})
  .then(async ({ decodeModelInThread }) => await decodeModelInThread({ model: ${JSON.stringify(model)}, vectorizers: ${JSON.stringify([vectorizer])} }))
  .then(() => console.log(performance.now()))`
    const runs: number[] = []
    for (let r = 0; r < rounds; r++) {
      // performance.now() counts from the process's start, so Node's own boot is in the figure.
      const ms = Number(execFileSync(process.execPath, [...SERVER_NODE_FLAGS, '-e', script], { env: { ...process.env, ...SERVER_ENV }, encoding: 'utf8' }).trim())
      runs.push(ms / 1000)
    }
    return { model: m.name, seconds: median(runs) }
  })
}
