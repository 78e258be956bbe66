/**
 * A model's settings file, `model-settings.json` (MLServer's file name and shape, so an
 * MLServer repository stays valid): MLServer's `name` and `parameters.uri`/`version`, and
 * tfidf-serve's own keys under `parameters.extra.tfidf_serve`: the text preprocessing the
 * app did in Python (declared steps), the module of the app's own functions ported to
 * JavaScript, the label names, and which files hold the model. Parsed once into a frozen,
 * typed object, as config.ts does for the environment; checked by one ajv schema, every
 * problem reported at once in one line naming the file.
 */
import type { Ajv, ErrorObject } from 'ajv'
import { createRequire } from 'node:module'
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { ServiceError } from '../errors.js'
import { TEXT_STEP_SCHEMAS, WORD_STEP_SCHEMAS, type StepSpec } from './step-schema.js'

export type { StepSpec } from './step-schema.js'

/** Where a model's class names come from: a mapping by the class as Python prints it, or a LabelEncoder file. */
export type LabelSource = { readonly map: Readonly<Record<string, string>> } | { readonly file: string }

export interface ModelSettings {
  /** The settings file (absolute), for messages. */
  readonly file: string
  /** MLServer's `name`, else the folder's name. */
  readonly name: string
  /** MLServer's `name` as the file writes it; null when it writes none. */
  readonly declaredName: string | null
  readonly version: string | null
  /** The model file and vectorizer file(s), absolute; null when the settings do not say. */
  readonly model: string | null
  readonly vectorizers: readonly string[]
  readonly preprocess: readonly StepSpec[]
  /** The module of the app's functions (absolute), or null. */
  readonly functions: string | null
  readonly labels: LabelSource | null
  /** Columns the app appended to the vectorizer's row (scipy hstack), each a function of the functions module, in order. */
  readonly columns: ReadonlyArray<{ readonly function: string, readonly width: number }>
  /** MLServer's adaptive batching, `max_batch_size` and `max_batch_time` (seconds), as far as the file sets them. */
  readonly batching: ModelBatching | null
  /** A model made of other models (`ensemble`), or null. */
  readonly ensemble: EnsembleSettings | null
  /** The most of the pool's workers this model's tasks may hold at once (`max_workers`), or null for the pool's default. */
  readonly maxWorkers: number | null
  /** The app feeds its XGBClassifier dense rows (`.toarray()`): an absent word is the value 0, not missing. */
  readonly denseRows: boolean
  /** An NLTK data folder (absolute) searched before NLTK's own (`nltk_data`), or null. */
  readonly nltkData: string | null
  /** Where Sastrawi's word lists are (`sastrawi`), paths absolute, or null. */
  readonly sastrawi: SastrawiFiles | null
}

/** Sastrawi's lists: its installed package folder (the dictionary inside it), or the files themselves. */
export interface SastrawiFiles {
  readonly package: string | null
  readonly dictionary: string | null
  readonly stopwords: string | null
}

/** How an ensemble's answer is made of its members' answers. */
export type CombineRule = 'vote' | 'mean' | 'join'
/** Which label a tied vote gives: the first member's vote among the tied (Counter's most_common), or the first in class order. */
export type TieRule = 'first' | 'lowest'

/**
 * A member: a model file of the folder (with the folder's settings, as served alone; `labels`,
 * when it names its own, replace the settings'), or another model of the repository by name
 * (with its own settings, labels included).
 */
export type EnsembleMemberSettings =
  | { readonly kind: 'file', readonly name: string, readonly weight: number, readonly model: string, readonly vectorizers: readonly string[], readonly labels?: LabelSource }
  | { readonly kind: 'model', readonly name: string, readonly weight: number, readonly model: string }

export interface EnsembleSettings {
  readonly combine: CombineRule
  /** A vote's tie rule; null for the other rules. */
  readonly ties: TieRule | null
  /** What a join puts between the members' labels. */
  readonly separator: string
  readonly members: readonly EnsembleMemberSettings[]
}

/** A model's own adaptive batching; what it leaves out comes from ADAPTIVE_BATCH_*. */
export interface ModelBatching {
  readonly maxTexts?: number
  readonly maxWaitMs?: number
}

/** The key under `parameters.extra` that holds tfidf-serve's own settings. */
export const SETTINGS_KEY = 'tfidf_serve'
export const SETTINGS_FILE = 'model-settings.json'

/** A model's class names: a mapping by the class as Python prints it, or a LabelEncoder file. */
const LABELS_SCHEMA = {
  oneOf: [
    { type: 'object', required: ['file'], additionalProperties: false, properties: { file: { type: 'string', minLength: 1 } } },
    { type: 'object', propertyNames: { not: { const: 'file' } }, additionalProperties: { type: 'string', minLength: 1 }, minProperties: 1 }
  ]
} as const

const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    max_batch_size: { type: 'integer', minimum: 1, maximum: 100000 },
    max_batch_time: { type: 'number', minimum: 0, maximum: 60 },
    parameters: {
      type: 'object',
      properties: {
        uri: { type: 'string' },
        version: { type: ['string', 'number'] },
        extra: {
          type: 'object',
          properties: {
            [SETTINGS_KEY]: {
              type: 'object',
              additionalProperties: false,
              properties: {
                model: { type: 'string', minLength: 1 },
                vectorizer: { oneOf: [{ type: 'string', minLength: 1 }, { type: 'array', items: { type: 'string', minLength: 1 } }] },
                preprocess: { type: 'array', items: { type: 'object', required: ['op'], properties: { op: { type: 'string' } } } },
                functions: { type: 'string', minLength: 1 },
                dense_rows: { type: 'boolean' },
                nltk_data: { type: 'string', minLength: 1 },
                sastrawi: {
                  oneOf: [
                    { type: 'string', minLength: 1 },
                    { type: 'object', additionalProperties: false, minProperties: 1, properties: { package: { type: 'string', minLength: 1 }, dictionary: { type: 'string', minLength: 1 }, stopwords: { type: 'string', minLength: 1 } } }
                  ]
                },
                columns: {
                  type: 'array',
                  items: { type: 'object', required: ['function', 'width'], additionalProperties: false, properties: { function: { type: 'string', minLength: 1 }, width: { type: 'integer', minimum: 1 } } }
                },
                ensemble: {
                  type: 'object',
                  required: ['combine', 'members'],
                  additionalProperties: false,
                  properties: {
                    combine: { enum: ['vote', 'mean', 'join'] },
                    ties: { enum: ['first', 'lowest'] },
                    separator: { type: 'string' },
                    members: {
                      type: 'array',
                      minItems: 2,
                      items: {
                        type: 'object',
                        additionalProperties: false,
                        properties: {
                          file: { type: 'string', minLength: 1 },
                          model: { type: 'string', minLength: 1 },
                          vectorizer: { oneOf: [{ type: 'string', minLength: 1 }, { type: 'array', items: { type: 'string', minLength: 1 } }] },
                          name: { type: 'string', minLength: 1 },
                          weight: { type: 'number', exclusiveMinimum: 0 },
                          labels: LABELS_SCHEMA
                        }
                      }
                    }
                  }
                },
                labels: LABELS_SCHEMA,
                max_workers: { type: 'integer', minimum: 1, maximum: 1024 }
              }
            }
          }
        }
      }
    }
  }
} as const

type Validate = ReturnType<Ajv['compile']>

// Compiled on first use: a service with no settings file never pays for them. ajv itself is
// loaded then too, so the decoding thread and the workers of such a service never load it.
let ajv: Ajv | undefined
const compiled = new Map<object, Validate>()
function validator (schema: object): Validate {
  ajv ??= new (createRequire(import.meta.url)('ajv') as typeof import('ajv')).Ajv({ allErrors: true, strict: false, validateSchema: false, verbose: true })
  let v = compiled.get(schema)
  if (v === undefined) {
    v = ajv.compile(schema)
    compiled.set(schema, v)
  }
  return v
}

/** Checks each step against its op's schema, so a message names the step and what is wrong with it. */
function checkSteps (steps: ReadonlyArray<{ op: string, steps?: unknown }>, schemas: ReadonlyMap<string, object>, where: string): string | undefined {
  for (const [i, s] of steps.entries()) {
    const name = `${where} ${i + 1} (${s.op})`
    const schema = schemas.get(s.op)
    if (schema === undefined) return `${name}: unknown op; known: ${[...schemas.keys()].join(', ')}`
    const check = validator(schema)
    if (!check(s)) return `${name}: ${describeErrors(check.errors ?? []).replace(/^the file /, '')}`
    if (s.op === 'words') {
      const inner = checkSteps(s.steps as Array<{ op: string }>, WORD_STEP_SCHEMAS, `${name} word step`)
      if (inner !== undefined) return inner
    }
  }
  return undefined
}

/**
 * Declared preprocessing steps checked as a settings file's are (a compiled model carries them
 * already parsed): what is wrong with them (one line), or undefined.
 */
export function preprocessProblem (steps: unknown): string | undefined {
  if (!Array.isArray(steps) || !steps.every(s => s !== null && typeof s === 'object' && typeof (s as { op?: unknown }).op === 'string')) return 'preprocess is not a list of steps'
  return checkSteps(steps as Array<{ op: string }>, TEXT_STEP_SCHEMAS, 'preprocess step')
}

function problem (file: string, detail: string): ServiceError {
  return new ServiceError('ERR_CONFIG_INVALID', `invalid model settings: ${detail}`, { file })
}

/** " (known: a, b)": the keys the object's schema allows, for an unknown key (ajv's `verbose` keeps the schema). */
function knownKeys (e: ErrorObject): string {
  const properties = (e.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties
  return properties === undefined ? '' : ` (known: ${Object.keys(properties).join(', ')})`
}

/** ajv's errors as "<where> <what>", the deepest first, without the noise oneOf adds. */
function describeErrors (errors: readonly ErrorObject[]): string {
  const useful = errors.filter(e => e.keyword !== 'oneOf' && e.keyword !== 'if')
  const shown = (useful.length > 0 ? useful : errors).slice(0, 5)
  return shown.map(e => {
    const where = e.instancePath === '' ? 'the file' : e.instancePath.slice(1).replaceAll('/', '.')
    const extra = e.keyword === 'additionalProperties' ? ` '${(e.params as { additionalProperty: string }).additionalProperty}'${knownKeys(e)}` : e.keyword === 'enum' ? ` (${(e.params as { allowedValues: unknown[] }).allowedValues.map(v => JSON.stringify(v)).join(', ')})` : ''
    return `${where} ${e.message ?? 'is invalid'}${extra}`
  }).join('; ')
}

/** The model files of a folder when the settings name none: notebooks' two usual names, else the one pickle there. */
export function conventionalFiles (dir: string, exclude: ReadonlySet<string> = new Set()): { model: string | null, vectorizers: string[] } {
  const named = path.join(dir, 'final_best_model.pkl')
  const vectorizer = path.join(dir, 'tfidf_vectorizer.pkl')
  if (existsSync(named)) return { model: named, vectorizers: existsSync(vectorizer) ? [vectorizer] : [] }
  const pickles = readdirSync(dir).filter(f => /\.(pkl|pickle|joblib|sav)(\.(gz|bz2|xz|lzma|z))?$/i.test(f) && !exclude.has(path.join(dir, f)))
  return { model: pickles.length === 1 ? path.join(dir, pickles[0]!) : null, vectorizers: [] }
}

/**
 * Reads and checks a settings file. Paths in it resolve against its folder.
 * @throws ServiceError ERR_CONFIG_INVALID naming the file and every problem.
 */
export function readModelSettings (file: string): Readonly<ModelSettings> {
  const absolute = path.resolve(file)
  let text: string
  try {
    text = readFileSync(absolute, 'utf8')
  } catch (err) {
    const code = (err as { code?: string }).code
    if (code === 'ENOENT') throw new ServiceError('ERR_CONFIG_INVALID', 'invalid model settings: no such file', { file: absolute, subject: true })
    throw problem(absolute, (err as Error).message)
  }
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (err) {
    throw problem(absolute, `not JSON: ${(err as Error).message}`)
  }
  const check = validator(SCHEMA)
  if (!check(raw)) throw problem(absolute, describeErrors(check.errors ?? []))
  const steps = ((raw as { parameters?: { extra?: Record<string, { preprocess?: Array<{ op: string }> }> } }).parameters?.extra?.[SETTINGS_KEY]?.preprocess) ?? []
  const wrongStep = checkSteps(steps, TEXT_STEP_SCHEMAS, 'preprocess step')
  if (wrongStep !== undefined) throw problem(absolute, wrongStep)
  const doc = raw as { name?: string, max_batch_size?: number, max_batch_time?: number, parameters?: { uri?: string, version?: string | number, extra?: Record<string, unknown> } }
  const ours = (doc.parameters?.extra?.[SETTINGS_KEY] ?? {}) as { model?: string, vectorizer?: string | string[], preprocess?: StepSpec[], functions?: string, labels?: RawLabels, columns?: ModelSettings['columns'], ensemble?: RawEnsemble, max_workers?: number, dense_rows?: boolean, nltk_data?: string, sastrawi?: string | { package?: string, dictionary?: string, stopwords?: string } }
  if (ours.columns !== undefined && ours.columns.length > 0 && ours.functions === undefined) {
    throw problem(absolute, 'columns name functions of the app, but the settings name no functions module ("functions")')
  }
  const dir = path.dirname(absolute)
  const at = (p: string): string => path.resolve(dir, p)
  const labels = labelSource(ours.labels, at)
  const vectorizerNames = ours.vectorizer === undefined ? [] : typeof ours.vectorizer === 'string' ? [ours.vectorizer] : ours.vectorizer
  let model = ours.model === undefined ? null : at(ours.model)
  let vectorizers = vectorizerNames.map(at)
  const ensemble = ours.ensemble === undefined ? null : ensembleOf(ours.ensemble, ours.model !== undefined, vectorizers, at)
  if (typeof ensemble === 'string') throw problem(absolute, ensemble)
  // MLServer's parameters.uri names the model file, or the folder that holds it.
  const uri = doc.parameters?.uri === undefined || doc.parameters.uri === '' ? undefined : at(doc.parameters.uri)
  const uriKind = uri === undefined || !existsSync(uri) ? undefined : statSync(uri).isDirectory() ? 'dir' : 'file'
  if (model === null && ensemble === null && uriKind === 'file') model = uri!
  if (model === null && ensemble === null) {
    const found = conventionalFiles(uriKind === 'dir' ? uri! : dir, new Set(labels !== null && 'file' in labels ? [labels.file] : []))
    model = found.model
    if (vectorizers.length === 0) vectorizers = found.vectorizers
  }
  return Object.freeze({
    file: absolute,
    name: doc.name ?? path.basename(dir),
    declaredName: doc.name ?? null,
    version: doc.parameters?.version === undefined ? null : String(doc.parameters.version),
    model,
    vectorizers: Object.freeze(vectorizers),
    preprocess: Object.freeze(ours.preprocess ?? []),
    functions: ours.functions === undefined ? null : at(ours.functions),
    labels,
    columns: Object.freeze((ours.columns ?? []).map(c => Object.freeze({ function: c.function, width: c.width }))),
    batching: doc.max_batch_size === undefined && doc.max_batch_time === undefined
      ? null
      : Object.freeze({ ...(doc.max_batch_size === undefined ? {} : { maxTexts: doc.max_batch_size }), ...(doc.max_batch_time === undefined ? {} : { maxWaitMs: doc.max_batch_time * 1000 }) }),
    ensemble,
    maxWorkers: ours.max_workers ?? null,
    denseRows: ours.dense_rows ?? false,
    nltkData: ours.nltk_data === undefined ? null : at(ours.nltk_data),
    sastrawi: sastrawiFiles(ours.sastrawi, at)
  })
}

type RawLabels = { file: string } | Record<string, string>

/** `sastrawi` as the file gives it (a package folder, or the files), paths resolved by `at`. */
function sastrawiFiles (raw: string | { package?: string, dictionary?: string, stopwords?: string } | undefined, at: (p: string) => string): SastrawiFiles | null {
  if (raw === undefined) return null
  const given = typeof raw === 'string' ? { package: raw } : raw
  const resolved = (p: string | undefined): string | null => p === undefined ? null : at(p)
  return Object.freeze({ package: resolved(given.package), dictionary: resolved(given.dictionary), stopwords: resolved(given.stopwords) })
}

/** `labels` as the file gives them, paths resolved by `at`. */
function labelSource (raw: RawLabels | undefined, at: (p: string) => string): LabelSource | null {
  if (raw === undefined) return null
  return 'file' in raw && typeof raw.file === 'string' ? { file: at(raw.file) } : { map: Object.freeze({ ...raw }) }
}

interface RawEnsemble {
  combine: CombineRule
  ties?: TieRule
  separator?: string
  members: Array<{ file?: string, model?: string, vectorizer?: string | string[], name?: string, weight?: number, labels?: RawLabels }>
}

/**
 * The `ensemble` declaration checked beyond its schema, or what is wrong with it (one line).
 * A file member's vectorizer defaults to the settings' own, as the folder would serve the file alone.
 */
function ensembleOf (raw: RawEnsemble, namesModel: boolean, vectorizers: readonly string[], at: (p: string) => string): EnsembleSettings | string {
  if (namesModel) return 'an ensemble names its members, not a model file: drop "model" (or "ensemble")'
  const { combine } = raw
  if (combine === 'vote' && raw.ties === undefined) return 'ensemble: a vote must say how a tie is broken: "ties": "first" (the first member\'s vote among the tied, as Counter(votes).most_common(1)) or "lowest" (the first tied class in class order)'
  if (combine !== 'vote' && raw.ties !== undefined) return `ensemble: "ties" belongs to a vote, not to ${combine}`
  if (combine !== 'join' && raw.separator !== undefined) return `ensemble: "separator" belongs to a join, not to ${combine}`
  const members: EnsembleMemberSettings[] = []
  for (const [i, m] of raw.members.entries()) {
    const where = `ensemble member ${i + 1}`
    if ((m.file === undefined) === (m.model === undefined)) return `${where} must name either a "file" of the folder or a "model" of the repository`
    if (m.model !== undefined && m.vectorizer !== undefined) return `${where} names the repository model ${JSON.stringify(m.model)}, which has its own vectorizer: drop "vectorizer"`
    if (m.model !== undefined && m.labels !== undefined) return `${where} names the repository model ${JSON.stringify(m.model)}, which has its own labels (its settings' "labels"): drop "labels"`
    if (combine === 'join' && m.weight !== undefined) return `${where}: a join has no weights`
    const weight = m.weight ?? 1
    if (m.file !== undefined) {
      const own = m.vectorizer === undefined ? undefined : typeof m.vectorizer === 'string' ? [m.vectorizer] : m.vectorizer
      const name = m.name ?? path.basename(m.file).replace(/\.[^.]*$/, '')
      members.push(Object.freeze({ kind: 'file', name, weight, model: at(m.file), vectorizers: Object.freeze(own === undefined ? [...vectorizers] : own.map(at)), ...(m.labels === undefined ? {} : { labels: labelSource(m.labels, at)! }) }))
    } else {
      members.push(Object.freeze({ kind: 'model', name: m.name ?? m.model!, weight, model: m.model! }))
    }
  }
  const names = members.map(m => m.name)
  const twice = names.find((n, i) => names.indexOf(n) !== i)
  if (twice !== undefined) return `ensemble: two members are named ${JSON.stringify(twice)}; give one a "name"`
  return Object.freeze({ combine, ties: raw.ties ?? null, separator: raw.separator ?? '', members: Object.freeze(members) })
}

/** The settings file beside a model file, if there is one. */
export function settingsBeside (modelPath: string): string | undefined {
  const candidate = path.join(path.dirname(modelPath), SETTINGS_FILE)
  return existsSync(candidate) ? candidate : undefined
}
