/**
 * Model files that went through a text round trip: a binary pickle opened as UTF-8 and saved
 * again (git without `binary` for it, an editor, a form that posts the file as text) has each
 * byte that is not valid UTF-8 replaced by U+FFFD, the bytes EF BF BD. The bytes it lost
 * cannot be recovered, so the reader says so and what to do instead of naming the first
 * opcode it does not know (0xef, where PROTO's 0x80 was).
 */
import { ServiceError } from '../errors.js'

const REPLACEMENT = [0xef, 0xbf, 0xbd] as const

/** Whether U+FFFD starts at `at`. */
function replacementAt (bytes: Uint8Array, at: number): boolean {
  return REPLACEMENT.every((b, i) => bytes[at + i] === b)
}

/**
 * The error for a file re-encoded as UTF-8 text, or undefined. A replacement character in
 * the first bytes, where every format's magic or PROTO byte is not text, and a file that is
 * valid UTF-8 throughout: a real pickle of protocol 2+ or a compressed file never is.
 */
export function textDamage (bytes: Uint8Array): ServiceError | undefined {
  if (![0, 1, 2].some(at => replacementAt(bytes, at))) return undefined
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return undefined
  }
  return new ServiceError('ERR_PICKLE_INVALID',
    'the file is not a pickle any more: it was saved as UTF-8 text, which replaced every byte that is not text by EF BF BD ' +
    '(what git does to a binary file not marked binary in .gitattributes, e.g. by `*.pkl binary`, or an editor or a text upload), and the lost bytes cannot be recovered; ' +
    'fetch the file again as binary (`git lfs pull` if the repository uses Git LFS, or the raw download) and load that copy')
}
