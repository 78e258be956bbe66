import type { Express } from 'express'
import { parseConfig, type Config } from '../../src/config.js'
import { createApp } from '../../src/http/app.js'
import { createLogger } from '../../src/logger.js'
import { ClassifierPool } from '../../src/pool/classifier-pool.js'

export const HOOKED_WORKER = new URL('./hooked-worker.js', import.meta.url)

export interface Service {
  readonly app: Express
  readonly pool: ClassifierPool
  readonly config: Readonly<Config>
  close: () => Promise<void>
}

/** A real app over a real pool of worker threads, configured as the environment `env` would. */
export async function startService (env: Record<string, string> = {}, options: { hooked?: boolean } = {}): Promise<Service> {
  const config = parseConfig({ WORKERS: '2', LOG_LEVEL: 'silent', ...env })
  const pool = await ClassifierPool.start({ ...config, workerFile: options.hooked === true ? HOOKED_WORKER : undefined })
  const app = createApp({ config, pool, logger: createLogger(config.logLevel) })
  return { app, pool, config, close: async () => await pool.close() }
}
