/**
 * The worker of noop-express-worker.ts when it is given a model: each text classified by the
 * service's own predictor (the model decoded in this thread), the label kept. What a worker
 * task costs when it does the service's work, with none of the service's front-thread work.
 */
import { workerData } from 'node:worker_threads'
import { loadServedModel } from '../../src/model/served-model.js'

const { model, vectorizer } = workerData as { model: string, vectorizer: string }
const { predictor } = await loadServedModel({ paths: { model, vectorizers: [vectorizer] }, settingsFile: null })

export default function label (texts: readonly string[]): string[] {
  return texts.map(text => predictor.predict(text).label)
}
