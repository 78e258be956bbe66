/**
 * REQUEST_TIMEOUT_MS for the work of a request, whatever carries it (REST or gRPC): the same
 * 503 (docs/http-api.md, "Limits and timeouts") when the whole request, counted from `startedAt`, would pass the limit.
 */
import { ServiceError } from '../errors.js'

/**
 * Resolves with `work`, or fails once `limitMs` have passed since `startedAt` (a performance.now()).
 * @throws ServiceError ERR_REQUEST_TIMEOUT (503).
 */
export async function withinTime<T> (work: Promise<T>, startedAt: number, limitMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new ServiceError('ERR_REQUEST_TIMEOUT', `request took longer than ${limitMs} ms`)), Math.max(0, limitMs - (performance.now() - startedAt)))
  })
  try {
    return await Promise.race([work, timeout])
  } finally {
    clearTimeout(timer)
  }
}
