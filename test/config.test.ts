import { expect } from 'chai'
import { availableParallelism } from 'node:os'
import path from 'node:path'
import { parseConfig } from '../src/config.js'
import { ServiceError } from '../src/errors.js'
import { DEFAULT_MODEL_PATH, DEFAULT_VECTORIZER_PATH } from '../src/paths.js'

function failure (env: Record<string, string>): ServiceError {
  try {
    parseConfig(env)
  } catch (err) {
    expect(err).to.be.instanceOf(ServiceError)
    expect((err as ServiceError).code).to.equal('ERR_CONFIG_INVALID')
    return err as ServiceError
  }
  throw new Error('no error')
}

describe('parseConfig', () => {
  it('gives the spec defaults and the shipped model, frozen', () => {
    const c = parseConfig({})
    expect(c).to.deep.equal({
      port: 8000,
      host: '0.0.0.0',
      grpcPort: null,
      grpcHost: '0.0.0.0',
      modelPath: DEFAULT_MODEL_PATH,
      vectorizerPaths: [DEFAULT_VECTORIZER_PATH],
      settingsFile: null,
      modelRepository: null,
      defaultModel: null,
      modelDir: null,
      modelName: 'default',
      modelPollSeconds: 0,
      maxBatchSize: 50,
      maxTextLength: 10000,
      enableMetrics: true,
      workers: availableParallelism(),
      predictionTimeoutMs: 10000,
      queueTimeoutMs: 10000,
      requestTimeoutMs: 30000,
      maxConcurrentRequests: 50,
      maxQueue: 200,
      cacheSize: 10000,
      cacheMaxBytes: 32 * 1024 * 1024,
      labelNames: null,
      logLevel: 'info',
      apiKeysFile: null,
      metricsRequireKey: false,
      strictReadiness: false,
      redisUrl: null,
      redisTimeoutMs: 100,
      rateLimitOnStoreError: 'open',
      webhookUrl: null,
      webhookSecret: null,
      webhookQueueSize: 1000,
      tracing: null
    })
    expect(Object.isFrozen(c) && Object.isFrozen(c.vectorizerPaths)).to.equal(true)
  })

  it('reads every variable from its string', () => {
    const c = parseConfig({
      PORT: '9001', HOST: '127.0.0.1', MAX_BATCH_SIZE: '20', MAX_TEXT_LENGTH: '500', ENABLE_METRICS: 'false', WORKERS: '3',
      PREDICTION_TIMEOUT_MS: '2000', REQUEST_TIMEOUT_MS: '5000', MAX_CONCURRENT_REQUESTS: '7', MAX_QUEUE: '0', CACHE_SIZE: '0',
      LABEL_NAMES: 'neg, pos', LOG_LEVEL: 'warn', UNRELATED: 'ignored'
    }, '/srv')
    expect(c).to.include({ port: 9001, host: '127.0.0.1', maxBatchSize: 20, maxTextLength: 500, enableMetrics: false, workers: 3, predictionTimeoutMs: 2000, requestTimeoutMs: 5000, maxConcurrentRequests: 7, maxQueue: 0, cacheSize: 0, logLevel: 'warn' })
    expect(c.labelNames).to.deep.equal(['neg', 'pos'])
  })

  it('turns gRPC on with GRPC_PORT, on HOST unless GRPC_HOST says otherwise, never on PORT', () => {
    expect(parseConfig({ GRPC_PORT: '9002', HOST: '127.0.0.1' })).to.include({ grpcPort: 9002, grpcHost: '127.0.0.1' })
    expect(parseConfig({ GRPC_PORT: '0', GRPC_HOST: '::1' })).to.include({ grpcPort: 0, grpcHost: '::1', host: '0.0.0.0' })
    expect(failure({ GRPC_PORT: 'x' }).message).to.equal('invalid configuration: GRPC_PORT must be integer (got "x")')
    expect(failure({ GRPC_PORT: '8000' }).message).to.equal('invalid configuration: GRPC_PORT must differ from PORT (both 8000)')
  })

  it('resolves model paths from the environment against the working directory; a model alone needs no vectorizer', () => {
    expect(parseConfig({ MODEL_PATH: 'm/pipe.pkl' }, '/srv')).to.include({ modelPath: '/srv/m/pipe.pkl' })
    expect(parseConfig({ MODEL_PATH: 'm/pipe.pkl' }, '/srv').vectorizerPaths).to.deep.equal([])
    expect(parseConfig({ MODEL_PATH: '/abs/clf.pkl', VECTORIZER_PATH: `v.pkl${path.delimiter}t.pkl` }, '/srv').vectorizerPaths).to.deep.equal(['/srv/v.pkl', '/srv/t.pkl'])
  })

  it('treats an empty variable as unset', () => {
    expect(parseConfig({ PORT: '', WORKERS: '' }).port).to.equal(8000)
  })

  const bad: Array<[Record<string, string>, string]> = [
    [{ PORT: 'http' }, 'PORT must be integer (got "http")'],
    [{ PORT: '70000' }, 'PORT must be <= 65535 (got "70000")'],
    [{ ENABLE_METRICS: 'yes' }, 'ENABLE_METRICS must be boolean (got "yes")'],
    [{ MAX_BATCH_SIZE: '-5' }, 'MAX_BATCH_SIZE must be >= 1 (got "-5")'],
    [{ WORKERS: '0' }, 'WORKERS must be >= 1 (got "0")'],
    [{ CACHE_SIZE: '1.5' }, 'CACHE_SIZE must be integer (got "1.5")'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be equal to one of the allowed values (got "loud")'],
    [{ LABEL_NAMES: 'a,,b' }, 'LABEL_NAMES has an empty name (got "a,,b")']
  ]
  for (const [env, message] of bad) {
    it(`refuses ${JSON.stringify(env)} naming the variable and why`, () => {
      expect(failure(env).message).to.equal(`invalid configuration: ${message}`)
    })
  }

  it('reports every problem at once, on one line', () => {
    const message = failure({ PORT: 'x', WORKERS: '-1', MAX_QUEUE: 'many' }).message
    expect(message).to.equal('invalid configuration: PORT must be integer (got "x"); WORKERS must be >= 1 (got "-1"); MAX_QUEUE must be integer (got "many")')
    expect(message).to.not.contain('\n')
  })
})
