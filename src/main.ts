/**
 * Entry point: parseConfig() -> ClassifierPool.start() -> createApp() -> listen, and a
 * graceful shutdown on SIGTERM/SIGINT. A bad setting or model stops start-up with one
 * line on stderr and exit 1. The HTTP stack is loaded while the model decodes in its own
 * thread, so the two overlap.
 */
import { once } from 'node:events'
import net from 'node:net'
import { pathToFileURL } from 'node:url'
import { ServiceError } from './errors.js'
import { modelPathsFromEnv } from './paths.js'
import { decodeModelInThread } from './pool/decode-model-thread.js'

export async function main (): Promise<void> {
  let config
  let pool
  const started = performance.now()
  // The model starts decoding (in a thread of its own) before anything else is loaded; a bad
  // setting is still reported first, because the decoding is awaited only after it is read.
  let decoding
  try {
    const { modelPath, vectorizerPaths, settingsFile } = modelPathsFromEnv(process.env)
    decoding = decodeModelInThread({ model: modelPath, vectorizers: vectorizerPaths }, settingsFile)
    decoding.catch(() => {})
    const [{ parseConfig }, { createLogger }, { ClassifierPool }] = await Promise.all([import('./config.js'), import('./logger.js'), import('./pool/classifier-pool.js')])
    config = parseConfig(process.env)
    const logger = createLogger(config.logLevel)
    const starting = ClassifierPool.start({
      ...config,
      decoding,
      onWorkerRestart: threadId => logger.warn('worker restarted', { thread_id: threadId })
    }, err => logger.error('worker error', { stack: (err as Error).stack }))
    // Not awaited alone: a failed start must still be the error reported below.
    starting.catch(() => {})
    const [{ createApp }, { createServer }] = await Promise.all([import('./http/app.js'), import('./http/server.js')])
    pool = await starting
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
      model_settings: config.settingsFile,
      classifier: pool.model.classifier,
      vectorizer: pool.model.vectorizer,
      steps: pool.model.steps,
      classes: pool.model.classes,
      features: pool.model.nFeatures,
      confidence: pool.model.confidence,
      sklearn_versions: pool.model.sklearnVersions,
      explainable: pool.model.explainRefusal === undefined,
      workers: pool.workerCount,
      shared_model_bytes: pool.model.sharedBytes,
      model_load_ms: Math.round(pool.model.loadMs),
      startup_ms: Math.round(performance.now() - started),
      settings: config
    })
    for (const note of pool.model.notes) logger.info(note)
    const readyPool = pool
    const stop = (signal: string): void => {
      if (stopping) return
      stopping = true
      logger.info('shutting down', { signal, requests_in_flight: readyPool.inFlight, requests_waiting: readyPool.waiting })
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
