// The part of autocannon's programmatic API the bench uses (autocannon 8 ships no types).
declare module 'autocannon' {
  interface Request { method?: string, path?: string, headers?: Record<string, string>, body?: string }
  interface RequestSpec extends Request {
    setupRequest?: (req: Request, context: Record<string, unknown>) => Request
    onResponse?: (status: number, body: string, context: Record<string, unknown>) => void
  }
  interface Options { url: string, connections?: number, duration?: number, pipelining?: number, timeout?: number, requests?: RequestSpec[] }
  interface Histogram { average: number, mean: number, p50: number, p90: number, p99: number, max: number, total: number }
  interface Result { requests: Histogram, latency: Histogram, non2xx: number, errors: number, timeouts: number, '2xx': number, duration: number }
  function autocannon (options: Options): Promise<Result>
  export default autocannon
}
