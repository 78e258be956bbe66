/**
 * Python 3.11's `str.maketrans` and `str.translate`, by code point: each character of
 * the text is looked up in the table and replaced by its text, deleted (None), or kept.
 */
import { ServiceError } from '../errors.js'

/** A `str.maketrans` table: code point -> replacement text, or null to delete. */
export interface PyTranslation {
  readonly map: ReadonlyMap<number, string | null>
  /**
   * 1 for each code unit that is a key, when every key is a BMP code point and no
   * surrogate (the text is then read by unit); otherwise null.
   */
  readonly unitKeys: Uint8Array | null
}

function table (map: Map<number, string | null>): PyTranslation {
  let unitKeys: Uint8Array | null = new Uint8Array(0x10000)
  for (const cp of map.keys()) {
    if (cp > 0xffff || (cp >= 0xd800 && cp <= 0xdfff)) {
      unitKeys = null
      break
    }
    unitKeys[cp] = 1
  }
  return { map, unitKeys }
}

/**
 * `str.maketrans(from, to, delete)`: the i-th code point of `from` becomes the i-th of
 * `to` (a later repeat wins), and those of `delete` are removed (over any mapping).
 * @throws ServiceError ERR_CONFIG_INVALID when `from` and `to` differ in length (Python's ValueError).
 */
export function makeTranslation (from: string, to = '', deleteChars = ''): PyTranslation {
  const x = Array.from(from)
  const y = Array.from(to)
  if (x.length !== y.length) {
    throw new ServiceError('ERR_CONFIG_INVALID', `str.maketrans: the first two arguments must have equal length (${x.length} and ${y.length} characters)`)
  }
  const map = new Map<number, string | null>()
  x.forEach((c, i) => map.set(c.codePointAt(0)!, y[i]!))
  for (const c of deleteChars) map.set(c.codePointAt(0)!, null)
  return table(map)
}

/**
 * `str.maketrans(mapping)` with one-character string keys: each maps to a text of any
 * length, or null (None) to delete.
 * @throws ServiceError ERR_CONFIG_INVALID for a key that is not one character (Python's ValueError).
 */
export function makeTranslationFromMap (mapping: Readonly<Record<string, string | null>>): PyTranslation {
  const map = new Map<number, string | null>()
  for (const [key, value] of Object.entries(mapping)) {
    const cps = Array.from(key)
    if (cps.length !== 1) throw new ServiceError('ERR_CONFIG_INVALID', `str.maketrans: string keys in translate table must be of length 1 (${JSON.stringify(key)})`)
    map.set(cps[0]!.codePointAt(0)!, value)
  }
  return table(map)
}

/** `s.translate(table)`. */
export function pyTranslate (s: string, t: PyTranslation): string {
  const { map, unitKeys } = t
  if (map.size === 0) return s
  let out = ''
  let run = 0
  for (let i = 0; i < s.length; i++) {
    if (unitKeys !== null && unitKeys[s.charCodeAt(i)] === 0) continue
    const cp = unitKeys !== null ? s.charCodeAt(i) : s.codePointAt(i)!
    const width = cp > 0xffff ? 2 : 1
    const to = map.get(cp)
    if (to !== undefined) {
      out += s.slice(run, i)
      if (to !== null) out += to
      run = i + width
    }
    i += width - 1
  }
  return run === 0 ? s : out + s.slice(run)
}
