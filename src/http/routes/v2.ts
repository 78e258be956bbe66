/**
 * The Open Inference Protocol V2 over REST (../shared/reference/oip-v2.md): server and model
 * health and metadata, inference on any served model (JSON or binary tensors, whatever the
 * Content-Type: tritonclient sends none), and the repository extension (index, load,
 * unload). Errors are the protocol's `{"error": "..."}` under exactly `application/json`:
 * unknown model 404, model not ready 503, bad input 400.
 */
import { randomUUID } from 'node:crypto'
import { gunzipSync, inflateSync } from 'node:zlib'
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response, type Router } from 'express'
import { ServiceError } from '../../errors.js'
import { encodeOutputs, inferResponse, parseInferRequest, V2InputError } from '../../protocol/v2/infer.js'
import { modelTensors, V2_EXTENSIONS, V2_PLATFORM } from '../../protocol/v2/metadata.js'
import type { ServedModel } from '../../repository/model-repository.js'
import { BODY_LIMIT, readRawBody } from '../body.js'
import { chargeTexts, requireKey } from '../access.js'
import { API_VERSION, type AppContext } from '../context.js'
import { JsonShapeScanner } from '../json-shape.js'
import { withinRequestTime } from './predict.js'

export { V2_EXTENSIONS }

/** Sends a V2 JSON body with exactly `application/json` (kserve's client reads errors only then). */
function sendV2 (res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.status(status)
  res.setHeader('Content-Type', 'application/json')
  res.setHeader('Content-Length', Buffer.byteLength(text))
  res.end(text)
}

/** The served model a V2 path names, its version checked. */
function modelOf (ctx: AppContext, req: Request): ServedModel {
  const version = req.params.version
  return ctx.repository.serving(String(req.params.name), version === undefined ? undefined : String(version))
}

function metadata (model: ServedModel, versions: readonly string[]): Record<string, unknown> {
  const s = model.status
  return {
    name: model.name,
    versions,
    platform: V2_PLATFORM,
    ...modelTensors(s),
    classes: model.labels,
    parameters: { classifier: s.classifier, vectorizer: s.vectorizer, confidence: s.confidence }
  }
}

/** The JSON of a request (its header when binary tensors follow) and the bytes after it. */
function splitBody (req: Request, maxBatchSize: number): { json: unknown, binary: Uint8Array } {
  let body = req.body as Buffer
  const encoding = req.headers['content-encoding']
  if (encoding === 'gzip' || encoding === 'deflate') {
    try {
      body = (encoding === 'gzip' ? gunzipSync : inflateSync)(body, { maxOutputLength: 4 * BODY_LIMIT })
    } catch (err) {
      throw new V2InputError(`the ${encoding} body cannot be inflated: ${(err as Error).message}`)
    }
  }
  const header = req.headers['inference-header-content-length']
  const length = header === undefined ? body.length : Number(header)
  if (!Number.isInteger(length) || length < 0 || length > body.length) throw new V2InputError(`Inference-Header-Content-Length is ${JSON.stringify(header)}, not 0..${body.length}`)
  const jsonBytes = body.subarray(0, length)
  // The same cheap shape check as the spec's routes: no parse of a body no request can be.
  const wrong = new JsonShapeScanner({ maxDepth: 8, maxValues: 2 * maxBatchSize + 256 }).feed(jsonBytes)
  if (wrong !== undefined) throw new V2InputError(wrong)
  let json: unknown
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(jsonBytes))
  } catch (err) {
    throw new V2InputError(`the request is not valid JSON: ${(err as Error).message}`)
  }
  return { json, binary: body.subarray(length) }
}

export function createV2Router (ctx: AppContext): Router {
  const router = express.Router({ caseSensitive: true, strict: true })
  const raw = readRawBody({ requestTimeoutMs: ctx.config.requestTimeoutMs })
  const limits = { maxBatchSize: ctx.config.maxBatchSize, maxTextLength: ctx.config.maxTextLength }

  router.get('/', (_req, res) => { sendV2(res, 200, { name: 'tfidf-serve', version: API_VERSION, extensions: V2_EXTENSIONS }) })
  router.get('/health/live', (_req, res) => { sendV2(res, 200, { live: true }) })
  router.get('/health/ready', (_req, res) => {
    const ready = ctx.pool.ready && ctx.repository.default !== undefined
    sendV2(res, ready ? 200 : 503, ready ? { ready: true } : { error: 'the default model is not ready' })
  })

  const meta: RequestHandler = (req, res) => {
    const model = modelOf(ctx, req)
    sendV2(res, 200, metadata(model, ctx.repository.entry(model.name)?.versions ?? [model.version]))
  }
  const ready: RequestHandler = (req, res) => {
    const name = String(req.params.name)
    if (ctx.repository.entry(name) === undefined) throw new ServiceError('ERR_NOT_FOUND', `no model named ${JSON.stringify(name)}`)
    const served = ctx.repository.get(name)
    const isReady = served !== undefined && (req.params.version === undefined || req.params.version === served.version)
    sendV2(res, isReady ? 200 : 503, { name, ready: isReady })
  }
  const infer: RequestHandler = async (req, res) => {
    const model = modelOf(ctx, req)
    res.locals.model = model.name
    res.locals.modelVersion = model.version
    const { json, binary } = splitBody(req, limits.maxBatchSize)
    const request = parseInferRequest(json, binary, limits)
    res.locals.texts = request.texts.length
    await chargeTexts(ctx, res, request.texts.length)
    const scores = await withinRequestTime(res, ctx, ctx.pool.score(request.texts, 10, model.key))
    const view = { name: model.name, version: model.version, labels: model.labels }
    const { body, headerLength } = inferResponse(request, encodeOutputs(request, scores, view), view)
    ctx.metrics.record(request.texts.length, (performance.now() - (res.locals.startedAt as number)) / 1000)
    res.status(200)
    if (headerLength !== undefined) {
      res.setHeader('Content-Type', 'application/octet-stream')
      res.setHeader('Inference-Header-Content-Length', headerLength)
    } else {
      res.setHeader('Content-Type', 'application/json')
    }
    res.setHeader('Content-Length', body.length)
    res.end(body)
  }
  // With keys on: metadata and inference need `predict`, loading and unloading `admin`; health and readiness stay open.
  const predictKey = requireKey(ctx, 'predict')
  const adminKey = requireKey(ctx, 'admin')
  for (const base of ['/models/:name', '/models/:name/versions/:version']) {
    router.get(base, predictKey, meta)
    router.get(`${base}/ready`, ready)
    router.post(`${base}/infer`, requireKey(ctx, 'predict', true), raw, infer)
  }

  router.post('/repository/index', predictKey, raw, (req, res) => {
    const body = (req.body as Buffer).length === 0 ? {} : JSON.parse((req.body as Buffer).toString('utf8')) as { ready?: unknown }
    if (body.ready !== undefined && typeof body.ready !== 'boolean') throw new V2InputError('ready must be a boolean')
    const entries = ctx.repository.entries().filter(e => body.ready !== true || e.served !== null)
    sendV2(res, 200, entries.map(e => ({ name: e.name, version: e.served?.version ?? e.versions[e.versions.length - 1] ?? '', state: e.state, reason: e.reason })))
  })
  router.post('/repository/models/:name/load', adminKey, raw, async (req, res) => {
    const outcome = await ctx.repository.loadOutcome(String(req.params.name))
    if (!outcome.loaded) throw new ServiceError('ERR_MODEL_NOT_READY', `model ${outcome.name} failed to load: ${outcome.reason}`)
    sendV2(res, 200, {})
  })
  router.post('/repository/models/:name/unload', adminKey, raw, async (req, res) => {
    await ctx.repository.unload(String(req.params.name))
    sendV2(res, 200, {})
  })
  router.use((req, _res) => { throw new ServiceError('ERR_NOT_FOUND', `no route for ${req.method} /v2${req.path}`) })
  router.use(v2Errors(ctx))
  return router
}

/** Every error of the V2 routes as `{"error": "..."}`: 400 bad input, 404 unknown, 503 not ready or busy, 500 unexpected (logged with an id). */
function v2Errors (ctx: AppContext): ErrorRequestHandler {
  return (err: unknown, _req, res, _next) => {
    if (res.headersSent) { res.socket?.destroy(); return }
    if (err instanceof V2InputError) return sendV2(res, 400, { error: err.message })
    if (err instanceof ServiceError && err.code !== 'ERR_INTERNAL') {
      if (err.statusCode === 503 && !res.hasHeader('Retry-After')) res.setHeader('Retry-After', '1')
      // A body refused by the body reader (413, 408, 400) keeps its status; validation errors are 400 here.
      return sendV2(res, err.statusCode === 422 ? 400 : err.statusCode, { error: err.message })
    }
    const errorId = randomUUID()
    res.locals.errorId = errorId
    ctx.logger.error('internal server error', { error_id: errorId, request_id: res.locals.requestId, stack: (err as Error | null)?.stack ?? String(err) })
    sendV2(res, 500, { error: `Internal server error (error_id ${errorId})` })
  }
}
