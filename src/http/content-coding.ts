/**
 * Request bodies' content codings (RFC 9110 §8.4): identity, gzip (x-gzip), deflate and br,
 * named case-insensitively and undone in the reverse of the order listed. Any other coding is
 * refused with 415 and `Accept-Encoding` naming those decoded (§15.5.16), never read as
 * identity. A decoded body may be at most four times the body limit (no bomb gets further).
 */
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib'
import { ServiceError } from '../errors.js'
import { BODY_LIMIT } from '../service/limits.js'

const DECODERS: Readonly<Record<string, (bytes: Buffer, options: { maxOutputLength: number }) => Buffer>> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync
}

export const ACCEPTED_CODINGS = 'gzip, deflate, br'

/** A body in a coding the service does not decode: 415, with the codings it does. */
export class ContentCodingError extends ServiceError {
  readonly fields = { 'accept-encoding': ACCEPTED_CODINGS }
  constructor (coding: string) {
    super('ERR_CONTENT_ENCODING', `Content-Encoding ${JSON.stringify(coding)} is not one this service decodes (${ACCEPTED_CODINGS}, or none)`)
  }
}

/**
 * The codings a Content-Encoding header lists, lowercased, identity left out.
 * @throws ContentCodingError for a coding not decoded here.
 */
export function contentCodings (header: string | undefined): string[] {
  if (header === undefined) return []
  const codings = header.split(',').map(c => c.trim().toLowerCase()).filter(c => c !== '' && c !== 'identity')
  for (const coding of codings) if (DECODERS[coding] === undefined) throw new ContentCodingError(coding)
  return codings
}

/**
 * The body with its codings undone, last applied first.
 * @throws ServiceError ERR_BAD_REQUEST when a coding's data is broken or inflates past the bound.
 */
export function decodeBody (bytes: Buffer, codings: readonly string[], limit: number = 4 * BODY_LIMIT): Buffer {
  let body = bytes
  for (const coding of [...codings].reverse()) {
    try {
      body = DECODERS[coding]!(body, { maxOutputLength: limit })
    } catch (err) {
      throw new ServiceError('ERR_BAD_REQUEST', `the ${coding} body cannot be inflated: ${(err as Error).message}`)
    }
  }
  return body
}
