/**
 * The spans under a request, drawn from what the pool and access control report: the
 * admission wait and each worker task (pool), the key check and text charge with each round
 * trip to Redis (access). No SDK here: these only call TraceSpan, so the transports can import
 * them with tracing off, when they are never called.
 */
import type { AccessControl, ApiKey, Credentials, Decision, Scope } from '../access/access-control.js'
import type { StoreWatch } from '../access/rate-limits.js'
import type { PoolObserver } from '../pool/task-observer.js'
import type { SpanAttributes, TraceSpan } from './tracing.js'

/** The model a call is for, as its spans name it. */
export interface TracedModel {
  readonly name: string
  readonly version: string
}

const round = (ms: number): number => Math.round(ms * 1000) / 1000

/**
 * Spans under `span` for one pool call: `admission` (the wait for a slot) and one `worker
 * <task>` per task, from the moment it was handed over to its end, with the wait for a free
 * worker and the vectorizer's and classifier's times the worker measured.
 */
export function poolObserver (span: TraceSpan, model: TracedModel): PoolObserver {
  return {
    admitted: (askedAt, admittedAt) => { span.record('admission', askedAt, admittedAt, { 'tfidf.admission.wait_ms': round(admittedAt - askedAt) }) },
    taskEnded: report => {
      const started = report.startedAt ?? report.endedAt
      const known = report.gathered !== true
      // One object literal: a spread of the model's attributes followed by these keys cost V8
      // about 5 us a task (a new hidden class each time), the literal 0.3.
      span.record(`worker ${report.name}`, report.sentAt, report.endedAt, {
        'tfidf.model.name': model.name,
        'tfidf.model.version': model.version,
        'tfidf.texts': report.texts,
        'tfidf.worker.gathered': known ? undefined : true,
        'tfidf.worker.wait_ms': known ? round(started - report.sentAt) : undefined,
        'tfidf.worker.run_ms': known ? round(report.endedAt - started) : undefined,
        'tfidf.worker.vectorize_ms': report.phases === undefined ? undefined : round(report.phases.vectorizeMs),
        'tfidf.worker.score_ms': report.phases === undefined ? undefined : round(report.phases.scoreMs)
      }, report.failed ? { error: report.startedAt === null && known ? 'not_started' : 'task_failed' } : undefined)
    }
  }
}

/** A span under `span` per round trip to the rate-limit store (Redis). */
export function storeWatch (span: TraceSpan): StoreWatch {
  return call => {
    span.record(`redis rate_limit ${call.policy}`, call.startedAt, call.endedAt, { 'db.system.name': 'redis', 'db.operation.name': 'EVALSHA', 'tfidf.rate_limit.policy': call.policy }, call.failed ? { error: 'store_failed' } : undefined)
  }
}

const DENIALS: Readonly<Record<number, string>> = { 401: 'ERR_UNAUTHORIZED', 403: 'ERR_FORBIDDEN', 429: 'ERR_RATE_LIMITED', 503: 'ERR_RATE_LIMIT_STORE' }

/** Ends an access span with its decision: a refusal is recorded by its code, a client's refusal not as a failure of ours. */
function endAccess (span: TraceSpan, decision: Decision): void {
  if (decision.ok) span.end({ attributes: { 'tfidf.access.outcome': 'allowed' } })
  else span.end({ error: DENIALS[decision.status], failed: decision.status === 503, attributes: { 'tfidf.access.outcome': String(decision.status) } })
}

/** `call` (an access decision), under a span `name` of `parent` with its Redis round trips when the request is traced. */
async function underAccessSpan (parent: TraceSpan | undefined, name: string, attributes: SpanAttributes, call: (watch?: StoreWatch) => Promise<Decision>): Promise<Decision> {
  if (parent === undefined) return await call()
  const span = parent.start(name, attributes)
  const decision = await call(storeWatch(span))
  endAccess(span, decision)
  return decision
}

/** `access.admit`, under an `access check` span of `parent` when the request is traced. */
export async function tracedAdmit (access: AccessControl, parent: TraceSpan | undefined, credentials: Credentials, scope: Scope): Promise<Decision> {
  return await underAccessSpan(parent, 'access check', { 'tfidf.access.scope': scope }, async watch => await access.admit(credentials, scope, watch))
}

/** `access.chargeTexts`, under an `access charge` span of `parent` when the request is traced. */
export async function tracedCharge (access: AccessControl, parent: TraceSpan | undefined, key: ApiKey, n: number): Promise<Decision> {
  return await underAccessSpan(parent, 'access charge', { 'tfidf.texts': n }, async watch => await access.chargeTexts(key, n, watch))
}
