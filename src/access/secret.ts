/**
 * API key secrets: minted with 32 random bytes, base64url, behind a `tfs_` prefix that secret
 * scanners can match; stored only as their SHA-256 (a key file never holds a secret).
 */
import * as crypto from 'node:crypto'

export const SECRET_PREFIX = 'tfs_'

/** A fresh secret: `tfs_` and 43 base64url characters (256 random bits). */
export function newSecret (): string {
  return SECRET_PREFIX + crypto.randomBytes(32).toString('base64url')
}

/** crypto.hash (Node 20.12+: one call, no Hash object; a third faster on a secret), else createHash. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'buffer') => Buffer }).hash

/** The SHA-256 of a secret's UTF-8 bytes, as the key file's `sha256` holds it (64 hex digits). */
export function hashSecret (secret: string): Buffer {
  return oneShot !== undefined ? oneShot('sha256', secret, 'buffer') : crypto.createHash('sha256').update(secret, 'utf8').digest()
}
