/**
 * What one tree explanation costs: a 100-tree random forest, a 300-round LightGBM and a
 * 300-round XGBoost booster (bench/fixtures/treeshap), each text explained in process on one
 * thread (vectorizing included) and through a real service's /explain on its workers, beside
 * shap's own time for the same text as its generator measured it (shap-times*.json: shap's
 * TreeExplainer on a 1-row matrix, median of 50 texts). Before timing, the first 20 texts'
 * values are checked against shap's (within 1e-9), so the figures are for the same answer.
 */
import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { loadModel } from '../../src/sklearn/load-model.js'
import { ROOT } from '../lib/corpus.js'
import { startTfidf } from '../lib/servers.js'

const DIR = path.join(ROOT, 'bench', 'fixtures', 'treeshap')

interface ShapTimes {
  readonly machine: Readonly<Record<string, unknown>>
  readonly cases: ReadonlyArray<{
    readonly folder: string
    readonly note: string
    readonly files: readonly string[]
    readonly versions: Readonly<Record<string, string>>
    readonly timing: { readonly median_seconds: number, readonly texts: number }
    readonly expected_value: readonly number[]
    readonly features: readonly number[]
    readonly rows: ReadonlyArray<{ readonly output: readonly number[], readonly phi: readonly number[] }>
  }>
}

export interface ExplanationRow {
  readonly model: string
  readonly note: string
  /** The largest difference from shap's values over the checked texts. */
  readonly maxDiff: number
  readonly checkedTexts: number
  readonly inProcessMedianMs: number
  readonly serviceMedianMs: number
  readonly shapMedianMs: number
  readonly shap: string
}

const median = (xs: number[]): number => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** The models with shap's times: shap-times.json's cases, and each folder's own shap-times-*.json (its values under `values`). */
function benchCases (): Array<ShapTimes['cases'][number]> {
  const cases = [...(JSON.parse(readFileSync(path.join(DIR, 'shap-times.json'), 'utf8')) as ShapTimes).cases]
  for (const folder of readdirSync(DIR, { withFileTypes: true }).filter(d => d.isDirectory()).map(d => d.name).sort()) {
    for (const file of readdirSync(path.join(DIR, folder)).filter(f => /^shap-times.*\.json$/.test(f))) {
      const own = JSON.parse(readFileSync(path.join(DIR, folder, file), 'utf8')) as { median_seconds: number, texts: number, values: Omit<ShapTimes['cases'][number], 'folder' | 'timing'> }
      cases.push({ ...own.values, folder, timing: { median_seconds: own.median_seconds, texts: own.texts } })
    }
  }
  return cases
}

export async function explanationRows (progress: (m: string) => void): Promise<ExplanationRow[]> {
  const treeshapTexts = (JSON.parse(readFileSync(path.join(ROOT, 'test', 'fixtures', 'treeshap', 'texts.json'), 'utf8')) as { texts: string[] }).texts
  const rows: ExplanationRow[] = []
  for (const c of benchCases()) {
    const files = c.files.map(f => path.join(DIR, c.folder, f))
    const paths = { model: files[files.length - 1]!, vectorizers: files.slice(0, -1) }
    progress(`explanations ${c.folder}: checked against shap, then timed in process`)
    const { predictor } = await loadModel(paths)
    const outputs = c.expected_value.length
    let maxDiff = 0
    c.rows.forEach((row, i) => {
      const e = predictor.explain(treeshapTexts[i]!, Number.MAX_SAFE_INTEGER)
      const ours = new Map(e.features.map(s => [s.feature, s.contribution]))
      c.features.forEach((column, j) => {
        for (let k = 0; k < outputs; k++) maxDiff = Math.max(maxDiff, Math.abs((ours.get(column)?.[k] ?? 0) - row.phi[j * outputs + k]!))
      })
      for (let k = 0; k < outputs; k++) maxDiff = Math.max(maxDiff, Math.abs(e.intercept[k]! - c.expected_value[k]!), Math.abs(e.scores[k]! - row.output[k]!))
    })
    if (!(maxDiff <= 1e-9)) throw new Error(`explanations ${c.folder}: ${maxDiff} away from shap's values`)
    const timed = treeshapTexts.slice(0, c.timing.texts)
    predictor.explain(timed[0]!, 10)
    const inProcess = timed.map(t => {
      const t0 = performance.now()
      predictor.explain(t, 10)
      return performance.now() - t0
    })
    progress(`explanations ${c.folder}: through a service's /explain (2 workers)`)
    const server = await startTfidf({ dir: path.join(DIR, c.folder) }, 2)
    const service: number[] = []
    try {
      for (const t of [timed[0]!, ...timed]) {
        const t0 = performance.now()
        const res = await fetch(`${server.url}/explain`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: t, top_k: 10 }) })
        if (res.status !== 200) throw new Error(`explanations ${c.folder}: /explain answered ${res.status}`)
        await res.arrayBuffer()
        service.push(performance.now() - t0)
      }
    } finally {
      await server.stop()
    }
    rows.push({ model: c.folder, note: c.note, maxDiff, checkedTexts: c.rows.length, inProcessMedianMs: median(inProcess), serviceMedianMs: median(service.slice(1)), shapMedianMs: c.timing.median_seconds * 1000, shap: `shap ${c.versions.shap}${c.versions.xgboost === undefined ? '' : `, xgboost ${c.versions.xgboost}`}${c.versions.lightgbm === undefined ? '' : `, lightgbm ${c.versions.lightgbm}`}` })

  }
  return rows
}
