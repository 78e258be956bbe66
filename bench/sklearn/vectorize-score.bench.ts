/**
 * In-process speed of vectorize + score on one thread, for texts of 100, 1,000 and 10,000
 * characters. Run alone: `npm run bench:inprocess [-- MODEL_DIR [SECONDS [--json]]]`; the
 * bench runs it in a process per model, as a server holds one model (in one process, several
 * models' code would share call sites and slow each other down: 53 against 63 MB/s, measured).
 */
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { loadModel } from '../../src/sklearn/load-model.js'
import type { Predictor } from '../../src/sklearn/predictor.js'
import { ROOT, loadTexts, textsOfLength } from '../lib/corpus.js'

export interface InProcessFigures {
  readonly chars: number
  readonly textsPerSecond: number
  readonly mbPerSecond: number
}

/** Classifies `texts` over and over for `seconds`; figures per second of one thread. */
export function measureInProcess (predictor: Predictor, texts: readonly string[], seconds: number): Omit<InProcessFigures, 'chars'> {
  const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0)
  for (const t of texts.slice(0, 20)) predictor.predict(t)
  let rounds = 0
  const started = performance.now()
  let elapsed = 0
  do {
    for (const t of texts) predictor.predict(t)
    rounds++
    elapsed = (performance.now() - started) / 1000
  } while (elapsed < seconds)
  return { textsPerSecond: rounds * texts.length / elapsed, mbPerSecond: rounds * bytes / elapsed / 1e6 }
}

export const LENGTHS = [100, 1000, 10000] as const

/** The texts of each length the bench uses (the same go to scikit-learn). */
export function benchTexts (corpus: readonly string[], chars: number): string[] {
  return textsOfLength(corpus, chars, chars >= 10000 ? 40 : chars >= 1000 ? 200 : 1000)
}

async function main (): Promise<void> {
  const args = process.argv.slice(2).filter(a => a !== '--json')
  const dir = args[0] ?? path.join(ROOT, 'models')
  const seconds = Number(args[1] ?? 2)
  const lengths = args.length > 2 ? args.slice(2).map(Number) : LENGTHS
  const { predictor } = await loadModel({ model: path.join(dir, 'final_best_model.pkl'), vectorizers: [path.join(dir, 'tfidf_vectorizer.pkl')] })
  const corpus = loadTexts()
  const rows: InProcessFigures[] = []
  for (const chars of lengths) rows.push({ chars, ...measureInProcess(predictor, benchTexts(corpus, chars), seconds) })
  if (process.argv.includes('--json')) return void console.log(JSON.stringify(rows))
  for (const f of rows) console.log(`${f.chars} chars: ${Math.round(f.textsPerSecond)} texts/s, ${f.mbPerSecond.toFixed(1)} MB/s`)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main()
