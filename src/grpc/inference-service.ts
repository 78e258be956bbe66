/**
 * `inference.GRPCInferenceService`: the Open Inference Protocol over gRPC, answering as the REST
 * V2 routes do (src/http/routes/v2.ts) from the same pool, repository, limits and timeouts:
 * health, server and model metadata, inference on any served model, and Triton's repository
 * RPCs (index, load, unload).
 */
import { status, type sendUnaryData, type ServerUnaryCall, type UntypedServiceImplementation } from '@grpc/grpc-js'
import type { ApiKey, Scope } from '../access/access-control.js'
import { AccessDenied } from '../access/denial.js'
import { ServiceError } from '../errors.js'
import { withinTime } from '../pool/request-time.js'
import { API_VERSION, type AppContext } from '../http/context.js'
import { modelTensors, V2_EXTENSIONS, V2_PLATFORM } from '../protocol/v2/metadata.js'
import type { ServedModel } from '../repository/model-repository.js'
import { inferResponseMessage, readInferRequest, type ModelInferRequest } from './infer-messages.js'
import { GrpcStatusError, toGrpcError } from './status.js'

/** What the gRPC services use of the app's context: the very objects REST uses. */
export type GrpcContext = Pick<AppContext, 'config' | 'pool' | 'logger' | 'metrics' | 'repository'> & Partial<Pick<AppContext, 'prometheus' | 'access'>>

/**
 * The scope each RPC needs with keys on, as REST's routes: liveness, readiness and server
 * metadata stay open (probes carry no key), models' metadata and inference need `predict`,
 * loading and unloading `admin`.
 */
const SCOPES: Readonly<Record<string, Scope | null>> = {
  ServerLive: null,
  ServerReady: null,
  ModelReady: null,
  ServerMetadata: null,
  ModelMetadata: 'predict',
  ModelInfer: 'predict',
  RepositoryIndex: 'predict',
  RepositoryModelLoad: 'admin',
  RepositoryModelUnload: 'admin'
}

/** A handler of one RPC; `never` takes each handler's own request type (and the call's info). */
type Handler = (request: never, info: never) => unknown

/** The model an RPC names, for its log line and counts (set by the handlers that serve one). */
interface CallInfo {
  model?: ServedModel
  texts?: number
  /** The call's API key, with keys on. */
  key?: ApiKey
}

/** A metadata value as a string (the first, if sent more than once). */
function metadataValue (call: ServerUnaryCall<unknown, unknown>, name: string): string | undefined {
  const value = call.metadata.get(name)[0]
  return value === undefined ? undefined : value.toString()
}

/** With keys on, the call's key must hold the RPC's scope and be within its request rate. */
async function admit (ctx: GrpcContext, method: string, call: ServerUnaryCall<unknown, unknown>, info: CallInfo): Promise<void> {
  const scope = SCOPES[method]
  if (ctx.access === undefined || scope === null || scope === undefined) return
  const decision = await ctx.access.admit({ authorization: metadataValue(call, 'authorization'), apiKey: metadataValue(call, 'x-api-key') }, scope)
  info.key = decision.key
  if (!decision.ok) throw new AccessDenied(decision)
}

/**
 * A unary handler: its value is the response, its error the status (src/grpc/status.ts); one
 * log line per call, as REST's request line (rpc, status, duration, model, texts), and the
 * per-model count of the calls that reached a model.
 */
function unary (ctx: GrpcContext, method: string, handle: Handler): (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => void {
  return (call, callback) => {
    const started = performance.now()
    const info: CallInfo = {}
    const done = (code: number): void => {
      const pino = ctx.logger.pino
      const level = code === status.OK ? 'info' : code === status.UNAVAILABLE ? 'warn' : code === status.INTERNAL ? 'error' : 'info'
      if (pino?.isLevelEnabled(level) === true) {
        pino[level]({ rpc: method, status: status[code], duration_ms: Math.round((performance.now() - started) * 1000) / 1000, model: info.model?.name, key: info.key?.id, texts: info.texts, client: call.getPeer() }, 'grpc call')
      }
      if (info.model !== undefined) ctx.prometheus?.modelRequests.inc({ model: info.model.name, version: info.model.version, status: `grpc_${status[code]}` })
    }
    admit(ctx, method, call, info).then(() => handle(call.request as never, info as never)).then(
      response => { done(status.OK); callback(null, response) },
      (err: unknown) => {
        const grpcError = toGrpcError(err, ctx.logger, method)
        done(grpcError.code ?? status.UNKNOWN)
        callback(grpcError)
      }
    )
  }
}

/** Triton's repository RPCs name a repository; there is one, so only the empty name (any) is served. */
function checkRepositoryName (name: string): void {
  if (name !== '') throw new GrpcStatusError(status.UNIMPLEMENTED, `named repositories are not supported (got ${JSON.stringify(name)}); leave repository_name empty`)
}

export function createInferenceService (ctx: GrpcContext): UntypedServiceImplementation {
  const limits = { maxBatchSize: ctx.config.maxBatchSize, maxTextLength: ctx.config.maxTextLength }
  const handlers: Record<string, Handler> = {
    ServerLive: () => ({ live: true }),
    ServerReady: () => ({ ready: ctx.pool.ready && ctx.repository.default !== undefined }),
    ModelReady: (req: { name: string, version: string }) => {
      if (ctx.repository.entry(req.name) === undefined) throw new ServiceError('ERR_NOT_FOUND', `no model named ${JSON.stringify(req.name)}`)
      const served = ctx.repository.get(req.name)
      return { ready: served !== undefined && (req.version === '' || req.version === served.version) }
    },
    ServerMetadata: () => ({ name: 'tfidf-serve', version: API_VERSION, extensions: [...V2_EXTENSIONS] }),
    ModelMetadata: (req: { name: string, version: string }) => {
      const model = ctx.repository.serving(req.name, req.version)
      const s = model.status
      return {
        name: model.name,
        versions: ctx.repository.entry(model.name)?.versions ?? [model.version],
        platform: V2_PLATFORM,
        ...modelTensors(s),
        // REST's `classes` and `parameters`, as the map of strings gRPC has for them.
        properties: { classes: JSON.stringify(model.labels), classifier: s.classifier, vectorizer: s.vectorizer, confidence: s.confidence }
      }
    },
    ModelInfer: async (req: ModelInferRequest, info: CallInfo) => {
      const started = performance.now()
      const model = ctx.repository.serving(req.model_name, req.model_version)
      info.model = model
      const request = readInferRequest(req, limits)
      info.texts = request.texts.length
      if (ctx.access !== undefined && info.key !== undefined) {
        const decision = await ctx.access.chargeTexts(info.key, request.texts.length)
        if (!decision.ok) throw new AccessDenied(decision)
      }
      const scores = await withinTime(ctx.pool.score(request.texts, 10, model.key), started, ctx.config.requestTimeoutMs)
      const response = inferResponseMessage(request, scores, { name: model.name, version: model.version, labels: model.labels })
      ctx.metrics.record(request.texts.length, (performance.now() - started) / 1000)
      return response
    },
    RepositoryIndex: (req: { repository_name: string, ready: boolean }) => {
      checkRepositoryName(req.repository_name)
      const entries = ctx.repository.entries().filter(e => !req.ready || e.served !== null)
      return { models: entries.map(e => ({ name: e.name, version: e.served?.version ?? e.versions[e.versions.length - 1] ?? '', state: e.state, reason: e.reason })) }
    },
    RepositoryModelLoad: async (req: { repository_name: string, model_name: string }) => {
      checkRepositoryName(req.repository_name)
      const outcome = await ctx.repository.loadOutcome(req.model_name)
      if (!outcome.loaded) throw new ServiceError('ERR_MODEL_NOT_READY', `model ${outcome.name} failed to load: ${outcome.reason}`)
      return {}
    },
    RepositoryModelUnload: async (req: { repository_name: string, model_name: string }) => {
      checkRepositoryName(req.repository_name)
      await ctx.repository.unload(req.model_name)
      return {}
    }
  }
  return Object.fromEntries(Object.entries(handlers).map(([name, handle]) => [name, unary(ctx, name, handle)]))
}
