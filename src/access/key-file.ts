/**
 * The API key file (API_KEYS_FILE): JSON, parsed and checked once into a frozen table; every
 * problem is one line naming the file, the line and what is wrong. The file holds each key's
 * id, the SHA-256 of its secret, its scopes and, optionally, limits that override the
 * file's `default_limits` one field at a time (`null` lifts that limit for the key).
 */
import { Ajv } from 'ajv'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { ServiceError } from '../errors.js'

export const SCOPES = ['predict', 'admin', 'metrics'] as const
export type Scope = typeof SCOPES[number]

/** A key's limits; null: none of that kind. */
export interface Limits {
  /** Requests a second (a fixed one-second window). */
  readonly requestsPerSecond: number | null
  /** Requests a key may make beyond requestsPerSecond in any minute. */
  readonly requestsBurst: number
  /** Texts a second (a batch of 50 costs 50). */
  readonly textsPerSecond: number | null
  /** Texts a key may send beyond textsPerSecond in any minute. */
  readonly textsBurst: number
  /** Texts a UTC day. */
  readonly textsPerDay: number | null
}

export interface ApiKey {
  readonly id: string
  /** SHA-256 of the secret. */
  readonly hash: Buffer
  readonly scopes: ReadonlySet<Scope>
  readonly limits: Limits
}

export interface KeyTable {
  /** Keys by the hex SHA-256 of their secret. */
  readonly byHash: ReadonlyMap<string, ApiKey>
  readonly keys: readonly ApiKey[]
}

const limitFields = {
  requests_per_second: { type: ['integer', 'null'], minimum: 1 },
  requests_burst: { type: ['integer', 'null'], minimum: 0 },
  texts_per_second: { type: ['integer', 'null'], minimum: 1 },
  texts_burst: { type: ['integer', 'null'], minimum: 0 },
  texts_per_day: { type: ['integer', 'null'], minimum: 1 }
}
const limitsSchema = { type: 'object', additionalProperties: false, properties: limitFields }

const SCHEMA = {
  type: 'object',
  required: ['keys'],
  additionalProperties: false,
  properties: {
    default_limits: limitsSchema,
    keys: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'sha256', 'scopes'],
        additionalProperties: false,
        properties: {
          // Ids go into log lines and metric labels: short, plain.
          id: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$' },
          sha256: { type: 'string', pattern: '^[0-9a-fA-F]{64}$' },
          scopes: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: SCOPES } },
          limits: limitsSchema,
          comment: { type: 'string' }
        }
      }
    }
  }
} as const

const ajv = new Ajv({ allErrors: false, strict: false, validateSchema: false })
const validate = ajv.compile(SCHEMA)

type RawLimits = Partial<Record<keyof typeof limitFields, number | null>>
interface RawFile { default_limits?: RawLimits, keys: Array<{ id: string, sha256: string, scopes: Scope[], limits?: RawLimits }> }

/** `over` on top of `base`, field by field; an absent field keeps the base's, null lifts it. */
function mergeLimits (base: RawLimits, over: RawLimits = {}): Limits {
  const pick = (name: keyof RawLimits): number | null => (name in over ? over[name] : base[name]) ?? null
  return Object.freeze({
    requestsPerSecond: pick('requests_per_second'),
    requestsBurst: pick('requests_burst') ?? 0,
    textsPerSecond: pick('texts_per_second'),
    textsBurst: pick('texts_burst') ?? 0,
    textsPerDay: pick('texts_per_day')
  })
}

/** The 1-based line of character `offset` of `text`. */
function lineAt (text: string, offset: number): number {
  let line = 1
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++
  return line
}

/** The line of the value at `path` (a JSON pointer), found by reading the JSON as YAML, which keeps positions. */
function lineOf (text: string, pointer: string): number | undefined {
  // yaml is loaded only for a key file in error, the one time a line is needed.
  const { LineCounter, parseDocument } = createRequire(import.meta.url)('yaml') as typeof import('yaml')
  const lines = new LineCounter()
  const doc = parseDocument(text, { lineCounter: lines })
  if (doc.errors.length > 0) return undefined
  const segments = pointer.split('/').slice(1).map(s => /^\d+$/.test(s) ? Number(s) : s.replace(/~1/g, '/').replace(/~0/g, '~'))
  const node = doc.getIn(segments, true) as { range?: [number, number, number] } | undefined
  return node?.range === undefined ? undefined : lines.linePos(node.range[0]).line
}

/**
 * Reads and checks the key file.
 * @throws ServiceError ERR_CONFIG_INVALID: "invalid key file <file>: line <n>: <problem>".
 */
export function readKeyFile (file: string): KeyTable {
  const fail = (problem: string, line?: number): never => {
    throw new ServiceError('ERR_CONFIG_INVALID', `invalid key file ${file}: ${line === undefined ? '' : `line ${line}: `}${problem}`)
  }
  let text = ''
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    fail(`cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`)
  }
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (err) {
    const message = (err as Error).message
    const at = /at position (\d+)/.exec(message)
    fail(`not valid JSON: ${message.replace(/ in JSON at position \d+.*$/, '')}`, at === null ? undefined : lineAt(text, Number(at[1])))
  }
  if (!validate(raw)) {
    const e = validate.errors![0]!
    const extra = e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty: string }).additionalProperty)})` : e.keyword === 'enum' ? ` (${SCOPES.join(', ')})` : ''
    fail(`${e.instancePath === '' ? 'the file' : e.instancePath.slice(1).replace(/\//g, '.')} ${e.message ?? 'is invalid'}${extra}`, lineOf(text, e.instancePath))
  }
  const file$ = raw as RawFile
  const byHash = new Map<string, ApiKey>()
  const ids = new Set<string>()
  file$.keys.forEach((k, i) => {
    const hex = k.sha256.toLowerCase()
    if (ids.has(k.id)) fail(`keys.${i}.id ${JSON.stringify(k.id)} is used twice`, lineOf(text, `/keys/${i}/id`))
    if (byHash.has(hex)) fail(`keys.${i}.sha256 is also key ${JSON.stringify(byHash.get(hex)!.id)}'s`, lineOf(text, `/keys/${i}/sha256`))
    ids.add(k.id)
    byHash.set(hex, Object.freeze({ id: k.id, hash: Buffer.from(hex, 'hex'), scopes: new Set(k.scopes), limits: mergeLimits(file$.default_limits ?? {}, k.limits) }))
  })
  return Object.freeze({ byHash, keys: Object.freeze([...byHash.values()]) })
}
