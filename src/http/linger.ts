/**
 * What happens to the rest of a body after an answer given while the client is still
 * sending it (a 413, a body refused by its shape or content type). Closing the socket with
 * unread bytes in its receive buffer sends a TCP reset, and a client still writing then
 * often sees ECONNRESET instead of the answer (Node's fetch lost the 413 of a 6 MB body 4-5
 * times in 20). So the connection stays open and the rest is read and dropped, as Apache and
 * nginx do in their "lingering close", up to a bound in bytes and time; past it the socket
 * is closed. (Ending our side first does not work: Node's parser stops reading once the
 * socket is ended, and the reset comes anyway.) A client that finishes sending keeps its
 * connection for the next request.
 */
import type { IncomingMessage } from 'node:http'

export const LINGER_DEFAULTS = Object.freeze({
  /** Most bytes read and dropped after the answer: a 6 MB upload refused at 1 MiB fits. */
  maxBytes: 16 * 1024 * 1024,
  /** Longest wait for the client to finish sending. */
  maxMs: 5000
})

/** Reads and drops what is left of `req`'s body, closing the connection past the bounds. */
export function drainAfterAnswer (req: IncomingMessage, { maxBytes, maxMs }: { maxBytes: number, maxMs: number } = LINGER_DEFAULTS): void {
  if (req.complete) return
  let dropped = 0
  const timer = setTimeout(() => req.socket.destroy(), maxMs)
  timer.unref()
  const stop = (): void => clearTimeout(timer)
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length
    if (dropped > maxBytes) req.socket.destroy()
  })
  req.once('end', stop)
  req.once('close', stop)
  req.resume()
}
