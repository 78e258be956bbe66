/**
 * Whether a file whose reading deferred refused globals (pickle/unresolved.ts) may be served.
 *
 * The rule: every refused global must sit only in parts of the file that no prediction
 * reads, which are the inert attributes of a search object (search.ts) and the whole of an
 * imbalanced-learn sampler, which prediction skips (pipeline.ts). A refused global found
 * anywhere else, in a part the model or its description reads, or shared by such a part, or
 * found nowhere at all (a value the pickle made and dropped), fails the load with the error
 * the strict reader throws at it: the first such global in the file, with its byte offset.
 * A file with no search object and no sampler is therefore refused exactly as before.
 *
 * Nothing is lost by the deferral: placeholders are never called (nothing is), and the
 * decoded value has no part that both is read and holds a placeholder.
 */
import { childrenOf } from '../pickle/value-walk.js'
import { PyObject, type PyValue } from '../pickle/values.js'
import { Unresolved, type RefusedGlobal } from '../pickle/unresolved.js'
import { isNltkSnowball } from './text/nltk-state.js'
import { isSampler } from './pipeline.js'
import { SEARCH_INERT_ATTRIBUTES, isSearch } from './search.js'

/**
 * @param refused every refused global the reader deferred, in file order.
 * @throws ServiceError ERR_PICKLE_GLOBAL_NOT_ALLOWED (the caller adds the file) unless every
 * one of them is only in inert parts.
 */
export function refuseUsedGlobals (root: PyValue, refused: readonly RefusedGlobal[]): void {
  if (refused.length === 0) return
  const { used, inert } = placeholdersOf(root)
  const offending = refused.find(g => used.has(g) || !inert.has(g))
  if (offending !== undefined) throw offending.toError()
}

/** A record's children split into those read and those no prediction reads, or undefined when all are read. */
function inertSplit (record: PyObject): { read: PyValue[], inert: PyValue[] } | undefined {
  if (isSampler(record)) return { read: [], inert: childrenOf(record).slice() }
  // NLTK's SnowballStemmer pickles its `stem`, a bound method of its own `stemmer`, as
  // getattr(stemmer, 'stem'): its port is made from `stemmer` alone (nltk-state.ts).
  if (isNltkSnowball(record) && record.state instanceof Map) {
    const read: PyValue[] = []
    const inert: PyValue[] = []
    for (const [key, value] of record.state) (key === 'stem' ? inert : read).push(key, value)
    return { read, inert }
  }
  if (!isSearch(record) || !(record.state instanceof Map)) return undefined
  const read: PyValue[] = [...record.args]
  const inert: PyValue[] = []
  for (const [key, value] of record.state) {
    if (typeof key === 'string' && SEARCH_INERT_ATTRIBUTES.has(key)) inert.push(value)
    else read.push(key, value)
  }
  for (const extra of [record.kwargs, record.listItems, record.dictItems]) if (extra !== undefined) read.push(extra)
  return { read, inert }
}

/**
 * The refused globals whose placeholders are reached from the root through read parts
 * (`used`) and through inert parts (`inert`), looking inside placeholders too (what a refused
 * class was built with may name other refused globals, and may hold the object itself:
 * Python pickles such cycles, and every other walk treats a placeholder as a leaf). Iterative
 * and cycle-safe; each container is visited at most once per kind of part, so the walk costs
 * no more than the unpickler's bounded work that built the values.
 */
function placeholdersOf (root: PyValue): { used: Set<RefusedGlobal>, inert: Set<RefusedGlobal> } {
  const used = new Set<RefusedGlobal>()
  const inert = new Set<RefusedGlobal>()
  const seenRead = new Set<PyValue>()
  const seenInert = new Set<PyValue>()
  const stack: Array<{ value: PyValue, isInert: boolean }> = [{ value: root, isInert: false }]
  while (stack.length > 0) {
    const { value, isInert } = stack.pop()!
    if (typeof value !== 'object' || value === null) continue
    const seen = isInert ? seenInert : seenRead
    if (seen.has(value)) continue
    seen.add(value)
    if (value instanceof Unresolved) (isInert ? inert : used).add(value.global)
    const split = !isInert && value instanceof PyObject ? inertSplit(value) : undefined
    if (split !== undefined) {
      for (const child of split.read) stack.push({ value: child, isInert: false })
      for (const child of split.inert) stack.push({ value: child, isInert: true })
      continue
    }
    for (const child of value instanceof Unresolved ? value.parts : childrenOf(value)) stack.push({ value: child, isInert })
  }
  return { used, inert }
}
