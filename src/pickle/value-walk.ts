/**
 * The one bounded walk over unpickled values. The unpickler bounds its own work, but the
 * values it returns can still hold themselves (a list appended to itself) or nest a
 * hundred thousand deep with a constant pickle stack (memo GET + APPEND), or share one
 * value so often that a naive recursive walk does exponential work. Every pass over a
 * decoded value (the load-time check, version collection, messages) goes through here:
 * iterative, cycle-safe and with a work budget, never the JavaScript call stack.
 */
import { ServiceError } from '../errors.js'
import { NdArray } from './numpy.js'
import { SparseMatrix } from './scipy-sparse.js'
import { summarize } from './summarize.js'
import { PyObject, PySlice, PyTuple, type PyValue } from './values.js'

export interface ValueLimits {
  /**
   * Deepest nesting of containers accepted. Defaults to 100: the deepest real model file
   * measured (421 fixture and real-world files of every family) nests 17 deep and
   * none holds itself.
   */
  readonly maxDepth: number
  /**
   * Most containers and values visited by the load-time walk, counted as a tree (a value
   * shared n times counts n times, which bounds what any later walk can cost). Defaults to
   * 4 per decoded pickle byte plus 2^20, the unpickler's own budget.
   */
  readonly maxVisits: number
}

export function defaultValueLimits (pickleBytes: number): ValueLimits {
  return { maxDepth: 100, maxVisits: 4 * pickleBytes + 2 ** 20 }
}

/** The values a container holds, or none for a leaf (numbers, strings, typed arrays). */
export function childrenOf (value: PyValue): readonly PyValue[] {
  if (Array.isArray(value)) return value
  if (value instanceof PyTuple) return value.items
  if (value instanceof Map) {
    const out: PyValue[] = []
    for (const [k, v] of value) out.push(k, v)
    return out
  }
  if (value instanceof Set) return [...value]
  if (value instanceof PyObject) {
    const out: PyValue[] = [...value.args]
    if (value.kwargs !== undefined) out.push(value.kwargs)
    if (value.state !== undefined) out.push(value.state)
    if (value.listItems !== undefined) out.push(value.listItems)
    if (value.dictItems !== undefined) out.push(value.dictItems)
    return out
  }
  if (value instanceof NdArray) return Array.isArray(value.data) ? value.data : []
  if (value instanceof SparseMatrix) return [value.state]
  if (value instanceof PySlice) return [value.start, value.stop, value.step]
  return []
}

/**
 * Refuses a decoded value that holds itself, nests deeper than `maxDepth`, or would cost
 * more than `maxVisits` to walk as a tree. After this check any walk over the value,
 * recursive or not, is bounded.
 * @throws ServiceError ERR_PICKLE_LIMIT saying which limit the value broke.
 */
export function checkValueLimits (root: PyValue, limits: ValueLimits): void {
  // Depth-first with an explicit stack; `onPath` holds the containers from the root to
  // the current one, so a value met again on its own path is a cycle.
  const onPath = new Set<PyValue>()
  const stack: Array<{ value: PyValue, children: readonly PyValue[], next: number }> = []
  let visits = 0
  const enter = (value: PyValue): void => {
    if (++visits > limits.maxVisits) throw new ServiceError('ERR_PICKLE_LIMIT', `the decoded values need more than ${limits.maxVisits} steps to walk (a value shared too often)`)
    if (typeof value !== 'object' || value === null) return
    const children = childrenOf(value)
    if (children.length === 0) return
    if (onPath.has(value)) throw new ServiceError('ERR_PICKLE_LIMIT', `${summarize(value)} contains itself`)
    if (stack.length >= limits.maxDepth) throw new ServiceError('ERR_PICKLE_LIMIT', `values nested more than ${limits.maxDepth} deep`)
    onPath.add(value)
    stack.push({ value, children, next: 0 })
  }
  enter(root)
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!
    if (top.next < top.children.length) {
      enter(top.children[top.next++])
    } else {
      onPath.delete(top.value)
      stack.pop()
    }
  }
}

/**
 * The first value, in depth-first pre-order, for which `pick` returns something; each
 * container is visited once however often it is shared, and containers for which `descend`
 * says no are not opened.
 */
export function findInValue<T> (root: PyValue, pick: (value: PyValue) => T | undefined, descend: (value: PyValue) => boolean = () => true): T | undefined {
  const seen = new Set<PyValue>()
  const stack: PyValue[] = [root]
  while (stack.length > 0) {
    const value = stack.pop()
    const found = pick(value)
    if (found !== undefined) return found
    if (typeof value !== 'object' || value === null || seen.has(value) || !descend(value)) continue
    seen.add(value)
    const children = childrenOf(value)
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i])
  }
  return undefined
}
