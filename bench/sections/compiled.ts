/**
 * Start-up from a compiled model file (`tfidf-serve compile`) beside start-up from the pickles,
 * and from the cache (MODEL_CACHE_DIR: its first start compiles, later ones load), per model
 * with 2 workers, starts interleaved round by round so each kind meets the same noise; the
 * resident memory of one start of each kind after a short load; the compile's own time and
 * file size; with --baseline, the Python service's start-up in the same section.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { ROOT } from '../lib/corpus.js'
import { runLoad, type Oracle } from '../lib/load.js'
import { modelFiles, type ModelDir } from '../lib/models.js'
import { startBaseline, startTfidf } from '../lib/servers.js'
import type { Server } from '../lib/processes.js'

export interface CompiledRow {
  readonly model: string
  /** `tfidf-serve compile` from process start to exit. */
  readonly compileSeconds: number
  readonly compiledMb: number
  /** Medians of `rounds` starts, WORKERS=2, to the first healthy /health. */
  readonly picklesStartupSeconds: number
  readonly compiledStartupSeconds: number
  /** A start that finds its model in MODEL_CACHE_DIR (the cache filled by one start before). */
  readonly cachedStartupSeconds: number
  /** The start that filled the cache (decodes the pickles, then writes the entry beside serving). */
  readonly cacheFillStartupSeconds: number
  readonly picklesRssAfterLoadMb: number
  readonly compiledRssAfterLoadMb: number
  /** The Python service (1 uvicorn worker), median of `rounds`, when --baseline. */
  readonly baselineStartupSeconds: number | null
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

const CLI = path.join(ROOT, 'dist', 'src', 'cli.js')

/** RSS after `seconds` of batch-50 load checked against the oracle. */
async function rssAfterLoad (server: Server, seconds: number, texts: readonly string[], oracle: Oracle | undefined, what: string): Promise<number> {
  const f = await runLoad(server.url, { name: 'batch50 c10', size: 50, connections: 10 }, seconds, texts, oracle)
  if (f.wrong > 0) throw new Error(`${what}: ${f.wrong} wrong answers`)
  return server.rssBytes() / 1e6
}

export async function compiledRows (models: readonly ModelDir[], rounds: number, loadSeconds: number, baseline: boolean, texts: readonly string[], oracles: ReadonlyMap<string, Oracle>, progress: (m: string) => void): Promise<CompiledRow[]> {
  const rows: CompiledRow[] = []
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-compiled-'))
  try {
    for (const m of models) {
      const { model, vectorizer } = modelFiles(m)
      const out = path.join(dir, `${m.name}.tfsc`)
      progress(`compiling the ${m.name} model`)
      const started = performance.now()
      execFileSync(process.execPath, [CLI, 'compile', '--model', model, '--vectorizer', vectorizer, '--out', out], { stdio: ['ignore', 'ignore', 'inherit'] })
      const compileSeconds = (performance.now() - started) / 1000
      const compiled = { MODEL_PATH: out, VECTORIZER_PATH: '' }
      const cacheDir = path.join(dir, `cache-${m.name}`)
      progress(`filling the cache with the ${m.name} model`)
      const filling = await startTfidf(m, 2, { MODEL_CACHE_DIR: cacheDir })
      // The entry is written beside serving: wait for it before the next start looks.
      for (let i = 0; i < 600 && !(existsSync(cacheDir) && readdirSync(cacheDir).some(f => f.endsWith('.tfsc'))); i++) await new Promise(resolve => setTimeout(resolve, 50))
      await filling.stop()
      const starts = { pickles: [] as number[], compiled: [] as number[], cached: [] as number[], baseline: [] as number[] }
      let rss = { pickles: 0, compiled: 0 }
      for (let r = 0; r < rounds; r++) {
        progress(`start-up round ${r + 1} of ${rounds}, ${m.name} model: pickles, compiled, cached${baseline ? ', Python' : ''}`)
        const last = r === rounds - 1
        for (const [kind, env] of [['pickles', {}], ['compiled', compiled], ['cached', { MODEL_CACHE_DIR: cacheDir }]] as const) {
          const server = await startTfidf(m, 2, env)
          starts[kind].push(server.startupSeconds)
          try {
            if (last && kind !== 'cached') rss = { ...rss, [kind]: await rssAfterLoad(server, loadSeconds, texts, oracles.get(m.name), `${kind} ${m.name}`) }
          } finally {
            await server.stop()
          }
        }
        if (baseline) {
          const server = await startBaseline(m, 1)
          starts.baseline.push(server.startupSeconds)
          await server.stop()
        }
      }
      rows.push({
        model: m.name,
        compileSeconds,
        compiledMb: statSync(out).size / 1e6,
        picklesStartupSeconds: median(starts.pickles),
        compiledStartupSeconds: median(starts.compiled),
        cachedStartupSeconds: median(starts.cached),
        cacheFillStartupSeconds: filling.startupSeconds,
        picklesRssAfterLoadMb: rss.pickles,
        compiledRssAfterLoadMb: rss.compiled,
        baselineStartupSeconds: baseline ? median(starts.baseline) : null
      })
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return rows
}
