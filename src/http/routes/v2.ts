/**
 * The Open Inference Protocol V2 over REST (../shared/reference/oip-v2.md): each route decodes
 * its request into a call of the typed operations (src/protocol/v2/operations.ts), which gRPC
 * calls too, and writes what they return. Inference takes JSON or binary tensors whatever the
 * Content-Type (tritonclient sends none). Errors are the protocol's `{"error": "..."}` under
 * exactly `application/json` (the one error handler's V2 form): unknown model 404, model not
 * ready 503, bad input 400.
 */
import express, { type Request, type RequestHandler, type Router } from 'express'
import { ServiceError } from '../../errors.js'
import { V2InputError, type InferRequest, type TextLimits } from '../../protocol/v2/infer.js'
import { inferResponse, parseInferRequest } from '../../protocol/v2/json-codec.js'
import { V2Operations, type ModelTarget } from '../../protocol/v2/operations.js'
import { V2_EXTENSIONS } from '../../protocol/v2/metadata.js'
import { readRawBody } from '../body.js'
import { chargeTexts, requireKey } from '../access.js'
import type { AppContext } from '../context.js'
import { createErrorHandler } from '../error-handler.js'
import { JsonShapeScanner, type JsonShapeLimits } from '../json-shape.js'
import { sendV2 } from '../send.js'

export { V2_EXTENSIONS }

const UTF8 = new TextDecoder('utf-8', { fatal: true })

/** The model a V2 path names, and its version when the path has one. */
function targetOf (req: Request): ModelTarget {
  const version = req.params.version
  return { name: String(req.params.name), version: version === undefined ? undefined : String(version) }
}

/**
 * JSON bytes as a V2 request reads them: the same cheap shape check as every body (no parse of
 * a body no request can be), then a strict UTF-8 decode and JSON.parse, each failure a 400.
 */
function parseV2Json (bytes: Uint8Array, shape: JsonShapeLimits): unknown {
  const wrong = new JsonShapeScanner(shape).feed(bytes)
  if (wrong !== undefined) throw new V2InputError(wrong)
  try {
    return JSON.parse(UTF8.decode(bytes))
  } catch (err) {
    throw new V2InputError(`the request is not valid JSON: ${(err as Error).message}`)
  }
}

/** An inference request's JSON (its header, when binary tensors follow) and the bytes after it, decoded. */
function readInferBody (req: Request, limits: TextLimits): InferRequest {
  const body = req.body as Buffer
  const header = req.headers['inference-header-content-length']
  const length = header === undefined ? body.length : Number(header)
  if (!Number.isInteger(length) || length < 0 || length > body.length) throw new V2InputError(`Inference-Header-Content-Length is ${JSON.stringify(header)}, not 0..${body.length}`)
  const json = parseV2Json(body.subarray(0, length), { maxDepth: 8, maxValues: 2 * limits.maxBatchSize + 256 })
  return parseInferRequest(json, body.subarray(length), limits)
}

/** The index's body: empty, or `{"ready": bool}`; nothing deeper is read. */
function readIndexBody (req: Request): boolean {
  const bytes = req.body as Buffer
  if (bytes.length === 0) return false
  const body = parseV2Json(bytes, { maxDepth: 2, maxValues: 16 })
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new V2InputError('the index request must be a JSON object, e.g. {"ready": true}')
  const ready = (body as { ready?: unknown }).ready
  if (ready !== undefined && typeof ready !== 'boolean') throw new V2InputError('ready must be a boolean')
  return ready === true
}

export function createV2Router (ctx: AppContext): Router {
  const router = express.Router({ caseSensitive: true, strict: true })
  const v2 = new V2Operations(ctx)
  const raw = readRawBody({ requestTimeoutMs: ctx.config.requestTimeoutMs })

  router.get('/', (_req, res) => { sendV2(res, 200, v2.serverMetadata()) })
  router.get('/health/live', (_req, res) => { sendV2(res, 200, v2.serverLive()) })
  router.get('/health/ready', (_req, res) => {
    const { ready } = v2.serverReady()
    sendV2(res, ready ? 200 : 503, ready ? { ready } : { error: 'the server is not ready: models are still loading, or the default model does not serve' })
  })

  const meta: RequestHandler = (req, res) => { sendV2(res, 200, v2.modelMetadata(targetOf(req))) }
  const ready: RequestHandler = (req, res) => {
    const readiness = v2.modelReady(targetOf(req))
    sendV2(res, readiness.ready ? 200 : 503, readiness)
  }
  const infer: RequestHandler = async (req, res) => {
    const result = await v2.modelInfer(targetOf(req), limits => readInferBody(req, limits), {
      startedAt: res.locals.startedAt as number,
      chargeTexts: async n => { await chargeTexts(ctx, res, n) },
      onModel: model => {
        res.locals.model = model.name
        res.locals.modelVersion = model.version
      },
      onTexts: n => { res.locals.texts = n }
    })
    const { body, headerLength } = inferResponse(result.request, result.outputs, result.model)
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

  router.post('/repository/index', predictKey, raw, (req, res) => { sendV2(res, 200, v2.repositoryIndex(readIndexBody(req))) })
  router.post('/repository/models/:name/load', adminKey, raw, async (req, res) => {
    await v2.repositoryLoad(String(req.params.name))
    sendV2(res, 200, {})
  })
  router.post('/repository/models/:name/unload', adminKey, raw, async (req, res) => {
    await v2.repositoryUnload(String(req.params.name))
    sendV2(res, 200, {})
  })
  router.use((req, _res) => { throw new ServiceError('ERR_NOT_FOUND', `no route for ${req.method} /v2${req.path}`) })
  router.use(createErrorHandler(ctx.logger, ctx.prometheus, 'v2'))
  return router
}
