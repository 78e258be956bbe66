/**
 * Entry point: parseConfig() -> ClassifierPool.start() -> createApp() -> listen (and gRPC
 * on GRPC_PORT, over the same context), and a graceful shutdown on SIGTERM/SIGINT. A bad setting or model stops start-up with one
 * line on stderr and exit 1. The HTTP stack is loaded while the model decodes in its own
 * thread (or, a compiled file, loads in this one), so the two overlap.
 */
import net from 'node:net'
import { pathToFileURL } from 'node:url'
import { ServiceError } from './errors.js'
import { loadFirstModel } from './pool/decode-model-thread.js'

export async function main (): Promise<void> {
  let config
  let pool
  const started = performance.now()
  // The model starts decoding (in a thread of its own) before anything else is loaded; a bad
  // setting is still reported first, because the decoding is awaited only after it is read.
  let decoding
  try {
    // The default model: MODEL_PATH's (named 'default'), or the repository's DEFAULT_MODEL.
    const { defaultModelOf, defaultModelSourceFromEnv, repositoryOver } = await import('./repository/open.js')
    const source = defaultModelSourceFromEnv(process.env)
    const root = source.modelRepository
    const first = defaultModelOf(source)
    // A compiled file is loaded in this thread instead, once the workers are starting.
    let workersStarting!: () => void
    const firstModel = loadFirstModel(first.spec.paths, first.spec.settingsFile, first.spec.ensemble ?? null, source.modelCacheDir, new Promise<void>(resolve => { workersStarting = resolve }))
    decoding = firstModel.model
    decoding.catch(() => {})
    const [{ parseConfig }, { createLogger }, { ClassifierPool }] = await Promise.all([import('./config.js'), import('./logger.js'), import('./pool/classifier-pool.js')])
    config = parseConfig(process.env)
    const logger = createLogger(config.logLevel)
    // Webhooks (WEBHOOK_URL): lifecycle events, quotas used up, workers replaced; sent from a bounded queue.
    const webhooks = config.webhookUrl === null
      ? undefined
      : new (await import('./access/webhooks.js')).WebhookSender({
        url: config.webhookUrl,
        secret: config.webhookSecret,
        queueSize: config.webhookQueueSize,
        onLost: (event, why, detail) => logger.warn(`webhook event ${why}: ${detail}`, { event_id: event.id, event: event.type })
      })
    const starting = ClassifierPool.start({
      ...config,
      modelPath: first.spec.paths.model,
      vectorizerPaths: first.spec.paths.vectorizers ?? [],
      settingsFile: first.spec.settingsFile,
      modelBatching: first.spec.batching,
      modelMaxWorkers: first.spec.maxWorkers,
      ensemble: first.spec.ensemble ?? null,
      decoding,
      onWorkerRestart: threadId => {
        logger.warn('worker restarted', { thread_id: threadId })
        webhooks?.send('worker.replaced', { thread_id: threadId })
      }
    }, err => logger.error('worker error', { stack: (err as Error).stack }))
    // Not awaited alone: a failed start must still be the error reported below.
    starting.catch(() => {})
    workersStarting()
    // A compiled model loading in this thread goes first: the workers, loading their code
    // meanwhile, wait for it, and not for the HTTP stack. (Its failure is reported below, as
    // the pool's start fails with it; a model decoding in a thread is not waited for here.)
    await firstModel.here
    // Tracing (OTEL_EXPORTER_OTLP_*): the SDK is loaded only when configured, while the workers start.
    const tracing = config.tracing === null ? undefined : await (await import('./tracing/start.js')).startTracing(config.tracing, logger)
    const [{ createApp }, { createServer }, { createService }, { createBodyValidator }] = await Promise.all([import('./http/app.js'), import('./http/server.js'), import('./service/create-service.js'), import('./http/validate.js')])
    // The body schemas compile while the model decodes and the workers start, not after.
    const validator = createBodyValidator(config)
    pool = await starting
    let stopping = false
    const repository = repositoryOver(pool, config, first, {
      onEvent: event => {
        const { notes = [], ...rest } = event
        if (event.kind === 'load_failed') logger.error('model load failed', rest)
        else logger.info(`model ${event.kind}`, rest)
        for (const note of notes) logger.info(note, { model: event.model, version: event.version })
        tracing?.modelEvent(event)
        webhooks?.send(`model.${event.kind}`, { model: event.model, version: event.version, reason: event.reason, seconds: event.kind === 'loaded' ? event.seconds : undefined })
      }
    })
    // One context for REST and gRPC: the same pool, repository, keys, limits and counters.
    const context = { ...createService({ config, pool, logger, repository, webhooks, tracing }), validator }
    // Shared limits from the first request: wait a little for Redis, never for long (a store that is down fails open or closed, per setting).
    if (context.access !== undefined && !await context.access.ready(2000)) logger.warn(`rate limit store ${config.redisUrl ?? ''} not reachable yet`)
    const app = createApp({ config, pool, isStopping: () => stopping, context })
    const server = createServer(app, config)
    // gRPC (GRPC_PORT) only when asked for: its modules are not even loaded otherwise. Started
    // before HTTP listens, so that once HTTP's readiness (what a KServe or Kubernetes probe asks)
    // answers, the gRPC port does too (docs/operations.md).
    const grpc = config.grpcPort === null ? null : await (await import('./grpc/server.js')).startGrpcServer(context, config.grpcPort, config.grpcHost)
    server.listen(config.port, config.host)
    // A port in use (or not ours to take) is a bad setting: one line, like the others.
    const where = `${config.host}:${config.port}`
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve)
      server.once('error', (err: NodeJS.ErrnoException) => reject(new ServiceError('ERR_CONFIG_INVALID', `invalid configuration: cannot listen on ${where}: ${err.code ?? err.message}`)))
    })
    // MODEL_POLL_SECONDS: its module loaded now, so nothing is awaited between loadAll and the first look.
    const poller = root !== null && config.modelPollSeconds > 0 ? await import('./repository/poller.js') : null
    const address = server.address()
    const port = typeof address === 'object' && address !== null ? address.port : config.port
    logger.info('ready', {
      port,
      grpc_port: grpc?.port ?? null,
      model: first.spec.paths.model,
      model_settings: first.spec.settingsFile,
      model_repository: root,
      default_model: first.name,
      classifier: pool.model.classifier,
      vectorizer: pool.model.vectorizer,
      steps: pool.model.steps,
      classes: pool.model.classes,
      features: pool.model.nFeatures,
      confidence: pool.model.confidence,
      sklearn_versions: pool.model.sklearnVersions,
      explainable: pool.model.explainRefusal === undefined,
      workers: pool.workerCount,
      api_keys: context.access?.keys.size ?? null,
      shared_model_bytes: pool.model.sharedBytes,
      model_load_ms: Math.round(pool.model.loadMs),
      startup_ms: Math.round(performance.now() - started),
      // Secrets stay out of logs: the webhook's key, and a password in REDIS_URL.
      settings: { ...config, webhookSecret: config.webhookSecret === null ? null : '[redacted]', redisUrl: config.redisUrl?.replace(/\/\/[^@/]*@/, '//[redacted]@') ?? null }
    })
    for (const note of pool.model.notes) logger.info(note)
    // The default model loaded before the repository existed: its event is sent here.
    webhooks?.send('model.loaded', { model: first.name, version: first.version, seconds: pool.model.loadMs / 1000 })
    tracing?.modelEvent({ kind: 'loaded', model: first.name, version: first.version, seconds: pool.model.loadMs / 1000 })
    // The repository's other models load beside the default one, which already serves.
    repository.loadAll().catch(err => logger.error('repository load failed', { stack: (err as Error).stack }))
    // Polling starts in the same turn as loadAll's look at the folder: a folder added in between
    // (after the ready line, say) would be in the poller's first snapshot yet never loaded.
    if (poller !== null && root !== null) poller.pollRepository(repository, root, config.modelPollSeconds, err => logger.error('repository poll failed', { stack: (err as Error).stack }))
    // SIGHUP reloads every model (and loads new folders); a failed reload leaves the old version serving.
    // SIGHUP also re-reads the key file (a bad one leaves the previous keys in force).
    process.on('SIGHUP', () => {
      context.access?.keys.reload()
      repository.reloadAll().catch(err => logger.error('reload failed', { stack: (err as Error).stack }))
    })
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
      const grpcClosed = grpc?.close() ?? Promise.resolve()
      net.Server.prototype.close.call(server, () => {
        grpcClosed.then(async () => {
          await context.access?.close()
          webhooks?.close()
          await readyPool.close()
          // The spans still queued go out, if the collector takes them within two seconds.
          await tracing?.shutdown(2000)
        }).then(() => {
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
