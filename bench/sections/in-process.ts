/**
 * In-process speed on one thread: tfidf-serve's vectorize + score beside scikit-learn's
 * transform + predict_proba on the same texts and model, scikit-learn called with 50 texts
 * at a time and with one.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { loadModel } from '../../src/sklearn/load-model.js'
import { ROOT } from '../lib/corpus.js'
import { PYTHON, modelFiles, type ModelDir } from '../lib/models.js'
import { benchTexts, type InProcessFigures } from '../sklearn/vectorize-score.bench.js'

export interface InProcessRow {
  readonly model: string
  readonly chars: number
  readonly textsPerSecond: number
  readonly mbPerSecond: number
  readonly sklearnBatch50?: { readonly texts_per_s: number, readonly mb_per_s: number }
  readonly sklearnSingle?: { readonly texts_per_s: number, readonly mb_per_s: number }
}

interface SklearnFigures {
  readonly batch50: { readonly texts_per_s: number, readonly mb_per_s: number }
  readonly single: { readonly texts_per_s: number, readonly mb_per_s: number }
  readonly labels: string[]
}

export async function inProcessRows (models: readonly ModelDir[], corpus: readonly string[], lengths: readonly number[], seconds: number, python: boolean, progress: (m: string) => void): Promise<InProcessRow[]> {
  const rows: InProcessRow[] = []
  for (const m of models) {
    const { model, vectorizer } = modelFiles(m)
    const { predictor } = await loadModel({ model, vectorizers: [vectorizer] })
    progress(`in-process ${m.name}: tfidf-serve, ${lengths.join(', ')} characters, in a process of its own`)
    const figures = JSON.parse(execFileSync(process.execPath, [path.join(ROOT, 'dist', 'bench', 'sklearn', 'vectorize-score.bench.js'), m.dir, String(seconds), ...lengths.map(String), '--json'], { encoding: 'utf8' })) as InProcessFigures[]
    for (const chars of lengths) {
      const sample = benchTexts(corpus, chars)
      const ours = figures.find(f => f.chars === chars)!
      let theirs: SklearnFigures | undefined
      if (python) {
        progress(`in-process ${m.name}: scikit-learn, ${chars} characters`)
        const file = path.join(ROOT, 'bench', 'results', `.texts-${chars}.json`)
        mkdirSync(path.dirname(file), { recursive: true })
        writeFileSync(file, JSON.stringify(sample))
        theirs = JSON.parse(execFileSync(PYTHON, [path.join(ROOT, 'bench', 'baseline', 'inprocess.py'), vectorizer, model, file, String(seconds)], { encoding: 'utf8' })) as SklearnFigures
        const mine = sample.slice(0, 20).map(t => predictor.predict(t).label)
        if (JSON.stringify(mine) !== JSON.stringify(theirs.labels)) throw new Error(`in-process ${m.name} ${chars}: labels differ from scikit-learn's`)
      }
      rows.push({ model: m.name, chars, textsPerSecond: ours.textsPerSecond, mbPerSecond: ours.mbPerSecond, sklearnBatch50: theirs?.batch50, sklearnSingle: theirs?.single })
    }
  }
  return rows
}
