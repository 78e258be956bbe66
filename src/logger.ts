/** One JSON object per line on stdout (stderr for warn and error), filtered by level. */
import type { LogLevel } from './config.js'

const RANK: Readonly<Record<LogLevel, number>> = Object.freeze({ debug: 10, info: 20, warn: 30, error: 40, silent: 100 })

export interface Logger {
  debug: (msg: string, fields?: Record<string, unknown>) => void
  info: (msg: string, fields?: Record<string, unknown>) => void
  warn: (msg: string, fields?: Record<string, unknown>) => void
  error: (msg: string, fields?: Record<string, unknown>) => void
}

export function createLogger (level: LogLevel): Logger {
  const make = (name: Exclude<LogLevel, 'silent'>) => (msg: string, fields: Record<string, unknown> = {}): void => {
    if (RANK[name] < RANK[level]) return
    const line = JSON.stringify({ level: name, time: new Date().toISOString(), msg, ...fields }) + '\n'
    if (RANK[name] >= RANK.warn) process.stderr.write(line)
    else process.stdout.write(line)
  }
  return { debug: make('debug'), info: make('info'), warn: make('warn'), error: make('error') }
}
