/**
 * The Open Inference Protocol V2's operations, written once over typed requests and results
 * (docs/many-models.md, "Open Inference Protocol V2 (REST)"): server and model health and metadata, inference on any
 * served model, and the repository extension. REST (src/http/routes/v2.ts) and gRPC
 * (src/grpc/inference-service.ts) only decode their wire format into these calls and encode
 * what they return; every failure is a ServiceError of the one table, which each transport
 * answers in its own form (src/service/error-answer.ts).
 */
import type { Scope } from '../../access/access-control.js'
import { ServiceError } from '../../errors.js'
import type { Predicted } from '../../pool/classifier-pool.js'
import { withinTime } from '../../pool/request-time.js'
import type { ModelState, ServedModel } from '../../repository/model-repository.js'
import { API_VERSION, type ServiceContext } from '../../service/context.js'
import { poolObserver } from '../../tracing/observers.js'
import type { TraceSpan } from '../../tracing/tracing.js'
import { inferOutputs, needsScores, type InferRequest, type ModelView, type OutputTensor, type TextLimits } from './infer.js'
import { modelTensors, V2_EXTENSIONS, V2_PLATFORM, type TensorMetadata } from './metadata.js'

export interface ServerMetadata {
  readonly name: string
  readonly version: string
  readonly extensions: readonly string[]
}

export interface ModelMetadata {
  readonly name: string
  readonly versions: readonly string[]
  readonly platform: string
  readonly inputs: readonly TensorMetadata[]
  readonly outputs: readonly TensorMetadata[]
  /** The class labels, in the order of the outputs' columns. */
  readonly classes: readonly string[]
  readonly parameters: { readonly classifier: string, readonly vectorizer: string, readonly confidence: string }
}

export interface ModelReadiness {
  readonly name: string
  readonly ready: boolean
}

export interface IndexEntry {
  readonly name: string
  readonly version: string
  readonly state: ModelState
  readonly reason: string
}

/** What an inference call knows of its caller: when it started, and how it pays for its texts. */
export interface InferCaller {
  /** performance.now() when the request arrived: REQUEST_TIMEOUT_MS counts from it. */
  readonly startedAt: number
  /** The request's span, when it is traced: the pool's admission and tasks become spans under it. */
  readonly trace?: TraceSpan | undefined
  /** Charges `n` texts to the caller's key (keys on); throws the refusal. */
  readonly chargeTexts: (n: number) => Promise<void>
  /** Told the model once it is known, and the texts once read (for the log line and counts). */
  readonly onModel?: (model: ServedModel) => void
  readonly onTexts?: (n: number) => void
  /** Aborted by the transport when the caller goes (client gone, gRPC cancel or deadline); REQUEST_TIMEOUT_MS aborts it too. */
  readonly abort?: AbortController
}

/** An inference's typed result: the request as read, the model that answered, its outputs. */
export interface InferResult {
  readonly request: InferRequest
  readonly model: ModelView
  readonly scores: Predicted
  readonly outputs: readonly OutputTensor[]
}

/** Names a model and, optionally, its version (empty or undefined: the one served). */
export interface ModelTarget {
  readonly name: string
  readonly version?: string | undefined
}

/**
 * The key scope each operation needs with keys on, for every transport: liveness, readiness
 * and server metadata stay open (probes carry no key), models' metadata, inference and the
 * index need `predict`, loading and unloading `admin`.
 */
export const OPERATION_SCOPES = Object.freeze({
  serverLive: null,
  serverReady: null,
  serverMetadata: null,
  modelReady: null,
  modelMetadata: 'predict',
  modelInfer: 'predict',
  repositoryIndex: 'predict',
  repositoryLoad: 'admin',
  repositoryUnload: 'admin'
} satisfies Record<string, Scope | null>)

/** What the operations use of the service's context. */
export type V2Context = Pick<ServiceContext, 'config' | 'pool' | 'metrics' | 'repository'>

export class V2Operations {
  readonly #ctx: V2Context
  readonly #limits: TextLimits

  constructor (ctx: V2Context) {
    this.#ctx = ctx
    this.#limits = { maxBatchSize: ctx.config.maxBatchSize, maxTextLength: ctx.config.maxTextLength }
  }

  /** The texts a request may hold: MAX_BATCH_SIZE, MAX_TEXT_LENGTH. */
  get limits (): TextLimits {
    return this.#limits
  }

  serverLive (): { live: boolean } {
    return { live: true }
  }

  /** Ready: a worker can take work and the repository is ready (its start-up loads settled, the default model serving). */
  serverReady (): { ready: boolean } {
    return { ready: this.#ctx.pool.ready && this.#ctx.repository.isReady(this.#ctx.config.strictReadiness) }
  }

  serverMetadata (): ServerMetadata {
    return { name: 'tfidf-serve', version: API_VERSION, extensions: V2_EXTENSIONS }
  }

  /**
   * Whether the model (at that version, if named) serves.
   * @throws ServiceError ERR_NOT_FOUND for a model the repository does not know.
   */
  modelReady ({ name, version }: ModelTarget): ModelReadiness {
    const repository = this.#ctx.repository
    if (repository.entry(name) === undefined) throw repository.unknownModel(name)
    const served = repository.get(name)
    return { name, ready: served !== undefined && (version === undefined || version === '' || version === served.version) }
  }

  /**
   * The model's tensors, versions, classes and estimators.
   * @throws ServiceError ERR_NOT_FOUND, ERR_MODEL_NOT_READY.
   */
  modelMetadata (target: ModelTarget): ModelMetadata {
    const model = this.#serving(target)
    const s = model.status
    return {
      name: model.name,
      versions: this.#ctx.repository.entry(model.name)?.versions ?? [model.version],
      platform: V2_PLATFORM,
      ...modelTensors(s),
      classes: model.labels,
      parameters: { classifier: s.classifier, vectorizer: s.vectorizer, confidence: s.confidence }
    }
  }

  /**
   * Classifies the texts `decode` reads from the transport's message, once the model is known
   * (so an unknown model is reported before a bad body, on every transport), within
   * REQUEST_TIMEOUT_MS of the caller's start.
   * @throws ServiceError ERR_NOT_FOUND, ERR_MODEL_NOT_READY, ERR_V2_INPUT, an access refusal, or the pool's 503s.
   */
  async modelInfer (target: ModelTarget, decode: (limits: TextLimits) => InferRequest, caller: InferCaller): Promise<InferResult> {
    const served = this.#serving(target)
    // The version that answers, held from now until its work settles (docs/many-models.md).
    const pin = this.#ctx.pool.pin(served.key)
    let request: InferRequest
    let scores: Predicted
    try {
      caller.onModel?.(served)
      request = decode(this.#limits)
      caller.onTexts?.(request.texts.length)
      await caller.chargeTexts(request.texts.length)
      // The spec's routes' task: score rows only when an output needs them.
      const observer = caller.trace === undefined ? undefined : poolObserver(caller.trace, served)
      const abort = caller.abort ?? new AbortController()
      scores = await withinTime(this.#ctx.pool.classify(request.texts, this.#ctx.pool.spreadSize(request.texts.length, served.key), served.key, needsScores(request), observer, { pin, signal: abort.signal }), caller.startedAt, this.#ctx.config.requestTimeoutMs, abort)
    } finally {
      pin.release()
    }
    const model = { name: served.name, version: served.version, labels: served.labels }
    const outputs = inferOutputs(request, scores, model)
    this.#ctx.metrics.record(request.texts.length, (performance.now() - caller.startedAt) / 1000)
    return { request, model, scores, outputs }
  }

  /** Every model known (only those serving, with `readyOnly`), by name. */
  repositoryIndex (readyOnly: boolean): IndexEntry[] {
    return this.#ctx.repository.entries()
      .filter(e => !readyOnly || e.served !== null)
      .map(e => ({ name: e.name, version: e.served?.version ?? e.versions[e.versions.length - 1] ?? '', state: e.state, reason: e.reason }))
  }

  /**
   * Loads or reloads the model.
   * @throws ServiceError ERR_NOT_FOUND (no such model), ERR_MODEL_NOT_READY (the load failed, with its reason).
   */
  async repositoryLoad (name: string): Promise<void> {
    // The load's own outcome: an unload queued behind it may already have run (issue 23, defect 4).
    const outcome = await this.#ctx.repository.loadOutcome(name)
    if (!outcome.loaded) throw new ServiceError('ERR_MODEL_NOT_READY', `model ${outcome.name} failed to load: ${outcome.reason}`)
  }

  /**
   * Stops serving the model once its requests in flight are answered.
   * @throws ServiceError ERR_NOT_FOUND.
   */
  async repositoryUnload (name: string): Promise<void> {
    await this.#ctx.repository.unload(name)
  }

  #serving ({ name, version }: ModelTarget): ServedModel {
    return this.#ctx.repository.serving(name, version)
  }
}
