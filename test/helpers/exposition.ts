/**
 * A strict reader of the Prometheus text exposition format (0.0.4) and of OpenMetrics text:
 * every line must be a HELP, a TYPE, a sample or (OpenMetrics) # EOF, or it throws. npm's
 * parsers do not read labelled histograms (parse-prometheus-text-format flattens a
 * histogram's series into one and drops its labels, _sum and _count; exposition folds the
 * other labels into `le`), so the tests read samples with this, and check it against
 * parse-prometheus-text-format on every family that parser reads right.
 */
export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

export interface Exposition {
  readonly types: ReadonlyMap<string, string>
  readonly samples: readonly Sample[]
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\["\\n])*)"(,?)/

/** A sample's value as Prometheus reads it (Go's ParseFloat: NaN and Inf in any case; prom-client writes "Nan"). */
function number (text: string, line: string): number {
  const lower = text.toLowerCase()
  if (lower === '+inf' || lower === 'inf') return Infinity
  if (lower === '-inf') return -Infinity
  if (lower === 'nan') return NaN
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`not a number in: ${line}`)
  return Number(text)
}

export function readExposition (text: string, openMetrics = false): Exposition {
  const types = new Map<string, string>()
  const samples: Sample[] = []
  const lines = text.split('\n')
  if (lines.pop() !== '') throw new Error('the exposition does not end with a newline')
  if (openMetrics && lines.pop() !== '# EOF') throw new Error('OpenMetrics text does not end with # EOF')
  for (const line of lines) {
    if (line === '' && !openMetrics) continue
    const meta = /^# (HELP|TYPE|UNIT) ([a-zA-Z_:][a-zA-Z0-9_:]*)(?: (.*))?$/.exec(line)
    if (meta !== null) {
      if (meta[1] === 'TYPE') {
        if (!/^(counter|gauge|histogram|summary|untyped|unknown|info|stateset|gaugehistogram)$/.test(meta[3] ?? '')) throw new Error(`bad TYPE: ${line}`)
        if (types.has(meta[2]!)) throw new Error(`second TYPE for ${meta[2]!}`)
        types.set(meta[2]!, meta[3]!)
      }
      continue
    }
    const name = NAME.exec(line)?.[0]
    if (name === undefined) throw new Error(`not a sample: ${line}`)
    let rest = line.slice(name.length)
    const labels: Record<string, string> = {}
    if (rest.startsWith('{')) {
      rest = rest.slice(1)
      while (!rest.startsWith('}')) {
        const label = LABEL.exec(rest)
        if (label === null) throw new Error(`bad labels: ${line}`)
        labels[label[1]!] = label[2]!.replace(/\\(["\\n])/g, (_, c: string) => c === 'n' ? '\n' : c)
        rest = rest.slice(label[0].length)
        if (label[3] === '' && !rest.startsWith('}')) throw new Error(`bad labels: ${line}`)
      }
      rest = rest.slice(1)
    }
    const parts = rest.trim().split(/\s+/)
    if (!rest.startsWith(' ') || parts.length < 1 || parts.length > 2) throw new Error(`bad value: ${line}`)
    samples.push({ name, labels, value: number(parts[0]!, line) })
  }
  return { types, samples }
}

/** The sum of `name`'s samples whose labels include `labels`; throws when there is none. */
export function total (e: Exposition, name: string, labels: Record<string, string> = {}): number {
  const matching = e.samples.filter(s => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
  if (matching.length === 0) throw new Error(`no sample ${name} ${JSON.stringify(labels)}`)
  return matching.reduce((sum, s) => sum + s.value, 0)
}
