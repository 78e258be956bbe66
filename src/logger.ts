/**
 * Logs as pino writes them: one JSON object per line on stdout, the level as its name and
 * the time as ISO 8601. `Logger` is the small face the service logs through (a message,
 * then fields); `pino` is the instance behind it, which the request log (pino-http) uses.
 */
import { pino, type Logger as Pino } from 'pino'
import type { LogLevel } from './config.js'

export interface Logger {
  debug: (msg: string, fields?: Record<string, unknown>) => void
  info: (msg: string, fields?: Record<string, unknown>) => void
  warn: (msg: string, fields?: Record<string, unknown>) => void
  error: (msg: string, fields?: Record<string, unknown>) => void
  /** The pino instance behind these, when there is one. */
  readonly pino?: Pino
}

/** A pino logger at `level`, writing to `destination` (stdout, written asynchronously, flushed at exit). */
export function createPino (level: LogLevel, destination: pino.DestinationStream = pino.destination({ dest: 1, sync: false })): Pino {
  return pino({
    level,
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: label => ({ level: label }) }
  }, destination)
}

/** The service's face over a pino logger. */
export function loggerOf (p: Pino): Logger {
  return {
    debug: (msg, fields = {}) => { p.debug(fields, msg) },
    info: (msg, fields = {}) => { p.info(fields, msg) },
    warn: (msg, fields = {}) => { p.warn(fields, msg) },
    error: (msg, fields = {}) => { p.error(fields, msg) },
    pino: p
  }
}

export function createLogger (level: LogLevel): Logger {
  return loggerOf(createPino(level))
}
