/**
 * The bench's picture, drawn by Vega-Lite and rendered to SVG by vega's own renderer (no
 * canvas, no browser): one panel per figure (texts/s, then p99 latency), one group of bars per
 * scenario with our bar beside the anchor's (the Python service, with one and two workers),
 * the value on every bar and, on ours, its ratio to the Python service and its share of the
 * no-op Express ceiling (a bar of its own would dwarf the others five to one).
 */
import * as vega from 'vega'
import { compile, type TopLevelSpec } from 'vega-lite'
import type { Row } from './report.js'

/** The servers the picture shows, in order, by the names readers know them by. */
const SHOWN: ReadonlyArray<readonly [string, string, string]> = [
  ['tfidf-serve', 'tfidf-serve', '#1f77b4'],
  ['baseline-1', 'Python service, 1 worker', '#d62728'],
  ['baseline-2', 'Python service, 2 workers', '#ff9896']
]

const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })

interface Bar { scenario: string, server: string, order: number, value: number, label: string }

/** One figure's bars: the value on each, and on ours its ratios to the anchors. */
function bars (rows: readonly Row[], value: (r: Row) => number, ours: (r: Row) => string[]): Bar[] {
  return rows.flatMap(r => {
    const order = SHOWN.findIndex(s => s[0] === r.server)
    if (order < 0) return []
    const v = value(r)
    const extra = r.server === 'tfidf-serve' ? ours(r) : []
    return [{ scenario: r.scenario, server: SHOWN[order]![1], order, value: v, label: [fmt(v, Number.isInteger(v) || v >= 10 ? 0 : 1), ...extra].join('  ·  ') }]
  })
}

const SUBTITLE = 'by scenario: the form (single, a batch of 10 or of 50 texts) and the concurrent clients (c1, c10, c50)'

function panel (title: string, axis: string, values: readonly Bar[], scenarios: readonly string[]): object {
  const max = Math.max(1, ...values.map(b => b.value))
  // Only the servers the run measured (a run without --baseline has no Python service).
  const shown = SHOWN.filter(s => values.some(b => b.server === s[1]))
  return {
    title: { text: title, subtitle: SUBTITLE, anchor: 'start', fontSize: 13, subtitleFontSize: 10 },
    data: { values },
    width: 620,
    height: { step: 12, for: 'offset' },
    encoding: {
      y: { field: 'scenario', type: 'nominal', sort: scenarios, title: null, axis: { labelFontSize: 11 } },
      yOffset: { field: 'server', type: 'nominal', sort: shown.map(s => s[1]) },
      x: { field: 'value', type: 'quantitative', title: axis, scale: { domain: [0, max * 1.7], nice: false }, axis: { format: ',d', grid: true, tickCount: 8, titleFontSize: 11 } }
    },
    layer: [
      { mark: { type: 'bar', height: { band: 0.9 } }, encoding: { color: { field: 'server', type: 'nominal', sort: shown.map(s => s[1]), scale: { domain: shown.map(s => s[1]), range: shown.map(s => s[2]) }, legend: { title: null, orient: 'top', direction: 'horizontal', labelLimit: 300 } } } },
      { mark: { type: 'text', align: 'left', baseline: 'middle', dx: 3, fontSize: 9 }, encoding: { text: { field: 'label' } } }
    ]
  }
}

/** The picture of the HTTP rows (one model's), as an SVG document. */
export async function chart (rows: readonly Row[], title: string): Promise<string> {
  const scenarios = [...new Set(rows.map(r => r.scenario))]
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: { text: title, anchor: 'start', fontSize: 14 },
    config: { font: 'sans-serif', view: { stroke: null } },
    background: 'white',
    padding: 12,
    spacing: 28,
    resolve: { scale: { color: 'shared' } },
    vconcat: [
      panel('Throughput: texts per second (longer is better)', 'texts per second', bars(rows, r => r.textsPerSecond, r => [
        ...(r.vsBaseline === undefined ? [] : [`${fmt(r.vsBaseline, 1)}x the Python service`]),
        ...(r.ofCeiling === undefined ? [] : [`${fmt(r.ofCeiling * 100)}% of the ceiling`])
      ]), scenarios),
      panel('Tail latency: p99, milliseconds (shorter is better)', 'p99 latency, ms', bars(rows, r => r.p99, r => r.p99VsBaseline === undefined || !Number.isFinite(r.p99VsBaseline) ? [] : [`${fmt(r.p99VsBaseline, 2)}x the Python service's`]), scenarios)
    ]
  } as unknown as TopLevelSpec
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' })
  try {
    return await view.toSVG()
  } finally {
    view.finalize()
  }
}
