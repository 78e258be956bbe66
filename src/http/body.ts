/**
 * The JSON body reader (docs/http-api.md, "Errors" and "Limits and timeouts"): only application/json; at most 1 MiB,
 * refused as soon as Content-Length or the bytes themselves pass it; its shape checked on
 * the raw bytes as they arrive (nesting depth, value count), so a body no route could accept
 * is refused without a parse; a body not in by the request's deadline gets 408; UTF-8
 * checked on the raw bytes (never replaced with U+FFFD); then JSON.parse. A coded body (gzip,
 * deflate, br) is inflated within bounds and checked as the bytes it stands for; a coding not
 * decoded here is refused with 415 before the body is read (content-coding.ts).
 */
import type { NextFunction, Request, Response } from 'express'
import { ServiceError } from '../errors.js'
import { BODY_LIMIT } from '../service/limits.js'
import { contentCodings, decodeBody } from './content-coding.js'
import { JsonShapeScanner, type JsonShapeLimits } from './json-shape.js'
import { drainAfterAnswer } from './linger.js'
import { ValidationError } from './validate.js'


export interface BodyOptions {
  /** Largest body accepted, in bytes. Defaults to 1 MiB. */
  readonly limit?: number
  /** Nesting and value count past which no valid body of the route can go. */
  readonly shape: JsonShapeLimits
  /** The whole request's time limit (REQUEST_TIMEOUT_MS), counted from its first byte. */
  readonly requestTimeoutMs: number
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** application/json, in any case, with no charset or UTF-8's. */
function isJson (contentType: string | undefined): boolean {
  if (contentType === undefined) return false
  // What nearly every client sends, without splitting it.
  if (contentType === 'application/json') return true
  const [type, ...params] = contentType.split(';').map(s => s.trim().toLowerCase())
  if (type !== 'application/json') return false
  const charset = params.find(p => p.startsWith('charset='))
  return charset === undefined || charset === 'charset=utf-8' || charset === 'charset="utf-8"'
}

/** Express middleware: sets `req.body` to the parsed JSON value, or passes a ServiceError on. */
export function readJsonBody (options: BodyOptions) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!isJson(req.headers['content-type'])) return next(early(req, new ServiceError('ERR_CONTENT_TYPE')))
    const codings = codingsOf(req)
    if (codings instanceof ServiceError) return next(early(req, codings))
    const scanner = new JsonShapeScanner(options.shape)
    const scan = (chunk: Buffer): ValidationError | undefined => {
      const wrong = scanner.feed(chunk)
      return wrong === undefined ? undefined : new ValidationError([{ loc: ['body'], msg: wrong, type: 'json_too_complex' }])
    }
    // A coded body's shape can only be seen once it is inflated.
    if (codings.length > 0) {
      return collectBody(req, res, next, options, () => undefined, bytes => {
        const plain = decodeBody(bytes, codings)
        const wrong = scan(plain)
        if (wrong !== undefined) throw wrong
        req.body = parseJson(plain)
      })
    }
    collectBody(req, res, next, options, scan, bytes => { req.body = parseJson(bytes) })
  }
}

/** The request's content codings, or the refusal of one not decoded here. */
function codingsOf (req: Request): string[] | ServiceError {
  try {
    return contentCodings(req.headers['content-encoding'])
  } catch (err) {
    return err as ServiceError
  }
}

/**
 * Express middleware: sets `req.body` to the body's bytes (a Buffer, its content codings
 * undone), whatever its content type, within the same limits (the Open Inference Protocol's
 * clients send JSON with no Content-Type, or a JSON header followed by binary tensors).
 */
export function readRawBody (options: Omit<BodyOptions, 'shape'>) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const codings = codingsOf(req)
    if (codings instanceof ServiceError) return next(early(req, codings))
    collectBody(req, res, next, options, () => undefined, bytes => { req.body = codings.length === 0 ? bytes : decodeBody(bytes, codings) })
  }
}

/**
 * Reads the body within `limit` bytes and the request's deadline, passing each chunk to
 * `check` (which may refuse the body at once), then the whole to `use`; errors go to `next`.
 */
function collectBody (req: Request, res: Response, next: NextFunction, { limit = BODY_LIMIT, requestTimeoutMs }: Omit<BodyOptions, 'shape'>, check: (chunk: Buffer) => ServiceError | undefined, use: (bytes: Buffer) => void): void {
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > limit) return next(early(req, tooLarge(limit)))
  const chunks: Buffer[] = []
  let size = 0
  let done = false
  const finish = (err?: ServiceError): void => {
    if (done) return
    done = true
    clearTimeout(timer)
    req.off('data', onData)
    req.off('end', onEnd)
    req.off('error', onError)
    if (err !== undefined) return next(err)
    try {
      use(Buffer.concat(chunks, size))
      next()
    } catch (parseErr) {
      next(parseErr)
    }
  }
  const onData = (chunk: Buffer): void => {
    size += chunk.length
    if (size > limit) return finish(early(req, tooLarge(limit)))
    const wrong = check(chunk)
    if (wrong !== undefined) return finish(early(req, wrong))
    chunks.push(chunk)
  }
  const onEnd = (): void => finish()
  // The client went away mid-upload: nobody reads the answer, which is logged as aborted.
  const onError = (): void => finish(new ServiceError('ERR_BODY_NOT_JSON', 'request body was not received in full'))
  const left = requestTimeoutMs - (performance.now() - (res.locals.startedAt as number))
  // A client this slow gets its 408 and the connection closes (docs/http-api.md, "Limits and timeouts").
  const timer = setTimeout(() => {
    res.setHeader('Connection', 'close')
    finish(new ServiceError('ERR_BODY_TIMEOUT', `request body was not received in full within ${requestTimeoutMs} ms`))
  }, Math.max(0, left))
  req.on('data', onData)
  req.on('end', onEnd)
  req.on('error', onError)
}

function tooLarge (limit: number): ServiceError {
  return new ServiceError('ERR_BODY_TOO_LARGE', `request body exceeds ${limit} bytes`)
}

/** An answer given before the body is all in: the rest is read and dropped, within bounds (linger.ts), so the client reads the answer. */
function early (req: Request, err: ServiceError): ServiceError {
  drainAfterAnswer(req)
  return err
}

export function parseJson (bytes: Uint8Array): unknown {
  let text: string
  try {
    text = UTF8.decode(bytes)
  } catch {
    throw new ServiceError('ERR_BODY_NOT_UTF8')
  }
  try {
    return JSON.parse(text)
  } catch (err) {
    throw new ServiceError('ERR_BODY_NOT_JSON', `request body is not valid JSON: ${(err as Error).message}`)
  }
}
