/**
 * The OpenAPI 3.1 document of the service (GET /openapi.json), built from the JSON Schemas
 * the requests are validated with (schemas.ts) and this instance's limits: every route,
 * body, response and status, with examples.
 */
import type { Config } from '../config.js'
import { API_VERSION } from '../service/context.js'
import { routeOf, scopeOf } from './route-table.js'
import { DEFAULT_TOP_K, RESPONSE_SCHEMAS, requestSchemas } from './schemas.js'

type Json = Record<string, unknown>

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` })
const json = (schema: Json, example?: unknown): Json => ({ 'application/json': { schema, ...(example === undefined ? {} : { example }) } })
const HEADERS = { 'X-API-Version': { $ref: '#/components/headers/X-API-Version' }, 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } }

function response (description: string, content?: Json, extraHeaders: Json = {}): Json {
  return { description, headers: { ...HEADERS, ...extraHeaders }, ...(content === undefined ? {} : { content }) }
}

const error = (description: string, example: string): Json => response(description, json(ref('Error'), { detail: example }))
const unavailable = response('At capacity, timed out, or no worker available; retry after the given seconds', json(ref('Error'), { detail: 'server is at capacity, retry shortly' }), { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait before retrying (1).' } })
const internal = response('Unexpected failure; error_id is logged with the stack', json(ref('InternalError'), { detail: 'Internal server error', error_id: '5b0c6d0e-2f0a-4c55-9d0e-8a1b2c3d4e5f' }))
const invalid = response('The body breaks a rule: FastAPI\'s detail list', json(ref('ValidationError'), { detail: [{ loc: ['body', 'texts', 0], msg: 'String should have at least 1 character', type: 'string_too_short' }] }))
const badBody = error('The body is not JSON, not UTF-8, or not sent as application/json', 'request body is not valid JSON')
const tooLarge = error('The body exceeds 1 MiB; the connection closes after the answer', 'request body exceeds 1048576 bytes')
const bodyTimeout = error('The body was not all received within REQUEST_TIMEOUT_MS of the request\'s start (a stalled upload); the connection closes after the answer', 'request body was not received in full within 30000 ms')

const preflight = (methods: string): Json => ({
  summary: 'CORS preflight',
  tags: ['cors'],
  responses: { 204: { description: `Allowed: any origin, methods ${methods}` } }
})

/**
 * With keys on (API_KEYS_FILE): the two ways to send one as security schemes (so the docs
 * page's Authorize button works), and on each operation the scope it needs and its 401, 403
 * and 429; the open routes say `security: []`.
 */
function withKeys (doc: Json, metricsRequireKey: boolean): Json {
  const components = doc.components as Json
  components.securitySchemes = {
    bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <key> (a key from `tfidf-serve keys new`)' },
    apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'The same key in X-API-Key' }
  }
  const rateHeaders = {
    'Retry-After': { schema: { type: 'integer' }, description: 'Seconds until the limit passed frees up (the quota: until UTC midnight)' },
    'RateLimit-Policy': { schema: { type: 'string' }, description: 'The key\'s policies, e.g. "requests";q=20;w=1, "daily";q=100000;w=86400 (draft-ietf-httpapi-ratelimit-headers)' },
    RateLimit: { schema: { type: 'string' }, description: 'What is left of each policy, e.g. "requests";r=0;t=1' }
  }
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    const v2 = path.startsWith('/v2')
    const body = (detail: string): Json => json(v2 ? { type: 'object', required: ['error'], properties: { error: { type: 'string' } } } : ref('Error'), v2 ? { error: detail } : { detail })
    for (const [method, operation] of Object.entries(item)) {
      if (method === 'parameters') continue
      // The route table's scope: what the app checks is what the document says.
      const route = routeOf(path, method)
      const scope = route === undefined ? null : scopeOf(route, { metricsRequireKey })
      if (scope === null) {
        operation.security = []
        continue
      }
      operation.security = [{ bearerAuth: [] }, { apiKeyHeader: [] }]
      operation.description = `${typeof operation.description === 'string' ? `${operation.description} ` : ''}Needs a key with the \`${scope}\` scope.`
      operation.responses = {
        ...(operation.responses as Json),
        401: response('No key, or not a key of this service', body('the API key is not valid'), { 'WWW-Authenticate': { schema: { type: 'string', const: 'Bearer realm="tfidf-serve"' } } }),
        403: response(`The key lacks the \`${scope}\` scope`, body(`the API key team-a lacks the "${scope}" scope`)),
        429: response('A rate limit or the daily quota of the key is used up', body('rate limit of 20 requests a second exceeded for key team-a'), rateHeaders)
      }
    }
  }
  return doc
}

export function openApiDocument (config: Pick<Config, 'maxBatchSize' | 'maxTextLength' | 'enableMetrics'> & Partial<Pick<Config, 'apiKeysFile' | 'metricsRequireKey'>>): Json {
  const doc = serviceDocument(config)
  return config.apiKeysFile === undefined || config.apiKeysFile === null ? doc : withKeys(doc, config.metricsRequireKey === true)
}

function serviceDocument (config: Pick<Config, 'maxBatchSize' | 'maxTextLength' | 'enableMetrics'>): Json {
  const schemas = requestSchemas(config)
  const singleExample = { text: 'a wonderful, moving film' }
  const batchExample = { texts: ['a wonderful, moving film', 'dull and lifeless'], batch_size: 10 }
  const postResponses = (ok: Json): Json => ({ 200: ok, 400: badBody, 408: bodyTimeout, 413: tooLarge, 422: invalid, 500: internal, 503: unavailable })
  const predictions = response('Predictions: the single form\'s answer, or the batch form\'s in input order', {
    'application/json': {
      schema: { oneOf: [ref('SinglePrediction'), ref('BatchPrediction')] },
      examples: {
        single: { value: { sentiment: 'positive', confidence: 0.9726, model_used: 'LogisticRegression', processing_time: 0.0004, request_id: 'req-1' } },
        batch: { value: { predictions: [{ text: 'a wonderful, moving film', prediction: 'positive', confidence: 0.97, processing_time: 0.0004 }, { text: 'dull and lifeless', prediction: 'negative', confidence: 0.97, processing_time: 0.0001 }], batch_info: { total_texts: 2, batch_size: 10, processing_time: 0.002 } } }
      }
    }
  })
  const treeExplanationExample = {
    text: 'win a free prize now',
    prediction: 'spam',
    score: 'predict_proba',
    method: 'tree_shap',
    space: 'probability',
    score_classes: ['ham', 'spam'],
    intercept: [0.8651, 0.1349],
    scores: [0.1722, 0.8278],
    features: [{ feature: 1452, term: 'free', value: 0.5212, contribution: [-0.2411, 0.2411] }, { feature: 230, term: 'call', value: 0, contribution: [-0.0312, 0.0312], absent: true }],
    other_features: { count: 41, contribution: [-0.4206, 0.4206] }
  }
  const explanationExample = {
    text: 'a wonderful, moving film',
    prediction: 'positive',
    score: 'decision_function',
    score_classes: ['positive'],
    intercept: [0.0967],
    scores: [3.5704],
    features: [{ feature: 28569, term: 'wonderful', value: 0.6248, weight: [3.4811], contribution: [2.1750] }],
    other_features: { count: 2, contribution: [1.2987] }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'tfidf-serve',
      version: API_VERSION,
      description: 'Text classification with a scikit-learn TF-IDF model, served without Python: the labels and probabilities scikit-learn gives. Every response carries X-API-Version and X-Request-Id. Routes are exact and case-sensitive; another method on a route gets 405 with an Allow header, an unknown route 404, a request the HTTP parser refuses 400, headers not in by the request timeout 408, headers over 16 KiB 431 (all as {\"detail\": ...}). A request whose client goes away before its answer is logged and counted with status \"aborted\".',
      license: { name: 'MIT', identifier: 'MIT' }
    },
    servers: [{ url: '/' }],
    tags: [
      { name: 'predict', description: 'Classify texts' },
      { name: 'explain', description: 'Why a text got its label' },
      { name: 'operations', description: 'Health, metrics and description of the service' },
      { name: 'models', description: 'The models of the repository (MODEL_REPOSITORY), each by name' },
      { name: 'open inference protocol v2', description: 'KServe / Triton / MLServer clients (REST)' },
      { name: 'cors', description: 'CORS preflight (any origin)' }
    ],
    paths: {
      '/predict': {
        post: {
          operationId: 'predict',
          tags: ['predict'],
          summary: 'Classify one text ({"text"}) or a batch ({"texts", "batch_size"})',
          description: `A body with \`text\` alone is the single form; anything else is judged as the batch form. Batches hold 1 to ${config.maxBatchSize} texts, cut into chunks of \`batch_size\` that run in parallel; predictions come back in input order.`,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { oneOf: [schemas.single, schemas.batch] }, examples: { single: { value: singleExample }, batch: { value: batchExample } } } }
          },
          responses: postResponses(predictions)
        },
        options: preflight('POST')
      },
      '/batch_predict': {
        post: {
          operationId: 'batchPredict',
          tags: ['predict'],
          summary: 'Classify a batch of texts ({"texts", "batch_size"})',
          requestBody: { required: true, content: json(schemas.batch, batchExample) },
          responses: postResponses(response('Predictions in input order', json(ref('BatchPrediction'))))
        },
        options: preflight('POST')
      },
      '/explain': {
        post: {
          operationId: 'explain',
          tags: ['explain'],
          summary: 'The features that moved each text\'s prediction, with their TF-IDF values and contributions',
          description: `Linear models and naive Bayes: the contributions plus the intercept are scikit-learn's decision_function (or joint log-likelihood). Tree models (decision trees, random forests, extra trees, gradient boosting, soft voting over them, XGBoost, LightGBM): the contributions are shap's TreeExplainer values (path-dependent), the intercept its expected value, in probability space (scikit-learn's trees and forests) or margin space (boosting); a word absent from the text can be listed, marked absent. \`top_k\` (1 to 100, default ${DEFAULT_TOP_K}) features per text, ranked by how much they favour the predicted class. Any other model gets 422 with a detail naming its estimator and why.`,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { oneOf: [schemas.explainSingle, schemas.explainBatch] }, examples: { single: { value: { ...singleExample, top_k: 5 } }, batch: { value: { texts: batchExample.texts, top_k: 5 } } } } }
          },
          responses: {
            ...postResponses(response('One explanation (single form) or a list (batch form)', {
              'application/json': { schema: { oneOf: [ref('Explanation'), ref('BatchExplanation')] }, examples: { single: { value: explanationExample }, tree: { value: treeExplanationExample } } }
            })),
            422: response('The body breaks a rule (a detail list), or the model has no explanation (a detail string)', {
              'application/json': {
                schema: { oneOf: [ref('ValidationError'), ref('Error')] },
                examples: { model: { value: { detail: 'MLPClassifier: a neural network\'s hidden layers mix the words; explanations are defined for linear models, naive Bayes and tree models (TreeSHAP)' } } }
              }
            })
          }
        },
        options: preflight('POST')
      },
      '/health': {
        get: {
          operationId: 'health',
          tags: ['operations'],
          summary: 'Health check: 200 when the model is loaded and a worker can take work',
          responses: {
            200: response('Healthy', json(ref('Health'))),
            503: response('Unhealthy (no worker, or shutting down)', json(ref('Health')))
          }
        }
      },
      '/metrics': {
        get: {
          operationId: 'metrics',
          tags: ['operations'],
          summary: 'Metrics: the JSON report, or the Prometheus exposition',
          description: `JSON unless asked otherwise; Prometheus's Accept header (application/openmetrics-text, text/plain;version=0.0.4) or ?format=prometheus|openmetrics gets the exposition.${config.enableMetrics ? '' : ' Disabled on this instance (ENABLE_METRICS=false): 404.'}`,
          parameters: [{ name: 'format', in: 'query', required: false, schema: { type: 'string', enum: ['json', 'prometheus', 'openmetrics'] } }],
          responses: {
            200: response('The metrics', {
              ...json(ref('MetricsReport'), { predictions_total: 4, predictions_per_second: 4.9, average_response_time: 0.0027, memory_usage_mb: 103, uptime_seconds: 1, cache_hit_rate: 0.5 }),
              'text/plain; version=0.0.4': { schema: { type: 'string' } },
              'application/openmetrics-text; version=1.0.0': { schema: { type: 'string' } }
            }),
            400: error('An unknown format', 'format must be json, prometheus or openmetrics, not "xml"'),
            404: error('Metrics are disabled (ENABLE_METRICS=false)', 'metrics are not enabled (ENABLE_METRICS=false)'),
            503: response('Collecting the metrics failed', json(ref('Error')), { 'Retry-After': { schema: { type: 'integer' } } })
          }
        }
      },
      '/': {
        get: {
          operationId: 'info',
          tags: ['operations'],
          summary: 'The service: name, version, endpoints and the model',
          responses: { 200: response('The service information', json(ref('ServiceInfo'))) }
        }
      },
      ...modelRoutes(postResponses, predictions),
      ...v2Paths(),
      '/openapi.json': {
        get: {
          operationId: 'openapi',
          tags: ['operations'],
          summary: 'This document',
          responses: { 200: response('The OpenAPI 3.1 document', { 'application/json': { schema: { type: 'object' } } }) }
        }
      },
      '/docs': {
        get: {
          operationId: 'docs',
          tags: ['operations'],
          summary: 'A page that renders this document (Swagger UI, served from the package, no CDN)',
          responses: { 200: response('The page', { 'text/html': { schema: { type: 'string' } } }) }
        }
      },
      '/docs/{asset}': {
        get: {
          operationId: 'docsAsset',
          tags: ['operations'],
          summary: 'The docs page\'s script, style and icon',
          parameters: [{ name: 'asset', in: 'path', required: true, schema: { type: 'string', enum: ['swagger-ui.css', 'swagger-ui-bundle.js', 'init.js', 'favicon-32x32.png'] } }],
          responses: {
            200: response('The file', { 'text/css': { schema: { type: 'string' } }, 'text/javascript': { schema: { type: 'string' } }, 'image/png': { schema: { type: 'string', contentEncoding: 'binary' } } }),
            404: error('No such asset', 'no route for GET /docs/nope.js')
          }
        }
      }
    },
    components: {
      schemas: RESPONSE_SCHEMAS,
      headers: {
        'X-API-Version': { description: 'The API version', schema: { type: 'string', const: API_VERSION } },
        'X-Request-Id': { description: 'req-<n>, counting requests since start', schema: { type: 'string', pattern: '^req-[0-9]+$' } }
      },
      responses: {
        NotFound: error('No route for this method and path (routes are exact and case-sensitive)', 'no route for POST /PREDICT'),
        MethodNotAllowed: response('The route exists for other methods, named in Allow', json(ref('Error'), { detail: 'method not allowed; use POST' }), { Allow: { schema: { type: 'string' } } }),
        BadRequest: error('The HTTP parser refused the request (malformed request line, header or chunked framing); the connection is closed', 'malformed HTTP request: Parse Error: Invalid method encountered'),
        RequestTimeout: error('The request\'s headers were not all received within REQUEST_TIMEOUT_MS (at most 60 s); the connection is closed', 'request was not received in full in time'),
        RequestHeaderFieldsTooLarge: error('The request\'s headers exceed Node\'s limit (16 KiB); the connection is closed', 'request headers are too large')
      }
    }
  }
}

const name = { name: 'name', in: 'path', required: true, schema: { type: 'string' }, description: 'The model (its folder in MODEL_REPOSITORY, or its settings\' name)' }
const version = { name: 'version', in: 'path', required: true, schema: { type: 'string' } }
const notFound = error('No such model', 'no model named "spam" (models: default, reviews)')
const notReady = response('The model is not loaded (LOADING, UNLOADING or UNAVAILABLE)', json(ref('Error'), { detail: 'model spam is UNAVAILABLE: unloaded' }), { 'Retry-After': { schema: { type: 'integer' } } })

/** The spec's routes for any model of the repository, under /models/{name}/. */
function modelRoutes (postResponses: (ok: Json) => Json, predictions: Json): Json {
  const post = (operationId: string, summary: string, ok: Json): Json => ({
    post: {
      operationId,
      tags: ['models'],
      summary,
      parameters: [name],
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
      responses: { ...postResponses(ok), 404: notFound, 503: notReady }
    }
  })
  return {
    '/models': {
      get: {
        operationId: 'models',
        tags: ['models'],
        summary: 'Every model of the repository: state (READY, LOADING, UNLOADING, UNAVAILABLE and why), versions, classes, vectorizer, shared bytes',
        responses: { 200: response('The models', json({ type: 'object', properties: { default: { type: 'string' }, models: { type: 'array', items: { type: 'object' } } } })) }
      }
    },
    '/models/{name}/predict': post('modelPredict', 'POST /predict for the model {name}', predictions),
    '/models/{name}/batch_predict': post('modelBatchPredict', 'POST /batch_predict for the model {name}', response('Predictions in input order', json(ref('BatchPrediction')))),
    '/models/{name}/explain': post('modelExplain', 'POST /explain for the model {name}', response('Explanations', json({ type: 'object' })))
  }
}

const v2Error = (description: string, example: string): Json => ({ description, headers: HEADERS, content: { 'application/json': { schema: { type: 'object', required: ['error'], properties: { error: { type: 'string' } } }, example: { error: example } } } })
const v2Json = (description: string, schema: Json = { type: 'object' }): Json => ({ description, headers: HEADERS, content: { 'application/json': { schema } } })

/** The Open Inference Protocol V2 routes (REST), as docs/many-models.md, "Open Inference Protocol V2 (REST)" sets them out. */
function v2Paths (): Json {
  const get = (operationId: string, summary: string, responses: Json, parameters: Json[] = []): Json => ({ get: { operationId, tags: ['open inference protocol v2'], summary, parameters, responses } })
  const post = (operationId: string, summary: string, responses: Json, parameters: Json[] = []): Json => ({ post: { operationId, tags: ['open inference protocol v2'], summary, parameters, requestBody: { required: false, content: { 'application/json': { schema: { type: 'object' } }, 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } }, responses } })
  const unknown = v2Error('No such model (or version)', "no model named \"spam\" (models: default, reviews)")
  const unready = v2Error('The model is not ready', 'model spam is LOADING')
  const bad = v2Error('Bad input: not one BYTES tensor of texts, a text breaking a rule, an unknown output', 'inputs[0].datatype must be BYTES (texts), not "FP32"')
  const infer = {
    200: { description: 'Outputs as asked: predict (BYTES), predict_proba and decision_function (FP64 [N, classes]), confidence (FP64); JSON, or with binary outputs the JSON header (Inference-Header-Content-Length) then the tensors', headers: HEADERS, content: { 'application/json': { schema: { type: 'object', required: ['model_name', 'outputs'] } }, 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
    400: bad,
    404: unknown,
    408: v2Error('The body was not all received in time', 'request body was not received in full within 30000 ms'),
    413: v2Error('The body exceeds 1 MiB', 'request body exceeds 1048576 bytes'),
    500: v2Error('Unexpected failure (logged with its error_id)', 'Internal server error (error_id 5b0c6d0e-2f0a-4c55-9d0e-8a1b2c3d4e5f)'),
    503: unready
  }
  const model = (suffix: string): Record<string, Json> => ({
    [`/v2/models/{name}${suffix}`]: { parameters: [name] },
    [`/v2/models/{name}/versions/{version}${suffix}`]: { parameters: [name, version] }
  })
  const out: Record<string, Json> = {
    '/v2': get('v2ServerMetadata', 'Server metadata: name, version, the extensions implemented', { 200: v2Json('The server', { type: 'object', required: ['name', 'version', 'extensions'] }) }),
    '/v2/health/live': get('v2Live', 'Liveness: 200 {"live": true}', { 200: v2Json('Live') }),
    '/v2/health/ready': get('v2Ready', 'Readiness: 200 {"ready": true} once every model found at start-up has settled (READY or UNAVAILABLE) and the default model serves (with STRICT_READINESS, while every model serves), else 503', { 200: v2Json('Ready'), 503: v2Error('Not ready', 'the default model is not ready') }),
    '/v2/repository/index': post('v2RepositoryIndex', 'Every model with its state and reason (body may be empty, or {"ready": true})', { 200: v2Json('The index', { type: 'array', items: { type: 'object', required: ['name', 'state', 'reason'] } }), 400: bad }),
    '/v2/repository/models/{name}/load': post('v2Load', 'Loads or reloads the model beside the version serving; 200 once every worker can serve it', { 200: v2Json('Loaded'), 404: unknown, 503: v2Error('The load failed (the old version, if any, still serves)', 'model spam failed to load: ...') }, [name]),
    '/v2/repository/models/{name}/unload': post('v2Unload', 'Unloads the model once its requests in flight have finished', { 200: v2Json('Unloaded'), 404: unknown }, [name])
  }
  for (const [path, { parameters }] of Object.entries(model(''))) out[path] = get(`v2ModelMetadata${path.includes('versions') ? 'Version' : ''}`, 'Model metadata: versions, platform, input and output tensors, classes', { 200: v2Json('The model'), 404: unknown, 503: unready }, parameters as Json[])
  for (const [path, { parameters }] of Object.entries(model('/ready'))) out[path] = get(`v2ModelReady${path.includes('versions') ? 'Version' : ''}`, 'Model readiness: 200 {"name", "ready": true}, else 503', { 200: v2Json('Ready'), 404: unknown, 503: v2Json('Not ready') }, parameters as Json[])
  for (const [path, { parameters }] of Object.entries(model('/infer'))) out[path] = post(`v2Infer${path.includes('versions') ? 'Version' : ''}`, 'Inference: one BYTES input of texts (shape [N] or [N, 1], JSON or binary)', infer, parameters as Json[])
  return out
}
