import type { Express } from 'express'
import type http from 'node:http'
import type { AddressInfo } from 'node:net'
import { parseConfig, type Config } from '../../src/config.js'
import { createApp } from '../../src/http/app.js'
import { createServer } from '../../src/http/server.js'
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

export interface Listening {
  readonly server: http.Server
  readonly port: number
  close: () => Promise<void>
}

/** The service's real HTTP server (server.ts) on an ephemeral port of 127.0.0.1. */
export async function listen (service: Service): Promise<Listening> {
  const server = createServer(service.app, service.config)
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: async () => { await new Promise(resolve => server.close(resolve)) }
  }
}
