/**
 * The no-op Express ceiling with the design's one extra step: each request's texts go to two
 * worker threads (a Piscina pool, as the service's) in tasks of `batch_size` texts (default 10:
 * DECISIONS.md 5 makes batch_size the size of a worker task), run side by side, and come back
 * before the answer, the workers classifying nothing. What the service adds beyond this server
 * is its own work (validation, the model, its answer); what this one loses against the plain
 * ceiling is the price of the design's worker tasks, which the service always pays.
 * PORT from the environment; with MODEL_PATH and VECTORIZER_PATH the workers also classify each
 * text with that model (bench/http/model-worker.ts): the design's tasks doing the model's work,
 * the front thread still doing nothing of the service's.
 */
import express from 'express'
import { Piscina } from 'piscina'
import { noopAnswer } from './noop-answer.js'

const model = process.env.MODEL_PATH === undefined ? undefined : { model: process.env.MODEL_PATH, vectorizer: process.env.VECTORIZER_PATH }
const pool = new Piscina<readonly string[], unknown>({
  filename: new URL(model === undefined ? './noop-worker.js' : './model-worker.js', import.meta.url).href,
  workerData: model,
  minThreads: 2,
  maxThreads: 2,
  idleTimeout: Infinity
})

const app = express()
app.use(express.json({ limit: '1mb' }))
app.post('/predict', async (req, res) => {
  const body = req.body as { text?: string, texts?: string[], batch_size?: number }
  const texts = typeof body.text === 'string' ? [body.text] : body.texts ?? []
  const size = body.batch_size ?? 10
  const chunks: Array<Promise<unknown>> = []
  for (let i = 0; i < texts.length; i += size) chunks.push(pool.run(texts.slice(i, i + size)))
  await Promise.all(chunks)
  res.json(noopAnswer(req.body))
})
app.get('/health', (_req, res) => { res.json({ status: 'healthy' }) })
app.listen(Number(process.env.PORT), '127.0.0.1')
