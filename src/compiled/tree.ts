/**
 * A model's plain-data tree as JSON, each typed array replaced by `{"$a": index}` into a table
 * of arrays, and back. JSON alone would lose what the answers depend on, so a few values go
 * tagged: NaN, the infinities and -0 (`{"$n": "NaN"}`), undefined (`{"$u": 0}`) and bigints
 * (`{"$b": "123"}`). A key of the data that starts with `$` is written with one more `$`, so
 * a tag is never mistaken for data or data for a tag.
 */
import { ServiceError } from '../errors.js'
import { LIMITS, type AnyTypedArray } from './format.js'

const NUMBERS: Readonly<Record<string, number>> = { NaN: Number.NaN, Infinity: Number.POSITIVE_INFINITY, '-Infinity': Number.NEGATIVE_INFINITY, '-0': -0 }

function isTypedArray (value: unknown): value is AnyTypedArray {
  return ArrayBuffer.isView(value) && !(value instanceof DataView)
}

function isPlainObject (value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown
  return proto === Object.prototype || proto === null
}

/**
 * `value` as a JSON-ready tree and its typed arrays, each distinct array once, in the order
 * first met (an array held twice in the tree is one entry, as in shared memory).
 * @throws ServiceError ERR_MODEL_UNSUPPORTED naming the path of a value no compiled file can hold (a Map, a function).
 */
export function encodeTree (value: unknown): { tree: unknown, arrays: AnyTypedArray[] } {
  const arrays: AnyTypedArray[] = []
  const index = new Map<AnyTypedArray, number>()
  const encode = (v: unknown, where: string, depth: number): unknown => {
    if (depth > LIMITS.depth) throw new ServiceError('ERR_MODEL_UNSUPPORTED', `the model's state nests deeper than ${LIMITS.depth} at ${where}`)
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return v
    if (v === undefined) return { $u: 0 }
    if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0) ? v : { $n: Object.is(v, -0) ? '-0' : String(v) }
    if (typeof v === 'bigint') return { $b: v.toString() }
    if (isTypedArray(v)) {
      let i = index.get(v)
      if (i === undefined) {
        i = arrays.push(v) - 1
        index.set(v, i)
      }
      return { $a: i }
    }
    if (Array.isArray(v)) return v.map((item, i) => encode(item, `${where}[${i}]`, depth + 1))
    if (typeof v === 'object' && isPlainObject(v)) {
      const out: Record<string, unknown> = {}
      for (const [k, item] of Object.entries(v)) out[k.startsWith('$') ? `$${k}` : k] = encode(item, `${where}.${k}`, depth + 1)
      return out
    }
    throw new ServiceError('ERR_MODEL_UNSUPPORTED', `the model's state holds ${Object.prototype.toString.call(v)} at ${where}, which a compiled file cannot hold`)
  }
  return { tree: encode(value, 'state', 0), arrays }
}

function broken (detail: string): ServiceError {
  return new ServiceError('ERR_MODEL_READ', `damaged compiled model: ${detail}`)
}

/**
 * The tree `encodeTree` made, its arrays given back by `arrayAt`: every tag and index checked,
 * the depth bounded, objects built so that no key (`__proto__` included) reaches a prototype.
 * @throws ServiceError ERR_MODEL_READ naming the path of what is wrong.
 */
export function decodeTree (tree: unknown, arrayAt: (index: number, where: string) => AnyTypedArray): unknown {
  const decode = (v: unknown, where: string, depth: number): unknown => {
    if (depth > LIMITS.depth) throw broken(`the tree nests deeper than ${LIMITS.depth} at ${where}`)
    if (v === null || typeof v !== 'object') return v
    if (Array.isArray(v)) return v.map((item, i) => decode(item, `${where}[${i}]`, depth + 1))
    const keys = Object.keys(v)
    if (keys.length === 1 && keys[0]!.startsWith('$') && !keys[0]!.startsWith('$$')) return tagged(keys[0]!, (v as Record<string, unknown>)[keys[0]!], where)
    const out: Record<string, unknown> = {}
    for (const k of keys) {
      if (k.startsWith('$') && !k.startsWith('$$')) throw broken(`the tag ${JSON.stringify(k)} among other keys at ${where}`)
      const key = k.startsWith('$') ? k.slice(1) : k
      Object.defineProperty(out, key, { value: decode((v as Record<string, unknown>)[k], `${where}.${key}`, depth + 1), enumerable: true, writable: true, configurable: true })
    }
    return out
  }
  const tagged = (tag: string, body: unknown, where: string): unknown => {
    if (tag === '$a' && typeof body === 'number') return arrayAt(body, where)
    if (tag === '$n' && typeof body === 'string' && Object.hasOwn(NUMBERS, body)) return NUMBERS[body]
    if (tag === '$u' && body === 0) return undefined
    if (tag === '$b' && typeof body === 'string' && /^-?\d{1,400}$/.test(body)) return BigInt(body)
    throw broken(`the tag ${JSON.stringify(tag)} at ${where} holds ${JSON.stringify(body)?.slice(0, 40) ?? 'nothing'}`)
  }
  return decode(tree, 'state', 0)
}
