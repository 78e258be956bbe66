/** The bench's tables (its picture is chart.ts). */
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
