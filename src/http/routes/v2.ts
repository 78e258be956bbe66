/**
 * The Open Inference Protocol V2 over REST (docs/many-models.md, "Open Inference Protocol V2 (REST)"): each route decodes
 * its request into a call of the typed operations (src/protocol/v2/operations.ts), which gRPC
 * calls too, and writes what they return. Inference takes JSON or binary tensors whatever the
 * Content-Type (tritonclient sends none). Errors are the protocol's `{"error": "..."}` under
 * exactly `application/json` (the one error handler's V2 form): unknown model 404, model not
 * ready 503, bad input 400.
 */
import type { Request, RequestHandler } from 'express'
import { V2InputError, type InferRequest, type TextLimits } from '../../protocol/v2/infer.js'
import { inferResponse, parseInferRequest } from '../../protocol/v2/json-codec.js'
import { V2Operations, type ModelTarget } from '../../protocol/v2/operations.js'

import { chargeTexts } from '../access.js'
import { callerAbort } from '../caller-abort.js'
import type { AppContext } from '../context.js'
import { JsonShapeScanner, type JsonShapeLimits } from '../json-shape.js'
import { sendV2 } from '../send.js'
import type { TraceSpan } from '../../tracing/tracing.js'


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

/** The V2 routes' handlers, by the route table's names (src/http/route-table.ts). */
export function createV2Handlers (ctx: AppContext): Record<'v2ServerMetadata' | 'v2Live' | 'v2Ready' | 'v2ModelMetadata' | 'v2ModelReady' | 'v2Infer' | 'v2Index' | 'v2Load' | 'v2Unload', RequestHandler> {
  const v2 = new V2Operations(ctx)
  return {
    v2ServerMetadata: (_req, res) => { sendV2(res, 200, v2.serverMetadata()) },
    v2Live: (_req, res) => { sendV2(res, 200, v2.serverLive()) },
    v2Ready: (_req, res) => {
      const { ready } = v2.serverReady()
      sendV2(res, ready ? 200 : 503, ready ? { ready } : { error: 'the server is not ready: models are still loading, or the default model does not serve' })
    },
    v2ModelMetadata: (req, res) => { sendV2(res, 200, v2.modelMetadata(targetOf(req))) },
    v2ModelReady: (req, res) => {
      const readiness = v2.modelReady(targetOf(req))
      sendV2(res, readiness.ready ? 200 : 503, readiness)
    },
    v2Infer: async (req, res) => {
      const result = await v2.modelInfer(targetOf(req), limits => readInferBody(req, limits), {
        startedAt: res.locals.startedAt as number,
        trace: res.locals.trace as TraceSpan | undefined,
        chargeTexts: async n => { await chargeTexts(ctx, res, n) },
        onModel: model => {
          res.locals.model = model.name
          res.locals.modelVersion = model.version
        },
        onTexts: n => { res.locals.texts = n },
        abort: callerAbort(res)
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
    },
    v2Index: (req, res) => { sendV2(res, 200, v2.repositoryIndex(readIndexBody(req))) },
    v2Load: async (req, res) => {
      await v2.repositoryLoad(String(req.params.name))
      sendV2(res, 200, {})
    },
    v2Unload: async (req, res) => {
      await v2.repositoryUnload(String(req.params.name))
      sendV2(res, 200, {})
    }
  }
}
