/**
 * The worker of noop-express-worker.ts and spec-floor.ts when given a model: each text
 * classified by the service's own predictor (the model decoded in this thread). What a worker
 * task costs when it does the service's work, with none of the service's front-thread work.
 */
import { workerData } from 'node:worker_threads'
import { loadServedModel } from '../../src/model/served-model.js'

const { model, vectorizer } = workerData as { model: string, vectorizer: string }
const { predictor } = await loadServedModel({ paths: { model, vectorizers: [vectorizer] }, settingsFile: null })

/** Each text's label, and its confidence and seconds in one array (confidences first). */
export interface ModelWorkerResult {
  readonly labels: string[]
  readonly numbers: Float64Array
}

export default function classify (texts: readonly string[]): ModelWorkerResult {
  const numbers = new Float64Array(2 * texts.length)
  const labels = texts.map((text, i) => {
    const started = performance.now()
    const p = predictor.predict(text)
    numbers[i] = p.confidence
    numbers[texts.length + i] = (performance.now() - started) / 1000
    return p.label
  })
  return { labels, numbers }
}
