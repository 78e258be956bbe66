/**
 * Every HTTP route, declared once: method, path (OpenAPI's form), the key scope it needs, whether
 * it charges texts, how its body is read, and which handler answers it. The app registers the
 * routes, their access checks and the spec's 405s from this table, and the OpenAPI document
 * takes each operation's security from it, so none of them can drift from the others.
 */
import type { Scope } from '../access/access-control.js'
import type { Config } from '../config.js'
import { OPERATION_SCOPES } from '../protocol/v2/operations.js'

/** The handlers the app builds (src/http/app.ts), by name. */
export type HandlerName =
  | 'predict' | 'batchPredict' | 'explain' | 'health' | 'metrics' | 'info' | 'models'
  | 'modelPredict' | 'modelBatchPredict' | 'modelExplain' | 'openapi' | 'docsPage' | 'docsAsset'
  | 'v2ServerMetadata' | 'v2Live' | 'v2Ready' | 'v2ModelMetadata' | 'v2ModelReady' | 'v2Infer'
  | 'v2Index' | 'v2Load' | 'v2Unload'

export interface RouteSpec {
  readonly method: 'get' | 'post'
  /** As OpenAPI writes it: `/models/{name}/predict`. */
  readonly path: string
  /** The scope a key needs with keys on (API_KEYS_FILE); null: open, as probes must be. */
  readonly scope: Scope | null | ((config: Pick<Config, 'metricsRequireKey'>) => Scope | null)
  /** The route classifies texts: it charges them to the key once its body is read. */
  readonly chargesTexts?: boolean
  /** 'json': the spec's JSON reader (application/json, shape-checked); 'raw': bytes, as V2's clients send them. */
  readonly body?: 'json' | 'raw'
  readonly handler: HandlerName
}

const json = { body: 'json', chargesTexts: true, scope: 'predict' } as const
const raw = 'raw' as const

/** The Open Inference Protocol's routes: under /v2, answered in its `{"error"}` form, no 405s. */
export const V2_PREFIX = '/v2'

export const ROUTES: readonly RouteSpec[] = [
  { method: 'post', path: '/predict', ...json, handler: 'predict' },
  { method: 'post', path: '/batch_predict', ...json, handler: 'batchPredict' },
  { method: 'post', path: '/explain', ...json, handler: 'explain' },
  { method: 'get', path: '/health', scope: null, handler: 'health' },
  { method: 'get', path: '/metrics', scope: config => config.metricsRequireKey ? 'metrics' : null, handler: 'metrics' },
  { method: 'get', path: '/', scope: null, handler: 'info' },
  { method: 'get', path: '/models', scope: 'predict', handler: 'models' },
  { method: 'post', path: '/models/{name}/predict', ...json, handler: 'modelPredict' },
  { method: 'post', path: '/models/{name}/batch_predict', ...json, handler: 'modelBatchPredict' },
  { method: 'post', path: '/models/{name}/explain', ...json, handler: 'modelExplain' },
  { method: 'get', path: '/openapi.json', scope: null, handler: 'openapi' },
  { method: 'get', path: '/docs', scope: null, handler: 'docsPage' },
  { method: 'get', path: '/docs/{asset}', scope: null, handler: 'docsAsset' },
  // V2's scopes are its operations' (gRPC's RPCs take the same).
  { method: 'get', path: '/v2', scope: OPERATION_SCOPES.serverMetadata, handler: 'v2ServerMetadata' },
  { method: 'get', path: '/v2/health/live', scope: OPERATION_SCOPES.serverLive, handler: 'v2Live' },
  { method: 'get', path: '/v2/health/ready', scope: OPERATION_SCOPES.serverReady, handler: 'v2Ready' },
  ...['/v2/models/{name}', '/v2/models/{name}/versions/{version}'].flatMap((base): RouteSpec[] => [
    { method: 'get', path: base, scope: OPERATION_SCOPES.modelMetadata, handler: 'v2ModelMetadata' },
    { method: 'get', path: `${base}/ready`, scope: OPERATION_SCOPES.modelReady, handler: 'v2ModelReady' },
    { method: 'post', path: `${base}/infer`, scope: OPERATION_SCOPES.modelInfer, chargesTexts: true, body: raw, handler: 'v2Infer' }
  ]),
  { method: 'post', path: '/v2/repository/index', scope: OPERATION_SCOPES.repositoryIndex, body: raw, handler: 'v2Index' },
  { method: 'post', path: '/v2/repository/models/{name}/load', scope: OPERATION_SCOPES.repositoryLoad, body: raw, handler: 'v2Load' },
  { method: 'post', path: '/v2/repository/models/{name}/unload', scope: OPERATION_SCOPES.repositoryUnload, body: raw, handler: 'v2Unload' }
]

/** The scope `route` needs under `config`; null: open. */
export function scopeOf (route: RouteSpec, config: Pick<Config, 'metricsRequireKey'>): Scope | null {
  return typeof route.scope === 'function' ? route.scope(config) : route.scope
}

/** The route at `path` and `method`, if the table has one. */
export function routeOf (path: string, method: string): RouteSpec | undefined {
  return ROUTES.find(r => r.path === path && r.method === method)
}

/** `path` as Express writes it: `{name}` becomes `:name`. */
export function expressPath (path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1')
}

export function isV2 (route: RouteSpec): boolean {
  return route.path === V2_PREFIX || route.path.startsWith(`${V2_PREFIX}/`)
}

/** The Allow header of each spec path (GET brings HEAD), for its 405s. */
export function allowedMethods (): Map<string, string> {
  const allowed = new Map<string, string[]>()
  for (const route of ROUTES) {
    if (isV2(route)) continue
    const methods = allowed.get(route.path) ?? []
    methods.push(...(route.method === 'get' ? ['GET', 'HEAD'] : ['POST']))
    allowed.set(route.path, methods)
  }
  return new Map([...allowed].map(([path, methods]) => [path, methods.join(', ')]))
}
