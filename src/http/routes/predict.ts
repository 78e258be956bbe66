/**
 * POST /predict (single or batch form, DECISIONS.md 1) and POST /batch_predict (batch
 * form only, DECISIONS.md 2): cache look-ups, the rest to the pool, results in input order.
 */
import type { RequestHandler, Response } from 'express'
import { ServiceError } from '../../errors.js'
import type { TextResult } from '../../pool/classifier-pool.js'
import type { AppContext } from '../context.js'
import { pyRound } from '../rounding.js'
import { createBodyValidator, type PredictBody } from '../validate.js'

/** Classifies `texts`, from the cache where it can; identical texts are computed once. */
async function predictTexts (ctx: AppContext, texts: readonly string[], batchSize: number): Promise<TextResult[]> {
  const results: Array<TextResult | undefined> = texts.map(t => ctx.cache.get(t))
  const missing = [...new Set(texts.filter((_t, i) => results[i] === undefined))]
  if (missing.length > 0) {
    const computed = await ctx.pool.classify(missing, batchSize)
    const byText = new Map<string, TextResult>()
    missing.forEach((t, i) => {
      byText.set(t, computed[i]!)
      ctx.cache.set(t, { ...computed[i]!, seconds: 0 })
    })
    texts.forEach((t, i) => { results[i] ??= byText.get(t) })
  }
  return results as TextResult[]
}

/** Resolves with `work`, or fails with 503 when the whole request would pass its time limit. */
async function withinRequestTime<T> (res: Response, ctx: AppContext, work: Promise<T>): Promise<T> {
  const started = res.locals.startedAt as number
  const left = ctx.config.requestTimeoutMs - (performance.now() - started)
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new ServiceError('ERR_REQUEST_TIMEOUT', `request took longer than ${ctx.config.requestTimeoutMs} ms`)), Math.max(0, left))
  })
  try {
    return await Promise.race([work, timeout])
  } finally {
    clearTimeout(timer)
  }
}

export function createPredictHandlers (ctx: AppContext): { predict: RequestHandler, batchPredict: RequestHandler } {
  const validator = createBodyValidator(ctx.config)
  const handle = (parse: (body: unknown) => PredictBody): RequestHandler => async (req, res) => {
    const started = res.locals.startedAt as number
    const body = parse(req.body)
    if (body.form === 'single') {
      const [r] = await withinRequestTime(res, ctx, predictTexts(ctx, [body.text], 1))
      ctx.metrics.record(1, (performance.now() - started) / 1000)
      res.json({
        sentiment: ctx.labels[r!.classIndex],
        confidence: pyRound(r!.confidence, 4),
        model_used: ctx.pool.model.classifier,
        processing_time: r!.seconds,
        request_id: res.locals.requestId
      })
      return
    }
    const results = await withinRequestTime(res, ctx, predictTexts(ctx, body.texts, body.batchSize))
    const seconds = (performance.now() - started) / 1000
    ctx.metrics.record(body.texts.length, seconds)
    res.json({
      predictions: body.texts.map((text, i) => ({
        text,
        prediction: ctx.labels[results[i]!.classIndex],
        confidence: pyRound(results[i]!.confidence, 2),
        processing_time: results[i]!.seconds
      })),
      batch_info: { total_texts: body.texts.length, batch_size: body.batchSize, processing_time: seconds }
    })
  }
  return { predict: handle(validator.predict), batchPredict: handle(validator.batch) }
}
