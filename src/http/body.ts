/**
 * The JSON body reader (DECISIONS.md 6 and 8): only application/json; at most 1 MiB,
 * refused as soon as Content-Length or the bytes themselves pass it, without reading the
 * rest; UTF-8 checked on the raw bytes (never replaced with U+FFFD); then JSON.parse.
 */
import type { NextFunction, Request, Response } from 'express'
import { ServiceError } from '../errors.js'

export const BODY_LIMIT = 1024 * 1024

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

function isJson (contentType: string | undefined): boolean {
  if (contentType === undefined) return false
  const [type, ...params] = contentType.split(';').map(s => s.trim().toLowerCase())
  if (type !== 'application/json') return false
  const charset = params.find(p => p.startsWith('charset='))
  return charset === undefined || charset === 'charset=utf-8' || charset === 'charset="utf-8"'
}

/** Express middleware: sets `req.body` to the parsed JSON value, or passes a ServiceError on. */
export function readJsonBody (limit: number = BODY_LIMIT) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!isJson(req.headers['content-type'])) return next(new ServiceError('ERR_CONTENT_TYPE'))
    const declared = Number(req.headers['content-length'])
    if (Number.isFinite(declared) && declared > limit) return next(tooLarge(req, res, limit))
    const chunks: Buffer[] = []
    let size = 0
    let done = false
    const finish = (err?: ServiceError): void => {
      if (done) return
      done = true
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onError)
      if (err !== undefined) return next(err)
      try {
        req.body = parseJson(Buffer.concat(chunks, size))
        next()
      } catch (parseErr) {
        next(parseErr)
      }
    }
    const onData = (chunk: Buffer): void => {
      size += chunk.length
      if (size > limit) finish(tooLarge(req, res, limit))
      else chunks.push(chunk)
    }
    const onEnd = (): void => finish()
    const onError = (): void => finish(new ServiceError('ERR_BODY_NOT_JSON', 'request body was not received in full'))
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onError)
  }
}

/** The 413, after which the connection closes: the rest of the body is never read. */
function tooLarge (req: Request, res: Response, limit: number): ServiceError {
  req.pause()
  res.setHeader('Connection', 'close')
  res.once('finish', () => req.socket.destroy())
  return new ServiceError('ERR_BODY_TOO_LARGE', `request body exceeds ${limit} bytes`)
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
