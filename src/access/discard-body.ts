/**
 * Letting go of an HTTP answer's body without trusting its sender: read a little (so a short
 * body ends cleanly and its connection can be reused), then cancel the rest, which closes the
 * connection under it. What is read is thrown away; memory and time stay bounded however long
 * the body is or however slowly it comes.
 */

/**
 * Reads and throws away at most about `maxBytes` of `body` (one chunk past it at worst), and
 * stops early once `signal` aborts; whatever is left is cancelled. Never throws.
 *
 * @returns how many bytes were read.
 */
export async function discardBody (body: ReadableStream<Uint8Array> | null, maxBytes: number, signal: AbortSignal): Promise<number> {
  if (body === null) return 0
  const reader = body.getReader()
  // Cancelling settles a pending read at once, so an aborted signal ends a read that waits on a silent sender.
  const stop = (): void => { reader.cancel().catch(() => {}) }
  signal.addEventListener('abort', stop, { once: true })
  let read = 0
  try {
    while (!signal.aborted) {
      const { done, value } = await reader.read()
      if (done) return read
      read += value.byteLength
      if (read > maxBytes) break
    }
    await reader.cancel()
  } catch {
    // An aborted or broken body: nothing more to read, which is all that was wanted.
  } finally {
    signal.removeEventListener('abort', stop)
  }
  return read
}
