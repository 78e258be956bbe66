/**
 * The models a service serves and their lifecycle: each is LOADING, READY, UNLOADING or
 * UNAVAILABLE (with its one-line reason), Triton's and MLServer's states. A model (re)loads
 * beside the version it replaces, under a key of its own: requests go to the new one only
 * once every worker has created it, those already running finish on the old one, which is
 * dropped after its last task. A load that fails leaves the old version serving.
 */
import { ServiceError } from '../errors.js'
import { displayLabels } from '../labels.js'
import type { ClassifierPool, ModelSpec } from '../pool/classifier-pool.js'
import { DEFAULT_MODEL_KEY, type ModelStatus } from '../pool/messages.js'
import { readModelFolder, scanRepository, type FoundModel } from './layout.js'

export type ModelState = 'LOADING' | 'READY' | 'UNLOADING' | 'UNAVAILABLE'

/** A model as the routes use it: the pool key of its served version, its status and labels. */
export interface ServedModel {
  readonly name: string
  readonly version: string
  readonly key: string
  readonly status: ModelStatus
  /** The labels the API shows, in class order. */
  readonly labels: readonly string[]
}

export interface ModelEntry {
  readonly name: string
  state: ModelState
  /** Why the model is UNAVAILABLE (or why its last reload failed while the old version serves). */
  reason: string
  /** The versions on disk, and the one served (or being loaded). */
  versions: readonly string[]
  served: ServedModel | null
  /** Where it comes from: its folder in the repository, or the files given for the default model. */
  readonly folder: string | null
  spec: ModelSpec | null
}

/**
 * What one load did, taken when that load ended: never the live entry, which a change queued
 * behind the load (an unload) may have altered by the time the caller reads it.
 */
export type LoadOutcome =
  | { readonly loaded: true, readonly name: string, readonly version: string }
  /** `reason` is never empty; a failed reload leaves the old version serving. */
  | { readonly loaded: false, readonly name: string, readonly version: string | null, readonly reason: string }

export type RepositoryEvent = {
  readonly kind: 'loaded' | 'unloaded' | 'load_failed'
  readonly model: string
  readonly version: string | null
  readonly reason?: string
  readonly seconds?: number
  /** A load that replaced a version already serving. */
  readonly reload?: boolean
  /** What the load noted, a log line each (a hint to set `dense_rows`, a vectorizer file ignored, the compiled-model cache's hit or miss), when anything. */
  readonly notes?: readonly string[]
}

export interface RepositoryEvents {
  /** A model was loaded (or reloaded), unloaded, or failed to load (the old version, if any, still serves); `seconds`: how long that took. */
  onEvent?: (event: RepositoryEvent) => void
}

export class ModelRepository {
  readonly #pool: ClassifierPool
  readonly #entries = new Map<string, ModelEntry>()
  readonly #root: string | null
  readonly #defaultName: string
  readonly #labelNames: readonly string[] | null
  readonly #events: RepositoryEvents
  #loads = 0
  /** Lifecycle events by model and kind, for the metrics. */
  readonly #eventCounts = new Map<string, { model: string, event: string, count: number }>()
  /** One lifecycle change at a time per model: a reload waits for the one before it. */
  readonly #queue = new Map<string, Promise<unknown>>()
  /** Whether every model found at start-up has had its first load settle (READY or UNAVAILABLE). */
  #settled: boolean
  /** Models unloaded on request: UNAVAILABLE by choice, which strict readiness does not count. */
  readonly #unloaded = new Set<string>()

  /**
   * @param pool a pool already serving the default model under DEFAULT_MODEL_KEY.
   * @param labelNames LABEL_NAMES, which renames the default model's classes only.
   */
  constructor (pool: ClassifierPool, options: { root: string | null, defaultName: string, defaultVersion: string, defaultSpec: ModelSpec, defaultFolder: string | null, labelNames: readonly string[] | null } & RepositoryEvents) {
    this.#pool = pool
    this.#root = options.root
    this.#defaultName = options.defaultName
    this.#labelNames = options.labelNames
    // A repository of one model is settled at once; a folder's other models, once loadAll has run.
    this.#settled = options.root === null
    this.#events = {
      onEvent: event => {
        const key = `${event.model}\u0000${event.kind}`
        const c = this.#eventCounts.get(key) ?? { model: event.model, event: event.kind, count: 0 }
        c.count++
        this.#eventCounts.set(key, c)
        options.onEvent?.(event)
      }
    }
    const served = this.#served(options.defaultName, options.defaultVersion, DEFAULT_MODEL_KEY, pool.model)
    this.#entries.set(options.defaultName, { name: options.defaultName, state: 'READY', reason: '', versions: [options.defaultVersion], served, folder: options.defaultFolder, spec: options.defaultSpec })
  }

  get defaultName (): string {
    return this.#defaultName
  }

  /** The default model, which the spec's routes serve. */
  get default (): ServedModel | undefined {
    return this.get(this.#defaultName)
  }

  /**
   * Whether the server is ready, as OIP V2's server readiness means it (what a Kubernetes
   * readinessProbe asks): every model found at start-up has settled (READY or UNAVAILABLE) and
   * the default model serves; `strict` (STRICT_READINESS) also wants every model serving but
   * those unloaded on request. Models found later (polling, a load) do not hold it back.
   */
  isReady (strict: boolean): boolean {
    if (!this.#settled || this.default === undefined) return false
    if (!strict) return true
    for (const entry of this.#entries.values()) if (entry.served === null && !this.#unloaded.has(entry.name)) return false
    return true
  }

  /** The served version of `name` (whatever its state: a reloading model still serves), or undefined. */
  get (name: string): ServedModel | undefined {
    return this.#entries.get(name)?.served ?? undefined
  }

  /**
   * The served version of `name`, for a request; `version` (when given and not empty) must be it.
   * @throws ServiceError ERR_NOT_FOUND (404) for an unknown model or a version not served,
   * ERR_MODEL_NOT_READY (503) for a model not loaded.
   */
  serving (name: string, version?: string): ServedModel {
    const served = this.get(name)
    if (served !== undefined) {
      if (version !== undefined && version !== '' && version !== served.version) throw new ServiceError('ERR_NOT_FOUND', `model ${name} has no version ${version} being served (it serves version ${served.version})`)
      return served
    }
    const entry = this.#entries.get(name)
    if (entry === undefined) throw this.unknownModel(name)
    throw new ServiceError('ERR_MODEL_NOT_READY', `model ${name} is ${entry.state}${entry.reason === '' ? '' : `: ${entry.reason}`}`)
  }

  /** The 404 for a name no model has: it lists the names there are, so a caller sees what to ask for. */
  unknownModel (name: string, where = ''): ServiceError {
    const names = [...this.#entries.keys()].sort()
    return new ServiceError('ERR_NOT_FOUND', `no model named ${JSON.stringify(name)}${where} (models: ${names.join(', ') || 'none'})`)
  }

  entry (name: string): ModelEntry | undefined {
    return this.#entries.get(name)
  }

  /** Lifecycle events so far, by model and kind. */
  eventCounts (): ReadonlyArray<{ model: string, event: string, count: number }> {
    return [...this.#eventCounts.values()]
  }

  /** Every model known, by name. */
  entries (): ModelEntry[] {
    return [...this.#entries.values()].sort((a, b) => a.name.localeCompare(b.name))
  }

  #served (name: string, version: string, key: string, status: ModelStatus): ServedModel {
    return { name, version, key, status, labels: displayLabels(status.classes, name === this.#defaultName ? this.#labelNames : null) }
  }

  /** Loads every model folder of the repository not yet known (start-up), side by side; failures become UNAVAILABLE. */
  async loadAll (): Promise<void> {
    if (this.#root === null) return
    try {
      const found = scanRepository(this.#root).filter(f => !this.#entries.has(f.name))
      // Known before any loads, so none is missed while the others load.
      for (const f of found) this.#entries.set(f.name, this.#newEntry(f))
      await Promise.all(found.map(async f => await this.#enqueue(f.name, async () => await this.#loadFound(f))))
    } finally {
      this.#settled = true
    }
  }

  /**
   * Loads or reloads `name` from the repository (the index's load, SIGHUP, polling), and
   * returns what that load did. A load that succeeded says so even when an unload queued
   * behind it has run by the time the caller reads the answer.
   * @throws ServiceError ERR_NOT_FOUND when the repository has no such model.
   */
  async loadOutcome (name: string): Promise<LoadOutcome> {
    return await this.#enqueue(name, async () => {
      const known = this.#entries.get(name)
      const folder = known?.folder ?? (this.#root === null ? null : this.#findFolder(name))
      if (folder === null && known?.spec == null) throw this.unknownModel(name, ' in the repository')
      const found: FoundModel = folder !== null ? readModelFolder(folder, this.#root) : { name, version: known!.served?.version ?? '1', versions: known!.versions, spec: known!.spec!, folder: '' }
      return await this.#loadFound({ ...found, name })
    })
  }

  /**
   * Loads or reloads `name`, then returns its live entry. The entry is read after the load,
   * so a change queued behind it (an unload) may already show: to answer a load request, use
   * `loadOutcome`.
   * @throws ServiceError ERR_NOT_FOUND when the repository has no such model.
   */
  async load (name: string): Promise<ModelEntry> {
    await this.loadOutcome(name)
    return this.#entries.get(name)!
  }

  /** Loads or reloads the model of a repository folder (polling found it new or changed). */
  async loadFolder (folder: string): Promise<ModelEntry> {
    const found = readModelFolder(folder, this.#root)
    await this.#enqueue(found.name, async () => await this.#loadFound(found))
    return this.#entries.get(found.name)!
  }

  /** Stops serving `name`: waits for its requests in flight, then frees it. */
  async unload (name: string): Promise<ModelEntry> {
    return await this.#enqueue(name, async () => {
      const entry = this.#entries.get(name)
      if (entry === undefined) throw this.unknownModel(name)
      const started = performance.now()
      const served = entry.served
      entry.state = 'UNLOADING'
      entry.served = null
      if (served !== null) await this.#pool.removeModel(served.key)
      entry.state = 'UNAVAILABLE'
      entry.reason = 'unloaded'
      this.#unloaded.add(name)
      this.#events.onEvent?.({ kind: 'unloaded', model: name, version: served?.version ?? null, seconds: (performance.now() - started) / 1000 })
      return entry
    })
  }

  /** Reloads every model of the repository and loads new folders (SIGHUP); a failure leaves the old version serving. */
  async reloadAll (): Promise<void> {
    const names = new Set([...this.#entries.keys(), ...(this.#root === null ? [] : scanRepository(this.#root, null).map(f => f.name))])
    await Promise.all([...names].map(async name => await this.load(name).catch(() => {})))
  }

  #findFolder (name: string): string | null {
    if (this.#root === null) return null
    return scanRepository(this.#root, null).find(f => f.name === name)?.folder ?? null
  }

  async #enqueue<T> (name: string, change: () => Promise<T>): Promise<T> {
    const before = this.#queue.get(name) ?? Promise.resolve()
    const next = before.catch(() => {}).then(change)
    this.#queue.set(name, next)
    try {
      return await next
    } finally {
      if (this.#queue.get(name) === next) this.#queue.delete(name)
    }
  }

  #newEntry (found: FoundModel): ModelEntry {
    return { name: found.name, state: 'LOADING', reason: '', versions: found.versions, served: null, folder: found.folder === '' ? null : found.folder, spec: null }
  }

  async #loadFound (found: FoundModel): Promise<LoadOutcome> {
    const entry: ModelEntry = this.#entries.get(found.name) ?? this.#newEntry(found)
    this.#entries.set(found.name, entry)
    this.#unloaded.delete(found.name)
    const old = entry.served
    if (old === null) entry.state = 'LOADING'
    const started = performance.now()
    if (found.version === null) return this.#failed(entry, found.problem, null, started)
    const key = `${found.name}@${found.version}#${++this.#loads}`
    try {
      const status = await this.#pool.addModel(key, found.spec)
      entry.served = this.#served(found.name, found.version, key, status)
      entry.spec = found.spec
      entry.versions = found.versions
      entry.state = 'READY'
      entry.reason = ''
      this.#events.onEvent?.({ kind: 'loaded', model: found.name, version: found.version, seconds: (performance.now() - started) / 1000, reload: old !== null, ...(status.notes.length > 0 ? { notes: status.notes } : {}) })
    } catch (err) {
      return this.#failed(entry, err instanceof Error ? err.message : String(err), found.version, started)
    }
    // The old version finishes what it has, then goes.
    if (old !== null) await this.#pool.removeModel(old.key)
    return { loaded: true, name: found.name, version: found.version }
  }

  #failed (entry: ModelEntry, problem: string, version: string | null, started: number): LoadOutcome {
    // An answer of "failed to load: " says nothing: a failure always has words.
    const reason = problem.trim() === '' ? 'the load failed and gave no reason' : problem
    entry.reason = reason
    if (entry.served === null) entry.state = 'UNAVAILABLE'
    this.#events.onEvent?.({ kind: 'load_failed', model: entry.name, version, reason, seconds: (performance.now() - started) / 1000, reload: entry.served !== null })
    return { loaded: false, name: entry.name, version, reason }
  }
}
