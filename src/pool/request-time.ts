/**
 * REQUEST_TIMEOUT_MS for the work of a request, whatever carries it (REST or gRPC): the same
 * 503 (docs/http-api.md, "Limits and timeouts") when the whole request, counted from `startedAt`, would pass the limit.
 */
import { ServiceError } from '../errors.js'

/**
 * Resolves with `work`, or fails once `limitMs` have passed since `startedAt` (a performance.now()),
 * aborting `abort` (the signal the request's pool call was given) with that same 503, so the
 * pool drops what of the work has not started.
 * @throws ServiceError ERR_REQUEST_TIMEOUT (503).
 */
export async function withinTime<T> (work: Promise<T>, startedAt: number, limitMs: number, abort?: AbortController): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const err = new ServiceError('ERR_REQUEST_TIMEOUT', `request took longer than ${limitMs} ms`)
      abort?.abort(err)
      reject(err)
    }, Math.max(0, limitMs - (performance.now() - startedAt)))
  })
  try {
    return await Promise.race([work, timeout])
  } finally {
    clearTimeout(timer)
  }
}
