/**
 * POST /explain: for each text, the label and the features that moved it most, with each
 * one's TF-IDF value, weight and contribution to every score, and the intercept (linear
 * models and naive Bayes; any other model gets 422 naming its estimator). Same body rules
 * as /predict, plus `top_k`; the single form answers one explanation, the batch form a list.
 */
import type { RequestHandler } from 'express'
import { explanationJson } from '../../service/explanation-json.js'
import { chargeTexts } from '../access.js'
import type { AppContext } from '../context.js'
import { callerAbort } from '../caller-abort.js'
import { sendJson } from '../send.js'
import type { ExplainBody } from '../validate.js'
import { poolObserver } from '../../tracing/observers.js'
import type { TraceSpan } from '../../tracing/tracing.js'
import { defaultModel, withinRequestTime, type ModelOf } from './predict.js'

export function createExplainHandler (ctx: AppContext, modelOf: ModelOf = defaultModel(ctx)): RequestHandler {
  return async (req, res) => {
    const model = modelOf(req)
    // The version that answers, held from now until its work settles (docs/many-models.md).
    const pin = ctx.pool.pin(model.key)
    res.locals.model = model.name
    res.locals.modelVersion = model.version
    let body: ExplainBody
    let explanations: Awaited<ReturnType<typeof ctx.pool.explain>>
    try {
      body = ctx.validator.explain(req.body)
      await chargeTexts(ctx, res, body.texts.length)
      const trace = res.locals.trace as TraceSpan | undefined
      const abort = callerAbort(res)
      explanations = await withinRequestTime(res, ctx, ctx.pool.explain(body.texts, body.topK, model.key, trace === undefined ? undefined : poolObserver(trace, model), { pin, signal: abort.signal }), abort)
    } finally {
      pin.release()
    }
    res.locals.texts = body.texts.length
    const out = body.texts.map((t, i) => explanationJson(t, explanations[i]!, model.labels))
    sendJson(res, JSON.stringify(body.form === 'single' ? out[0] : { explanations: out }))
  }
}
