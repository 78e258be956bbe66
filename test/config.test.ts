import { expect } from 'chai'
import { Ajv, type ValidateFunction } from 'ajv'
import { spawnSync } from 'node:child_process'
import { availableParallelism } from 'node:os'
import path from 'node:path'
import { parseConfig } from '../src/config.js'
import { SCHEMA } from '../src/config-schema.js'
import { validate as compiledValidate } from '../src/config-validate.js'
import { ServiceError } from '../src/errors.js'
import { DEFAULT_MODEL_PATH, DEFAULT_VECTORIZER_PATH } from '../src/paths.js'
import { ROOT } from './helpers/paths.js'

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
      modelCacheDir: null,
      modelName: null,
      modelPollSeconds: 0,
      maxBatchSize: 50,
      maxTextLength: 10000,
      enableMetrics: true,
      workers: availableParallelism(),
      predictionTimeoutMs: 10000,
      queueTimeoutMs: 10000,
      adaptiveBatch: { maxTexts: 1, maxWaitMs: 5 },
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

  it('turns tracing on only with an OTLP endpoint, with the OpenTelemetry variables\' defaults', () => {
    expect(parseConfig({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' }).tracing).to.equal(null)
    expect(parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing).to.deep.equal({
      endpoint: 'http://collector:4318/v1/traces',
      resource: { 'service.name': 'tfidf-serve' },
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
      maxQueueSize: 2048,
      maxExportBatchSize: 512,
      scheduleDelayMs: 5000,
      exportTimeoutMs: 30000
    })
    // The traces endpoint is taken as it is; the base one gets v1/traces.
    expect(parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318/', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b/otlp/traces' }).tracing?.endpoint).to.equal('https://b/otlp/traces')
    expect(parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318/' }).tracing?.endpoint).to.equal('http://a:4318/v1/traces')
    // Off again, as the specification says.
    expect(parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_SDK_DISABLED: 'true' }).tracing).to.equal(null)
    expect(parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_TRACES_EXPORTER: 'none' }).tracing).to.equal(null)
  })

  it('reads the sampler, the batch limits and the resource attributes, OTEL_SERVICE_NAME first', () => {
    const t = parseConfig({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_BSP_MAX_QUEUE_SIZE: '100',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '10',
      OTEL_BSP_SCHEDULE_DELAY: '200',
      OTEL_BSP_EXPORT_TIMEOUT: '1000',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=ignored, k8s.pod.name=pod%2D1,deployment.environment.name=prod',
      OTEL_SERVICE_NAME: 'classifier'
    }).tracing
    expect(t).to.deep.include({ sampler: 'parentbased_traceidratio', samplerRatio: 0.25, maxQueueSize: 100, maxExportBatchSize: 10, scheduleDelayMs: 200, exportTimeoutMs: 1000 })
    expect(t?.resource).to.deep.equal({ 'service.name': 'classifier', 'k8s.pod.name': 'pod-1', 'deployment.environment.name': 'prod' })
    expect(parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attributes' }).tracing?.resource).to.deep.equal({ 'service.name': 'from-attributes' })
  })

  it('refuses tracing settings it cannot follow, in the one line', () => {
    const problems = (env: Record<string, string>): string => {
      try {
        parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', ...env })
      } catch (err) {
        expect((err as ServiceError).code).to.equal('ERR_CONFIG_INVALID')
        return (err as Error).message
      }
      throw new Error('accepted')
    }
    expect(problems({ OTEL_TRACES_SAMPLER: 'sometimes' })).to.include('OTEL_TRACES_SAMPLER must be equal to one of the allowed values')
    expect(problems({ OTEL_TRACES_SAMPLER_ARG: '1.5' })).to.include('OTEL_TRACES_SAMPLER_ARG must be <= 1')
    expect(problems({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).to.include('OTEL_EXPORTER_OTLP_ENDPOINT must match pattern')
    expect(problems({ OTEL_BSP_MAX_QUEUE_SIZE: '10', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '20' })).to.equal('invalid configuration: OTEL_BSP_MAX_EXPORT_BATCH_SIZE (20) must not exceed OTEL_BSP_MAX_QUEUE_SIZE (10)')
    expect(problems({ OTEL_RESOURCE_ATTRIBUTES: 'just-a-word' })).to.include('OTEL_RESOURCE_ATTRIBUTES must be key=value pairs')
    expect(problems({ OTEL_RESOURCE_ATTRIBUTES: 'a=%E0%A4%A' })).to.include('not percent-encoded UTF-8')
  })
})

describe('the environment validator compiled ahead of time (src/config-validate.ts)', () => {
  it('is what ajv compiles from src/config-schema.ts now', () => {
    const run = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'generate-config-validator.mjs'), '--check'], { encoding: 'utf8' })
    expect(run.stderr).to.equal('')
    expect(run.status).to.equal(0)
  })

  it('answers as ajv compiling the schema at start-up did: the same verdicts, errors, defaults and coercions', () => {
    const runtime = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true, strict: false, validateSchema: false }).compile(SCHEMA)
    const check = compiledValidate as unknown as ValidateFunction
    const values = ['', '0', '1', '-1', '8000', '65536', '1.5', 'two', 'true', 'false', 'x', 'a/b', 'info', 'silent', 'loud', 'open', 'redis://h', 'http://h', 'https://h', 'ftp://h', ' ', '1e3', '2199023255553']
    const keys = Object.keys(SCHEMA.properties)
    let compared = 0
    for (const [i, key] of keys.entries()) {
      for (const value of values) {
        // Each variable alone, and beside another one (so allErrors' lists are compared too).
        for (const env of [{ [key]: value }, { [key]: value, [keys[(i + 7) % keys.length]!]: values[(i * 5) % values.length]! }]) {
          const a: Record<string, unknown> = { ...env }
          const b: Record<string, unknown> = { ...env }
          expect(check(a), JSON.stringify(env)).to.equal(runtime(b))
          expect(check.errors ?? null, JSON.stringify(env)).to.deep.equal(runtime.errors ?? null)
          expect(a, JSON.stringify(env)).to.deep.equal(b)
          compared++
        }
      }
    }
    expect(compared).to.be.greaterThan(1000)
  })
})
