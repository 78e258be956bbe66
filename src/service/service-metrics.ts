/** Counters behind GET /metrics (docs/http-api.md, "Routes": GET /metrics). */
export interface MetricsReport {
  readonly predictions_total: number
  readonly predictions_per_second: number
  readonly average_response_time: number
  readonly memory_usage_mb: number
  readonly uptime_seconds: number
  readonly cache_hit_rate: number
}

export class ServiceMetrics {
  readonly startedAt = performance.now()
  #predictions = 0
  #requests = 0
  #seconds = 0

  /** One successful prediction request of `texts` texts that took `seconds`. */
  record (texts: number, seconds: number): void {
    this.#predictions += texts
    this.#requests++
    this.#seconds += seconds
  }

  uptimeSeconds (): number {
    return (performance.now() - this.startedAt) / 1000
  }

  report (cacheHitRate: number): MetricsReport {
    const uptime = this.uptimeSeconds()
    return {
      predictions_total: this.#predictions,
      predictions_per_second: uptime > 0 ? this.#predictions / uptime : 0,
      average_response_time: this.#requests === 0 ? 0 : this.#seconds / this.#requests,
      memory_usage_mb: Math.round(process.memoryUsage.rss() / (1024 * 1024)),
      uptime_seconds: Math.floor(uptime),
      cache_hit_rate: cacheHitRate
    }
  }
}
