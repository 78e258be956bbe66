/** The bench's outputs: a plain-text table and an SVG chart of texts/s and p99 per scenario. */
import type { LoadFigures } from './load.js'
import { beside } from './previous.js'

export interface Row extends LoadFigures {
  readonly server: string
  readonly model: string
  readonly scenario: string
  /** Set on tfidf-serve rows: its figures as a fraction of the no-op Express ceiling and as a multiple of the baseline. */
  ofCeiling?: number
  vsBaseline?: number
  p99VsBaseline?: number
}

const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })

/** The HTTP rows; `previous` finds each row's figures in the previous run, shown beside. */
export function table (rows: readonly Row[], previous: (r: Row) => Row | undefined = () => undefined): string {
  const head = ['server', 'model', 'scenario', 'req/s', 'texts/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'non-2xx', 'wrong', 'of ceiling', 'vs baseline', 'p99 vs baseline']
  const body = rows.map(r => {
    const was = previous(r)
    return [r.server, r.model, r.scenario, fmt(r.requestsPerSecond), beside(r.textsPerSecond, was?.textsPerSecond), fmt(r.p50), fmt(r.p90), beside(r.p99, was?.p99), fmt(r.max), String(r.non2xx), String(r.wrong),
      r.ofCeiling === undefined ? '' : `${fmt(r.ofCeiling * 100)}%${was?.ofCeiling === undefined ? '' : ` (was ${fmt(was.ofCeiling * 100)}%)`}`, r.vsBaseline === undefined ? '' : `${fmt(r.vsBaseline, 1)}x`, r.p99VsBaseline === undefined || !Number.isFinite(r.p99VsBaseline) ? '' : `${fmt(r.p99VsBaseline, 2)}x`]
  })
  return markdown(head, body)
}

export function markdown (head: readonly string[], body: ReadonlyArray<readonly string[]>): string {
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`]
  for (const r of body) lines.push(`| ${r.join(' | ')} |`)
  return lines.join('\n')
}

const COLORS: Readonly<Record<string, string>> = { 'tfidf-serve': '#1f77b4', 'baseline-1': '#d62728', 'baseline-2': '#ff9896', 'noop-express': '#7f7f7f', 'noop-http': '#c7c7c7' }

/** Grouped bars per scenario (default model): texts/s on top, p99 latency below. */
export function chart (rows: readonly Row[], title: string): string {
  const scenarios = [...new Set(rows.map(r => `${r.model} ${r.scenario}`))]
  const servers = [...new Set(rows.map(r => r.server))]
  const width = Math.max(640, 60 + scenarios.length * (servers.length * 12 + 24))
  const panel = 220
  const top = 40
  const out: string[] = [`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${top + panel * 2 + 160}" font-family="sans-serif" font-size="11">`,
    `<text x="10" y="20" font-size="14">${escape(title)}</text>`]
  const draw = (y0: number, label: string, value: (r: Row) => number): void => {
    const max = Math.max(1, ...rows.map(value))
    out.push(`<text x="10" y="${y0 - 6}">${escape(label)} (max ${fmt(max)})</text>`, `<line x1="50" y1="${y0 + panel}" x2="${width - 10}" y2="${y0 + panel}" stroke="#000"/>`)
    scenarios.forEach((s, i) => {
      const x0 = 60 + i * (servers.length * 12 + 24)
      servers.forEach((server, k) => {
        const row = rows.find(r => r.server === server && `${r.model} ${r.scenario}` === s)
        if (row === undefined) return
        const h = Math.max(1, (value(row) / max) * (panel - 10))
        out.push(`<rect x="${x0 + k * 12}" y="${(y0 + panel - h).toFixed(1)}" width="10" height="${h.toFixed(1)}" fill="${COLORS[server] ?? '#2ca02c'}"><title>${escape(`${server} ${s}: ${fmt(value(row))}`)}</title></rect>`)
      })
    })
  }
  draw(top + 10, 'texts/s', r => r.textsPerSecond)
  draw(top + panel + 40, 'p99 latency, ms', r => r.p99)
  const yLabels = top + panel * 2 + 55
  scenarios.forEach((s, i) => {
    const x = 60 + i * (servers.length * 12 + 24)
    out.push(`<text transform="translate(${x},${yLabels}) rotate(40)">${escape(s)}</text>`)
  })
  servers.forEach((server, k) => {
    out.push(`<rect x="${10 + k * 130}" y="${top + panel * 2 + 140}" width="10" height="10" fill="${COLORS[server] ?? '#2ca02c'}"/><text x="${24 + k * 130}" y="${top + panel * 2 + 149}">${escape(server)}</text>`)
  })
  out.push('</svg>')
  return out.join('\n')
}

function escape (s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}
