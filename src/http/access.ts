/**
 * Access control on the HTTP routes (src/access/): `requireKey(scope)` before a route reads
 * its body, `chargeTexts` once it knows how many texts it holds. Both are no-ops with keys
 * off. A refusal carries WWW-Authenticate (401), Retry-After (429, 503) and the IETF
 * RateLimit-Policy and RateLimit fields; it is given before the body is read, and the body
 * is then read and dropped (linger.ts) so the client sees the answer.
 */
import type { Request, RequestHandler, Response } from 'express'
import type { Decision, Scope } from '../access/access-control.js'
import { AccessDenied } from '../access/denial.js'
import { nearLimit, stateField } from '../access/rate-limits.js'
import type { AppContext } from './context.js'
import { drainAfterAnswer } from './linger.js'
import { tracedAdmit, tracedCharge } from '../tracing/observers.js'
import type { RequestTrace } from '../tracing/tracing.js'

function header (req: Request, name: string): string | undefined {
  const value = req.headers[name]
  return Array.isArray(value) ? value[0] : value
}

/**
 * The headers a decision's answer carries; a refusal thrown as its ServiceError. A refusal
 * carries the RateLimit fields always; an answer let through, once some policy of the key is
 * down to half its quota or less (far from its limits a client needs no pacing, and the two
 * headers cost 3-4% of a single text's throughput, measured). `more`: a charge of texts
 * follows and writes the fields for both.
 */
function apply (res: Response, decision: Decision, more = false): void {
  const states = decision.states ?? []
  const earlier = res.locals.rateLimitStates as Decision['states'] | undefined
  // A charge of texts reports its policies beside the request's own.
  const merged = earlier === undefined ? states : [...earlier.filter(s => !states.some(t => t.policy === s.policy)), ...states]
  res.locals.rateLimitStates = merged
  if (!decision.ok || (!more && nearLimit(merged))) {
    if (decision.policy !== undefined && decision.policy !== '') res.setHeader('RateLimit-Policy', decision.policy)
    if (merged.length > 0) res.setHeader('RateLimit', stateField(merged))
  }
  if (decision.ok) return
  const denied = new AccessDenied(decision)
  if (denied.fields['www-authenticate'] !== undefined) res.setHeader('WWW-Authenticate', denied.fields['www-authenticate'])
  if (denied.fields['retry-after'] !== undefined) res.setHeader('Retry-After', denied.fields['retry-after'])
  throw denied
}

/**
 * Middleware: the request's key must hold `scope` and be within its request rate.
 * `chargesTexts`: the route calls chargeTexts once it has read the body.
 */
export function requireKey (ctx: AppContext, scope: Scope, chargesTexts = false): RequestHandler {
  const access = ctx.access
  if (access === undefined) return (_req, _res, next) => { next() }
  return async (req, res, next) => {
    const decision = await tracedAdmit(access, res.locals.trace as RequestTrace | undefined, { authorization: header(req, 'authorization'), apiKey: header(req, 'x-api-key') }, scope)
    if (decision.key !== undefined) res.locals.keyId = decision.key.id
    if (!decision.ok) drainAfterAnswer(req)
    apply(res, decision, chargesTexts)
    res.locals.apiKey = decision.key
    next()
  }
}

/** Counts `n` texts against the request's key (admitted by requireKey); throws the refusal. */
export async function chargeTexts (ctx: AppContext, res: Response, n: number): Promise<void> {
  const key = res.locals.apiKey as Decision['key']
  if (ctx.access === undefined || key === undefined) return
  apply(res, await tracedCharge(ctx.access, res.locals.trace as RequestTrace | undefined, key, n))
}
