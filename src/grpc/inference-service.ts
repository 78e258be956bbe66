/**
 * `inference.GRPCInferenceService`: the Open Inference Protocol over gRPC. Each RPC decodes its
 * message into a call of the typed operations REST calls too (src/protocol/v2/operations.ts)
 * and encodes what they return: health, server and model metadata, inference on any served
 * model, and Triton's repository RPCs (index, load, unload).
 */
import { Metadata, status, type sendUnaryData, type ServerUnaryCall, type UntypedServiceImplementation } from '@grpc/grpc-js'
import type { ApiKey, Scope } from '../access/access-control.js'
import { AccessDenied } from '../access/denial.js'
import { ServiceError } from '../errors.js'
import { OPERATION_SCOPES, V2Operations, type ModelTarget } from '../protocol/v2/operations.js'
import type { ServedModel } from '../repository/model-repository.js'
import type { ServiceContext } from '../service/context.js'
import { inferResponseMessage, readInferRequest, type ModelInferRequest } from './infer-messages.js'
import { toGrpcError } from './status.js'
import { tracedAdmit, tracedCharge } from '../tracing/observers.js'
import type { RequestTrace } from '../tracing/tracing.js'

/** What the gRPC services use of the app's context: the very objects REST uses. */
export type GrpcContext = Pick<ServiceContext, 'config' | 'pool' | 'logger' | 'metrics' | 'repository'> & Partial<Pick<ServiceContext, 'prometheus' | 'access' | 'tracing'>>

/** The service's full name, as RPC spans name it. */
const SERVICE = 'inference.GRPCInferenceService'

/** The scope each RPC needs with keys on: its operation's, as REST's routes have it. */
const SCOPES: Readonly<Record<string, Scope | null>> = {
  ServerLive: OPERATION_SCOPES.serverLive,
  ServerReady: OPERATION_SCOPES.serverReady,
  ModelReady: OPERATION_SCOPES.modelReady,
  ServerMetadata: OPERATION_SCOPES.serverMetadata,
  ModelMetadata: OPERATION_SCOPES.modelMetadata,
  ModelInfer: OPERATION_SCOPES.modelInfer,
  RepositoryIndex: OPERATION_SCOPES.repositoryIndex,
  RepositoryModelLoad: OPERATION_SCOPES.repositoryLoad,
  RepositoryModelUnload: OPERATION_SCOPES.repositoryUnload
}

/** A handler of one RPC; `never` takes each handler's own request type (and the call's info). */
type Handler = (request: never, info: never) => unknown

/** The model an RPC names, for its log line and counts (set by the handlers that serve one). */
interface CallInfo {
  /** performance.now() when the call arrived. */
  readonly startedAt: number
  model?: ServedModel
  texts?: number
  /** The call's API key, with keys on. */
  key?: ApiKey
  /** The call's span, when it is traced. */
  trace?: RequestTrace
  /** Aborted when the client cancels the call or its deadline passes (grpc-js's 'cancelled'): the pool drops its work not started. */
  readonly abort: AbortController
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
  const decision = await tracedAdmit(ctx.access, info.trace, { authorization: metadataValue(call, 'authorization'), apiKey: metadataValue(call, 'x-api-key') }, scope)
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
    const info: CallInfo = { startedAt: started, abort: new AbortController() }
    call.once('cancelled', () => { info.abort.abort() })
    // A sampled call's span continues the caller's trace (its metadata); the answer's metadata tells ours.
    const trace = ctx.tracing?.startGrpc({ service: SERVICE, method, metadata: key => metadataValue(call, key), peer: () => call.getPeer(), startedAt: started })
    if (trace !== undefined) {
      info.trace = trace
      const metadata = new Metadata()
      metadata.set('traceparent', trace.traceparent)
      call.sendMetadata(metadata)
    }
    const done = (code: number, err?: unknown): void => {
      const pino = ctx.logger.pino
      const level = code === status.OK ? 'info' : code === status.UNAVAILABLE ? 'warn' : code === status.INTERNAL ? 'error' : 'info'
      if (pino?.isLevelEnabled(level) === true) {
        pino[level]({ rpc: method, status: status[code], duration_ms: Math.round((performance.now() - started) * 1000) / 1000, model: info.model?.name, key: info.key?.id, texts: info.texts, client: call.getPeer(), trace_id: trace?.traceId, span_id: trace?.spanId }, 'grpc call')
      }
      if (info.model !== undefined) ctx.prometheus?.modelRequests.inc({ model: info.model.name, version: info.model.version, status: `grpc_${status[code]}` })
      trace?.finish({ grpcCode: code, error: err instanceof ServiceError ? err.code : undefined })
    }
    admit(ctx, method, call, info).then(() => handle(call.request as never, info as never)).then(
      response => { done(status.OK); callback(null, response) },
      (err: unknown) => {
        const grpcError = toGrpcError(err, ctx.logger, method)
        done(grpcError.code ?? status.UNKNOWN, err)
        callback(grpcError)
      }
    )
  }
}

/** Triton's repository RPCs name a repository; there is one, so only the empty name (any) is served. */
function checkRepositoryName (name: string): void {
  if (name !== '') throw new ServiceError('ERR_UNIMPLEMENTED', `named repositories are not supported (got ${JSON.stringify(name)}); leave repository_name empty`)
}

/** Optional fields of proto3 arrive as '' when unset: no version named. */
const target = (req: { name: string, version: string }): ModelTarget => ({ name: req.name, version: req.version })

export function createInferenceService (ctx: GrpcContext): UntypedServiceImplementation {
  const v2 = new V2Operations(ctx)
  const handlers: Record<string, Handler> = {
    ServerLive: () => v2.serverLive(),
    ServerReady: () => v2.serverReady(),
    ModelReady: (req: { name: string, version: string }) => ({ ready: v2.modelReady(target(req)).ready }),
    ServerMetadata: () => {
      const m = v2.serverMetadata()
      return { ...m, extensions: [...m.extensions] }
    },
    ModelMetadata: (req: { name: string, version: string }) => {
      const { classes, parameters, ...metadata } = v2.modelMetadata(target(req))
      // REST's `classes` and `parameters`, as the map of strings gRPC has for them.
      return { ...metadata, properties: { classes: JSON.stringify(classes), ...parameters } }
    },
    ModelInfer: async (req: ModelInferRequest, info: CallInfo) => {
      const access = ctx.access
      const result = await v2.modelInfer({ name: req.model_name, version: req.model_version }, limits => readInferRequest(req, limits), {
        startedAt: info.startedAt,
        trace: info.trace,
        chargeTexts: async n => {
          if (access === undefined || info.key === undefined) return
          const decision = await tracedCharge(access, info.trace, info.key, n)
          if (!decision.ok) throw new AccessDenied(decision)
        },
        onModel: model => { info.model = model },
        onTexts: n => { info.texts = n },
        abort: info.abort
      })
      return inferResponseMessage(result.request, result.outputs, result.model)
    },
    RepositoryIndex: (req: { repository_name: string, ready: boolean }) => {
      checkRepositoryName(req.repository_name)
      return { models: v2.repositoryIndex(req.ready) }
    },
    RepositoryModelLoad: async (req: { repository_name: string, model_name: string }) => {
      checkRepositoryName(req.repository_name)
      await v2.repositoryLoad(req.model_name)
      return {}
    },
    RepositoryModelUnload: async (req: { repository_name: string, model_name: string }) => {
      checkRepositoryName(req.repository_name)
      await v2.repositoryUnload(req.model_name)
      return {}
    }
  }
  return Object.fromEntries(Object.entries(handlers).map(([name, handle]) => [name, unary(ctx, name, handle)]))
}
