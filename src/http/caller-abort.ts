/**
 * The abort of one HTTP request's work: fired when its client goes away before the answer is
 * written, and by REQUEST_TIMEOUT_MS (request-time.ts), so the pool frees its admission slot
 * and drops what has not started (docs/operations.md). The response's 'close', not the
 * request's: since Node 16 a request emits 'close' once its body has been read, which for
 * every POST here is before the work starts; the response's comes when the answer is sent
 * or the connection ends, and only the second leaves it unfinished.
 */
import type { Response } from 'express'

export function callerAbort (res: Response): AbortController {
  const abort = new AbortController()
  res.once('close', () => { if (!res.writableFinished) abort.abort() })
  return abort
}
