/**
 * API key secrets: minted with 32 random bytes, base64url, behind a `tfs_` prefix that secret
 * scanners can match; stored only as their SHA-256 (a key file never holds a secret).
 */
import { createHash, randomBytes } from 'node:crypto'

export const SECRET_PREFIX = 'tfs_'

/** A fresh secret: `tfs_` and 43 base64url characters (256 random bits). */
export function newSecret (): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url')
}

/** The SHA-256 of a secret's UTF-8 bytes, as the key file's `sha256` holds it (64 hex digits). */
export function hashSecret (secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest()
}
