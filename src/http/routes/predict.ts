/**
 * POST /predict (single or batch form, docs/http-api.md, "Requests") and POST /batch_predict (batch
 * form only, the same section): cache look-ups, the rest to the pool, results in input order.
 * Responses are written as JSON text directly, with no object per prediction.
 */
import type { Request, RequestHandler, Response } from 'express'
import type { Classified, PoolCall } from '../../pool/classifier-pool.js'
import { withinTime } from '../../pool/request-time.js'
import type { ServedModel } from '../../repository/model-repository.js'
import { chargeTexts } from '../access.js'
import { callerAbort } from '../caller-abort.js'
import type { AppContext } from '../context.js'
import { pyRound } from '../rounding.js'
import { sendJson } from '../send.js'
import type { PredictBody } from '../validate.js'
import { poolObserver } from '../../tracing/observers.js'
import type { TraceSpan } from '../../tracing/tracing.js'

/** Classifies `texts`, from the cache where it can; identical texts are computed once. `trace`: the request's span, when traced. */
async function predictTexts (ctx: AppContext, model: ServedModel, texts: readonly string[], batchSize: number, call: PoolCall, trace?: TraceSpan): Promise<Classified> {
  const n = texts.length
  const cache = ctx.cache
  // One text and no cache: nothing to look up or share.
  if (n === 1 && !cache.enabled) return await ctx.pool.classify(texts, batchSize, model.key, false, trace === undefined ? undefined : poolObserver(trace, model), call)
  const keys = cache.enabled ? texts.map(t => cache.keyOf(t, model.key)) : texts
  // For each text not cached, the position of its first occurrence among the texts to compute.
  const slot = new Int32Array(n).fill(-1)
  const missing: string[] = []
  const firstMissing = new Map<string, number>()
  const hits: Array<[number, { classIndex: number, confidence: number }]> = []
  const lookedAt = trace === undefined || !cache.enabled ? 0 : performance.now()
  texts.forEach((text, i) => {
    const hit = cache.get(keys[i]!)
    if (hit !== undefined) {
      hits.push([i, hit])
      return
    }
    let m = firstMissing.get(keys[i]!)
    if (m === undefined) {
      m = missing.length
      firstMissing.set(keys[i]!, m)
      missing.push(text)
    }
    slot[i] = m
  })
  // Every text unique and computed (the cache off or cold): they are in order already.
  if (lookedAt > 0) trace!.record('cache lookup', lookedAt, performance.now(), { 'tfidf.texts': n, 'tfidf.cache.misses': missing.length })
  const computed = missing.length === 0 ? undefined : await ctx.pool.classify(missing, batchSize, model.key, false, trace === undefined ? undefined : poolObserver(trace, model), call)
  if (computed !== undefined) for (const [key, m] of firstMissing) cache.set(key, { classIndex: computed.classIndex[m]!, confidence: computed.confidence[m]! })
  if (computed !== undefined && missing.length === n) return computed
  // terms -1: from the cache, so the text's coverage is not known.
  const out: Classified = { classIndex: new Int32Array(n), confidence: new Float64Array(n), seconds: new Float64Array(n), terms: new Int32Array(n).fill(-1), known: new Int32Array(n) }
  for (const [i, hit] of hits) {
    out.classIndex[i] = hit.classIndex
    out.confidence[i] = hit.confidence
  }
  if (computed === undefined) return out
  for (let i = 0; i < n; i++) {
    const m = slot[i]!
    if (m < 0) continue
    out.classIndex[i] = computed.classIndex[m]!
    out.confidence[i] = computed.confidence[m]!
    out.seconds[i] = computed.seconds[m]!
    out.terms[i] = computed.terms[m]!
    out.known[i] = computed.known[m]!
  }
  return out
}

/** Counts a request's texts into the Prometheus series: labels, lengths, vocabulary coverage. */
function observe (ctx: AppContext, labels: readonly string[], texts: readonly string[], r: Classified): void {
  const p = ctx.prometheus
  if (p === undefined) return
  p.textsPerRequest.observe(texts.length)
  const perClass = new Int32Array(labels.length)
  for (let i = 0; i < texts.length; i++) {
    perClass[r.classIndex[i]!]!++
    p.textLength.observe(texts[i]!.length)
    const terms = r.terms[i]!
    if (terms < 0) continue
    if (terms > 0) p.vocabularyCoverage.observe(r.known[i]! / terms)
    if (r.known[i] === 0) p.textsWithoutKnownFeature.inc()
  }
  perClass.forEach((n, k) => { if (n > 0) p.predictions.inc({ label: labels[k] }, n) })
}

/** Resolves with `work`, or fails with 503 when the whole request would pass its time limit (aborting `abort`, the pool call's). */
export async function withinRequestTime<T> (res: Response, ctx: AppContext, work: Promise<T>, abort?: AbortController): Promise<T> {
  return await withinTime(work, res.locals.startedAt as number, ctx.config.requestTimeoutMs, abort)
}

const json = JSON.stringify

/** The batch response, written out: what `res.json` of the SPEC's object would send. */
function batchBody (labels: readonly string[], texts: readonly string[], r: Classified, batchSize: number, seconds: number): string {
  let body = '{"predictions":['
  for (let i = 0; i < texts.length; i++) {
    if (i > 0) body += ','
    body += `{"text":${json(texts[i])},"prediction":${json(labels[r.classIndex[i]!])},"confidence":${json(pyRound(r.confidence[i]!, 2))},"processing_time":${json(r.seconds[i])}}`
  }
  return body + `],"batch_info":{"total_texts":${texts.length},"batch_size":${batchSize},"processing_time":${json(seconds)}}}`
}

/** Which model a request is for: the default one for the spec's routes, the named one under /models/{name}. */
export type ModelOf = (req: Request) => ServedModel

export const defaultModel = (ctx: AppContext): ModelOf => () => ctx.repository.serving(ctx.repository.defaultName)
export const namedModel = (ctx: AppContext): ModelOf => req => ctx.repository.serving(String(req.params.name))

export function createPredictHandlers (ctx: AppContext, modelOf: ModelOf = defaultModel(ctx)): { predict: RequestHandler, batchPredict: RequestHandler } {
  const handle = (parse: (body: unknown) => PredictBody): RequestHandler => async (req, res) => {
    const started = res.locals.startedAt as number
    const model = modelOf(req)
    // The version that answers, held from now until its work settles (docs/many-models.md).
    const pin = ctx.pool.pin(model.key)
    res.locals.model = model.name
    res.locals.modelVersion = model.version
    let body: PredictBody
    let texts: readonly string[]
    let r: Classified
    try {
      body = parse(req.body)
      texts = body.form === 'single' ? [body.text] : body.texts
      await chargeTexts(ctx, res, texts.length)
      const abort = callerAbort(res)
      r = await withinRequestTime(res, ctx, predictTexts(ctx, model, texts, body.form === 'single' ? 1 : body.batchSize, { pin, signal: abort.signal }, res.locals.trace as TraceSpan | undefined), abort)
    } finally {
      pin.release()
    }
    const seconds = (performance.now() - started) / 1000
    ctx.metrics.record(texts.length, seconds)
    observe(ctx, model.labels, texts, r)
    res.locals.texts = texts.length
    sendJson(res, body.form === 'single'
      ? `{"sentiment":${json(model.labels[r.classIndex[0]!])},"confidence":${json(pyRound(r.confidence[0]!, 4))},"model_used":${json(model.status.classifier)},"processing_time":${json(r.seconds[0])},"request_id":${json(res.locals.requestId)}}`
      : batchBody(model.labels, texts, r, body.batchSize, seconds))
  }
  return { predict: handle(ctx.validator.predict), batchPredict: handle(ctx.validator.batch) }
}
