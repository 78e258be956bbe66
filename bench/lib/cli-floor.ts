/**
 * The model's own work per text, as the CLI does it: `tfidf-serve predict --workers 1
 * --format jsonl` reading JSON lines of unique texts and writing a JSON line with the
 * probabilities for each. CPU per text is the difference between a run over `texts` lines
 * and one over a thousand, so loading the model counts in neither (bash's `times` reads both
 * runs' CPU from the kernel's accounting of children).
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { ROOT } from './corpus.js'
import { modelFiles, type ModelDir } from './models.js'

const FEW = 1000

/** CPU seconds (user + system) of `tfidf-serve predict` over `file`. */
function cliCpuSeconds (m: ModelDir, file: string): number {
  const { model, vectorizer } = modelFiles(m)
  const cli = path.join(ROOT, 'dist', 'src', 'cli.js')
  const out = execFileSync('bash', ['-c', `"$0" "$1" predict --workers 1 --format jsonl --model "$2" --vectorizer "$3" "$4" >/dev/null; times`, process.execPath, cli, model, vectorizer, file], { encoding: 'utf8' })
  // times: this shell's user and system time, then its children's: "0m1.234s 0m0.056s"
  const children = out.trim().split('\n').at(-1)!.split(/\s+/)
  return children.reduce((sum, t) => {
    const [, min, sec] = /^(\d+)m([\d.]+)s$/.exec(t)!
    return sum + Number(min) * 60 + Number(sec)
  }, 0)
}

/** Microseconds of CPU per text the CLI spends on `count` unique texts made from `corpus`, loading excluded. */
export function cliCpuPerText (m: ModelDir, corpus: readonly string[], count: number): number {
  const dir = mkdtempSync(path.join(tmpdir(), 'tfidf-bench-floor-'))
  try {
    const write = (n: number): string => {
      const file = path.join(dir, `${n}.jsonl`)
      writeFileSync(file, Array.from({ length: n }, (_, k) => JSON.stringify({ text: `${corpus[k % corpus.length]!} ${k}` })).join('\n') + '\n')
      return file
    }
    const many = write(count)
    const few = write(FEW)
    return (cliCpuSeconds(m, many) - cliCpuSeconds(m, few)) * 1e6 / (count - FEW)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
