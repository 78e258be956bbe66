/**
 * Short, bounded descriptions of decoded values for messages. numpy.ts and scipy-sparse.ts
 * need them for their own errors, so this module sits below them and imports neither: an
 * array or sparse matrix describes itself through its SUMMARY method instead.
 */
import { PyTuple, type PyValue } from './values.js'

/**
 * The method by which a value class describes itself here (an array by its shape). A
 * symbol, so nothing a pickle decodes to can carry one: only our own classes define it.
 */
export const SUMMARY = Symbol('summary')

/** A value class that describes itself for `summarize`. */
export interface Summarizable {
  [SUMMARY] (): string
}

function hasSummary (value: object): value is Summarizable {
  return typeof (value as Partial<Summarizable>)[SUMMARY] === 'function'
}

const MAX_SHOWN_CHARS = 40

/** A string quoted as Python's repr() quotes it in the common cases, line breaks escaped, so a message stays one line. */
function quote (text: string): string {
  const escaped = JSON.stringify(text).slice(1, -1)
  if (text.includes("'") && !text.includes('"')) return `"${escaped}"`
  return `'${escaped.replaceAll('\\"', '"').replaceAll("'", "\\'")}'`
}

const items = (n: number): string => `${n} item${n === 1 ? '' : 's'}`

/**
 * A short, bounded description of any decoded value for a message: a number, bool or
 * None as Python prints it, a string quoted and cut at 40 characters, and a container by
 * its kind and size, never its contents (String() on a value nested 100,000 deep overflows
 * the stack; on a big one it makes a message of megabytes).
 */
export function summarize (value: PyValue): string {
  if (value === null || value === undefined) return 'None'
  if (typeof value === 'boolean') return value ? 'True' : 'False'
  if (typeof value === 'number' || typeof value === 'bigint') return String(value)
  if (typeof value === 'string') {
    const chars = [...value.slice(0, MAX_SHOWN_CHARS * 2)]
    return chars.length > MAX_SHOWN_CHARS ? `${quote(chars.slice(0, MAX_SHOWN_CHARS).join(''))}... (${value.length} UTF-16 units)` : quote(value)
  }
  if (value instanceof Uint8Array) return `bytes of length ${value.length}`
  if (Array.isArray(value)) return `a list of ${items(value.length)}`
  if (value instanceof PyTuple) return `a tuple of ${items(value.length)}`
  if (value instanceof Map) return `a dict of ${items(value.size)}`
  if (value instanceof Set) return `a set of ${items(value.size)}`
  if (typeof value === 'object' && hasSummary(value)) return value[SUMMARY]()
  if (typeof value === 'object' && 'qualifiedName' in value && typeof value.qualifiedName === 'string') return value.qualifiedName
  return typeof value === 'object' ? (value.constructor?.name ?? 'an object') : typeof value
}
