/** `tfidf-serve predict` with one worker and with two, on the same file: texts/s after loading and peak memory. */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { ROOT, uniqueTexts } from '../lib/corpus.js'
import { modelFiles, type ModelDir } from '../lib/models.js'

export interface CliRow {
  readonly input: string
  readonly workers: number
  readonly textsPerSecond: number
  readonly maxRssMb: number
}

interface Stats { readonly texts: number, readonly texts_per_second: number, readonly max_rss_bytes: number }

function median (values: number[]): number {
  const s = [...values].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

export function cliRows (model: ModelDir, corpus: readonly string[], scale: number, rounds: number, progress: (m: string) => void): CliRow[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'tfidf-bench-cli-'))
  const { model: modelPath, vectorizer } = modelFiles(model)
  const rows: CliRow[] = []
  try {
    const inputs = [
      { input: `${(60 * scale).toLocaleString('en-US')}k lines of 1,000 characters`, chars: 1000, lines: 60_000 * scale },
      { input: `${(600 * scale).toLocaleString('en-US')}k lines of 120 characters`, chars: 120, lines: 600_000 * scale }
    ]
    for (const { input, chars, lines } of inputs) {
      const file = path.join(dir, `${chars}.txt`)
      writeFileSync(file, uniqueTexts(corpus, chars, lines, 'n').join('\n') + '\n')
      const runs = new Map<number, Stats[]>([[1, []], [2, []]])
      // Alternate the worker counts, so a slow spell of the machine falls on both.
      for (let r = 0; r < rounds; r++) {
        for (const workers of [1, 2]) {
          progress(`CLI ${input}, --workers ${workers}, round ${r + 1} of ${rounds}`)
          const run = spawnSync(process.execPath, [path.join(ROOT, 'dist', 'src', 'cli.js'), 'predict', '--workers', String(workers), '--stats', '--model', modelPath, '--vectorizer', vectorizer, file],
            { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' })
          if (run.status !== 0) throw new Error(`CLI exited ${String(run.status)}: ${run.stderr}`)
          const stats = JSON.parse(run.stderr) as Stats
          if (stats.texts !== lines) throw new Error(`CLI classified ${stats.texts} of ${lines} lines`)
          runs.get(workers)!.push(stats)
        }
      }
      for (const [workers, stats] of runs) {
        rows.push({ input, workers, textsPerSecond: median(stats.map(s => s.texts_per_second)), maxRssMb: median(stats.map(s => s.max_rss_bytes)) / 1e6 })
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return rows
}
