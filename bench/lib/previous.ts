/**
 * The previous run beside this one: every figure the bench prints can carry the same figure
 * from the last full run that measured it, so a regression shows at once.
 */
import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'

export type Run = Record<string, unknown> & { readonly date?: string, readonly quick?: boolean }

/** The latest full (not --quick) run in `dir` before `stamp` whose `section` holds something. */
export function previousRun (dir: string, stamp: string, section: string): Run | undefined {
  const files = readdirSync(dir).filter(f => /^\d{4}-\d\d-\d\dT[\d-]+Z\.json$/.test(f) && f < `${stamp}.json`).sort().reverse()
  for (const f of files) {
    try {
      const run = JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as Run
      const s = run[section]
      if (run.quick !== true && s !== undefined && s !== null && (!Array.isArray(s) || s.length > 0)) return run
    } catch {}
  }
  return undefined
}

const fmt = (n: number, digits: number): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })

/** `now`, and beside it the previous run's figure and the change: "68,913 (was 66,100, +4%)". */
export function beside (now: number | undefined, was: number | undefined, digits = 0): string {
  if (now === undefined || !Number.isFinite(now)) return ''
  if (was === undefined || !Number.isFinite(was) || was === 0) return fmt(now, digits)
  const change = (now / was - 1) * 100
  return `${fmt(now, digits)} (was ${fmt(was, digits)}, ${change >= 0 ? '+' : ''}${fmt(change, 0)}%)`
}

/** The row of a previous run's section that matches `keys` (by the same field values). */
export function matching<T extends object> (run: Run | undefined, section: string, row: T, keys: ReadonlyArray<keyof T>): T | undefined {
  const rows = run?.[section]
  if (!Array.isArray(rows)) return undefined
  return (rows as T[]).find(r => keys.every(k => r[k] === row[k]))
}
