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

export interface RepositoryServer {
  readonly pool: ClassifierPool
  /** http://127.0.0.1:<port> */
  readonly base: string
  close: () => Promise<void>
}

/** A real HTTP server on 127.0.0.1 over the model repository `root`, configured as the environment `env` would. */
export async function serveRepository (root: string, env: Record<string, string> = {}): Promise<RepositoryServer> {
  const [{ openRepository }, { createContext }] = await Promise.all([import('../../src/repository/open.js'), import('../../src/http/app.js')])
  const config = parseConfig({ MODEL_REPOSITORY: root, WORKERS: '2', LOG_LEVEL: 'silent', ...env })
  const { pool, repository } = await openRepository(config)
  const context = createContext({ config, pool, repository, logger: createLogger('silent') })
  const server = createServer(createApp({ config, pool, context }), config)
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    pool,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      await new Promise(resolve => server.close(resolve))
      await pool.close()
    }
  }
}

/** POSTs `body` as JSON and reads the whole answer: its status and how long it took (ms). */
export async function timedPost (base: string, route: string, body: object): Promise<{ status: number, ms: number }> {
  const started = performance.now()
  const response = await fetch(base + route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  await response.arrayBuffer()
  return { status: response.status, ms: performance.now() - started }
}
