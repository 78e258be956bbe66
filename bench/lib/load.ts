/**
 * One load scenario with autocannon's programmatic API: POST bodies of `size` texts (the
 * single form when size is 0), unique per request unless `repeat`, over `connections`
 * connections for `duration` seconds, with a sample of the answers checked.
 */
import autocannon from 'autocannon'

export interface Scenario {
  readonly name: string
  /** 0 for the single form, else the number of texts per batch. */
  readonly size: number
  readonly connections: number
  /** Send the same texts every time (to show the result cache). */
  readonly repeat?: boolean
  /** Headers every request carries besides Content-Type (an API key, say). */
  readonly headers?: Readonly<Record<string, string>>
}

export interface LoadFigures {
  readonly requestsPerSecond: number
  readonly textsPerSecond: number
  readonly p50: number
  readonly p90: number
  readonly p99: number
  readonly max: number
  readonly non2xx: number
  readonly errors: number
  readonly checked: number
  readonly wrong: number
}

/** Labels the server should give each text, lowercased; undefined skips the check (a no-op server). */
export type Oracle = ((text: string) => string) | undefined

export async function runLoad (url: string, scenario: Scenario, duration: number, texts: readonly string[], oracle: Oracle): Promise<LoadFigures> {
  let counter = 0
  let responses = 0
  let checked = 0
  let wrong = 0
  const pick = (): string[] => {
    const n = Math.max(1, scenario.size)
    const out: string[] = []
    for (let i = 0; i < n; i++) {
      const k = scenario.repeat === true ? i : counter++
      // A serial number keeps every text unique so the result cache cannot flatter the figures.
      out.push(scenario.repeat === true ? texts[k % texts.length]! : `${texts[k % texts.length]!} ${k}`)
    }
    return out
  }
  const result = await autocannon({
    url,
    connections: scenario.connections,
    duration,
    pipelining: 1,
    timeout: 30,
    requests: [{
      method: 'POST',
      path: '/predict',
      headers: { 'content-type': 'application/json', ...scenario.headers },
      setupRequest: (req, context) => {
        const batch = pick()
        context.texts = batch
        return { ...req, body: JSON.stringify(scenario.size === 0 ? { text: batch[0] } : { texts: batch, batch_size: Math.min(10, scenario.size) }) }
      },
      onResponse: (status, body, context) => {
        if (oracle === undefined || status !== 200 || responses++ % 25 !== 0) return
        const batch = context.texts as string[]
        const parsed = JSON.parse(body) as { sentiment?: string, predictions?: Array<{ prediction: string }> }
        const got = parsed.sentiment !== undefined ? [parsed.sentiment] : (parsed.predictions ?? []).map(p => p.prediction)
        checked += batch.length
        batch.forEach((t, i) => { if (got[i] !== oracle(t)) wrong++ })
      }
    }]
  })
  return {
    requestsPerSecond: result.requests.average,
    textsPerSecond: result.requests.average * Math.max(1, scenario.size),
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    max: result.latency.max,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    checked,
    wrong
  }
}
