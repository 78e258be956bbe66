/**
 * The design's shape doing what the spec asks of every /predict request, and nothing more: the
 * service's own body reader (its bounds and shape scan), its compiled schemas and text rules
 * (ajv), its headers (request id, API version, helmet's, CORS), its Prometheus series for the
 * request and its texts, the model classifying in two Piscina workers in tasks of
 * `batch_size` (bench/http/model-worker.ts), and the spec's answer with Python's rounding.
 * Left out is what tfidf-serve adds around that: admission limits, per-task clocks and aborts,
 * the model repository, the result cache, tracing and access hooks, the request log. What
 * tfidf-serve loses against this server is the price of those; what this one loses against the
 * ceiling, no service doing the spec's work in this design can win back.
 * PORT, MODEL_PATH and VECTORIZER_PATH from the environment.
 */
import express from 'express'
import { Piscina } from 'piscina'
import { parseConfig } from '../../src/config.js'
import { helmetHeaders } from '../../src/http/app.js'
import { readJsonBody } from '../../src/http/body.js'
import { pyRound } from '../../src/http/rounding.js'
import { sendJson } from '../../src/http/send.js'
import { createBodyValidator } from '../../src/http/validate.js'
import { API_VERSION } from '../../src/service/context.js'
import { PrometheusMetrics } from '../../src/service/prometheus.js'
import type { ModelWorkerResult } from './model-worker.js'

const config = parseConfig(process.env)
const pool = new Piscina<readonly string[], ModelWorkerResult>({
  filename: new URL('./model-worker.js', import.meta.url).href,
  workerData: { model: process.env.MODEL_PATH, vectorizer: process.env.VECTORIZER_PATH },
  minThreads: 2,
  maxThreads: 2,
  idleTimeout: Infinity
})
const validator = createBodyValidator(config)
const prometheus = new PrometheusMetrics({
  inFlight: () => 0,
  waiting: () => 0,
  workersAlive: () => 2,
  workerRestarts: () => 0,
  cacheCounts: () => ({ lookups: 0, hits: 0 }),
  cacheSize: () => ({ entries: 0, bytes: 0 }),
  model: () => ({ classifier: 'LogisticRegression', vectorizer: 'TfidfVectorizer', features: 0, sklearnVersion: '', loadSeconds: 0 })
})
const secure = helmetHeaders()
const json = JSON.stringify
let requests = 0

const app = express()
app.disable('x-powered-by')
app.set('etag', false)
app.use((req, res, next) => {
  const startedAt = performance.now()
  res.locals.startedAt = startedAt
  res.locals.requestId = `req-${++requests}`
  res.setHeader('X-API-Version', API_VERSION)
  res.setHeader('X-Request-Id', res.locals.requestId as string)
  for (const [name, value] of secure) res.setHeader(name, value)
  res.setHeader('Access-Control-Allow-Origin', '*')
  res.once('close', () => {
    const status = String(res.statusCode)
    prometheus.requests.inc({ route: '/predict', method: req.method, status })
    prometheus.requestSeconds.observe({ route: '/predict' }, (performance.now() - startedAt) / 1000)
    prometheus.modelRequests.inc({ model: 'default', version: '', status })
  })
  next()
})
app.post('/predict', readJsonBody({ shape: { maxDepth: 8, maxValues: config.maxBatchSize + 64 }, requestTimeoutMs: config.requestTimeoutMs }), async (req, res) => {
  const body = validator.predict(req.body)
  const texts = body.form === 'single' ? [body.text] : body.texts
  const size = body.form === 'single' ? 1 : body.batchSize
  const chunks: Array<Promise<ModelWorkerResult>> = []
  for (let i = 0; i < texts.length; i += size) chunks.push(pool.run(texts.slice(i, i + size)))
  const results = await Promise.all(chunks)
  prometheus.textsPerRequest.observe(texts.length)
  for (const text of texts) prometheus.textLength.observe(text.length)
  for (const r of results) for (const label of r.labels) prometheus.predictions.inc({ label })
  if (body.form === 'single') {
    const [{ labels, numbers }] = results as [ModelWorkerResult]
    return sendJson(res, `{"sentiment":${json(labels[0])},"confidence":${json(pyRound(numbers[0]!, 4))},"model_used":"LogisticRegression","processing_time":${json(numbers[1])},"request_id":${json(res.locals.requestId)}}`)
  }
  let out = '{"predictions":['
  results.forEach(({ labels, numbers }, c) => labels.forEach((label, i) => {
    out += `${c + i > 0 ? ',' : ''}{"text":${json(texts[c * size + i])},"prediction":${json(label)},"confidence":${json(pyRound(numbers[i]!, 2))},"processing_time":${json(numbers[labels.length + i])}}`
  }))
  sendJson(res, out + `],"batch_info":{"total_texts":${texts.length},"batch_size":${size},"processing_time":${json((performance.now() - (res.locals.startedAt as number)) / 1000)}}}`)
})
app.get('/health', (_req, res) => { res.json({ status: 'healthy' }) })
app.listen(Number(process.env.PORT), '127.0.0.1')
