/**
 * Request bodies checked by JSON Schemas compiled once with ajv (no coercion, all errors),
 * and ajv's errors mapped to FastAPI's 422 body: `{"detail": [{loc, msg, type}]}` with
 * `loc` starting at "body", array indices as numbers, and pydantic 2's types and messages.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { ServiceError } from '../errors.js'
import { DEFAULT_TOP_K, requestSchemas, type Limits } from './schemas.js'
import { pyLen } from '../python/py-len.js'

export type { Limits } from './schemas.js'

export interface ValidationIssue {
  readonly loc: ReadonlyArray<string | number>
  readonly msg: string
  readonly type: string
}

export class ValidationError extends ServiceError {
  readonly issues: readonly ValidationIssue[]
  constructor (issues: readonly ValidationIssue[]) {
    super('ERR_VALIDATION')
    this.issues = issues
  }
}

export type PredictBody = { readonly form: 'single', readonly text: string } | { readonly form: 'batch', readonly texts: readonly string[], readonly batchSize: number }

export interface ExplainBody {
  readonly form: 'single' | 'batch'
  readonly texts: readonly string[]
  readonly topK: number
}

export const DEFAULT_BATCH_SIZE = 10

/**
 * A schema as ajv compiles it: a text's three rules (minLength, maxLength in code points, no
 * lone surrogate) become the one `text` keyword, so a text is read once (see textRules).
 */
function compiled (schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(compiled)
  if (typeof schema !== 'object' || schema === null) return schema
  const s = schema as Record<string, unknown>
  if (s.type === 'string' && s.minLength === 1 && typeof s.maxLength === 'number') return { type: 'string', text: s.maxLength }
  return Object.fromEntries(Object.entries(s).map(([key, value]) => [key, compiled(value)]))
}

const TYPE_ERRORS: Readonly<Record<string, readonly [string, string]>> = Object.freeze({
  string: ['string_type', 'Input should be a valid string'],
  array: ['list_type', 'Input should be a valid list'],
  integer: ['int_type', 'Input should be a valid integer'],
  object: ['model_attributes_type', 'Input should be a valid dictionary or object to extract fields from']
})

function toIssue (e: ErrorObject): ValidationIssue {
  const loc: Array<string | number> = ['body', ...e.instancePath.split('/').slice(1).map(s => /^\d+$/.test(s) ? Number(s) : s.replace(/~1/g, '/').replace(/~0/g, '~'))]
  const p = e.params as Record<string, unknown>
  switch (e.keyword) {
    case 'required': return { loc: [...loc, p.missingProperty as string], msg: 'Field required', type: 'missing' }
    case 'additionalProperties': return { loc: [...loc, p.additionalProperty as string], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }
    case 'type': {
      const [type, msg] = TYPE_ERRORS[String(p.type)] ?? ['type_error', `Input should be of type ${String(p.type)}`]
      return { loc, msg, type }
    }
    case 'minLength': return { loc, msg: `String should have at least ${String(p.limit)} character${p.limit === 1 ? '' : 's'}`, type: 'string_too_short' }
    case 'maxLength': return { loc, msg: `String should have at most ${String(p.limit)} characters`, type: 'string_too_long' }
    case 'minItems': return { loc, msg: `List should have at least ${String(p.limit)} item after validation, not 0`, type: 'too_short' }
    case 'maxItems': return { loc, msg: `List should have at most ${String(p.limit)} items after validation, not ${(e.data as unknown[]).length}`, type: 'too_long' }
    case 'minimum': return { loc, msg: `Input should be greater than or equal to ${String(p.limit)}`, type: 'greater_than_equal' }
    case 'maximum': return { loc, msg: `Input should be less than or equal to ${String(p.limit)}`, type: 'less_than_equal' }
    case 'wellFormed': return { loc, msg: 'Input should be a valid string, unable to parse raw data as a unicode string', type: 'string_unicode' }
    default: return { loc, msg: e.message ?? 'Invalid input', type: 'value_error' }
  }
}

/** Each body form's check: the parsed body, or a ValidationError (422). */
export interface BodyValidator {
  predict: (body: unknown) => PredictBody
  batch: (body: unknown) => PredictBody
  explain: (body: unknown) => ExplainBody
}

/** Validators for both forms, and /explain's, compiled once per app from its limits. */
export function createBodyValidator (limits: Limits): BodyValidator {
  // validateSchema off: checking our own fixed schemas against the meta-schema compiled the
  // meta-schema first, 40% of the main thread's start-up time; the schemas are fixed, and
  // tests run every one of them.
  const ajv = new Ajv({ allErrors: true, coerceTypes: false, useDefaults: false, strict: true, verbose: true, validateSchema: false })
  ajv.addKeyword({ keyword: 'text', type: 'string', schemaType: 'number', errors: true, validate: textRules })
  const schemas = requestSchemas(limits)
  const compile = (schema: object): ValidateFunction => ajv.compile(compiled(schema) as object)
  const checkSingle = compile(schemas.single)
  const checkBatch = compile(schemas.batch)
  const checkExplainSingle = compile(schemas.explainSingle)
  const checkExplainBatch = compile(schemas.explainBatch)
  const run = (check: ValidateFunction, body: unknown): void => {
    if (!check(body)) throw new ValidationError((check.errors ?? []).map(toIssue))
  }
  // A body of either form with neither key: the batch form's issues, after one naming the single form.
  const runEither = (check: ValidateFunction, body: unknown): void => {
    try {
      run(check, body)
    } catch (err) {
      if (!(err instanceof ValidationError) || !isPlainObject(body) || Object.hasOwn(body, 'texts')) throw err
      throw new ValidationError([NEITHER_FORM, ...err.issues])
    }
  }
  const asBatch = (body: unknown): PredictBody => {
    run(checkBatch, body)
    const b = body as { texts: string[], batch_size?: number }
    return { form: 'batch', texts: b.texts, batchSize: b.batch_size ?? DEFAULT_BATCH_SIZE }
  }
  return {
    // docs/http-api.md, "Requests": `text` alone is the single form; anything else is judged as the batch form.
    predict: body => {
      if (isSingleForm(body)) {
        run(checkSingle, body)
        return { form: 'single', text: (body as { text: string }).text }
      }
      runEither(checkBatch, body)
      return asBatch(body)
    },
    batch: asBatch,
    explain: body => {
      const single = isSingleForm(body)
      if (single) run(checkExplainSingle, body)
      else runEither(checkExplainBatch, body)
      const b = body as { text?: string, texts?: string[], top_k?: number }
      return { form: single ? 'single' : 'batch', texts: single ? [b.text!] : b.texts!, topK: b.top_k ?? DEFAULT_TOP_K }
    }
  }
}

/** The issue for a body with neither `text` nor `texts`: the single form's key, and both forms. */
const NEITHER_FORM: ValidationIssue = Object.freeze({ loc: Object.freeze(['body', 'text']), msg: 'Field required: the single form is {"text": "..."}, the batch form {"texts": ["...", ...]}', type: 'missing' })

function isSingleForm (body: unknown): boolean {
  return isPlainObject(body) && Object.hasOwn(body, 'text') && !Object.hasOwn(body, 'texts')
}

/**
 * A text's rules, read once: not empty, at most `max` code points (Python's len(), docs/http-api.md,
 * "Requests": counted only when the UTF-16 length could exceed it), and no lone UTF-16 surrogate (from
 * a "\ud800" escape: Python's str would hold it, pydantic refuses it; the native
 * isWellFormed scan). Errors as ajv's minLength / maxLength would give them, in that order.
 */
function textRules (this: unknown, max: number, data: string): boolean {
  // The usual text passes all three at the cost of a native scan, with nothing allocated.
  if (data.length !== 0 && data.length <= max && isWellFormed(data)) return true
  const errors: Array<Partial<ErrorObject>> = []
  if (data.length === 0) errors.push({ keyword: 'minLength', params: { limit: 1 } })
  if (data.length > max && pyLen(data) > max) errors.push({ keyword: 'maxLength', params: { limit: max } })
  if (!isWellFormed(data)) errors.push({ keyword: 'wellFormed', params: {} })
  ;(textRules as { errors?: unknown }).errors = errors
  return errors.length === 0
}

/** No lone UTF-16 surrogate (String.prototype.isWellFormed, Node 20's V8; not yet in TypeScript's lib). */
function isWellFormed (text: string): boolean {
  return (text as unknown as { isWellFormed: () => boolean }).isWellFormed()
}

function isPlainObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
