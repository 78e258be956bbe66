/**
 * Entry point: parseConfig() -> ClassifierPool.start() -> createApp() -> listen, and a
 * graceful shutdown on SIGTERM/SIGINT. A bad setting or model stops start-up with one
 * line on stderr and exit 1.
 */
import { once } from 'node:events'
import net from 'node:net'
import { pathToFileURL } from 'node:url'
import { parseConfig } from './config.js'
import { ServiceError } from './errors.js'
import { createApp } from './http/app.js'
import { createServer } from './http/server.js'
import { createLogger } from './logger.js'
import { ClassifierPool } from './pool/classifier-pool.js'

export async function main (): Promise<void> {
  let config
  let pool
  const started = performance.now()
  try {
    config = parseConfig(process.env)
    const logger = createLogger(config.logLevel)
    pool = await ClassifierPool.start({ ...config, workers: config.workers }, err => logger.error('worker error', { stack: (err as Error).stack }))
    let stopping = false
    const app = createApp({ config, pool, logger, isStopping: () => stopping })
    const server = createServer(app, config)
    server.listen(config.port, config.host)
    await once(server, 'listening')
    const address = server.address()
    const port = typeof address === 'object' && address !== null ? address.port : config.port
    logger.info('ready', {
      port,
      model: config.modelPath,
      classifier: pool.model.classifier,
      vectorizer: pool.model.vectorizer,
      classes: pool.model.classes,
      features: pool.model.nFeatures,
      workers: pool.workerCount,
      model_load_ms: Math.round(pool.model.loadMs),
      startup_ms: Math.round(performance.now() - started)
    })
    for (const note of pool.model.notes) logger.info(note)
    const readyPool = pool
    const stop = (signal: string): void => {
      if (stopping) return
      stopping = true
      logger.info('shutting down', { signal })
      // Stop listening; the callback runs once every connection has ended. Not
      // http.Server#close: it also closes "idle" connections at once, and on a busy server
      // those include connections whose request is in the socket but not yet parsed. Here
      // each connection closes after its current response (Connection: close, set by the
      // app while stopping) or, if it sends nothing more, at the keep-alive timeout.
      net.Server.prototype.close.call(server, () => {
        readyPool.close().then(() => {
          logger.info('stopped')
          process.exit(0)
        }, err => {
          logger.error('pool close failed', { stack: (err as Error).stack })
          process.exit(1)
        })
      })
    }
    process.once('SIGTERM', () => stop('SIGTERM'))
    process.once('SIGINT', () => stop('SIGINT'))
  } catch (err) {
    if (err instanceof ServiceError) {
      process.stderr.write(`tfidf-serve: ${err.message}\n`)
      await pool?.close().catch(() => {})
      process.exit(1)
    }
    throw err
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main()
