/**
 * The app's own Python functions that a pickle names (a vectorizer's `preprocessor`,
 * `tokenizer` or `analyzer`, a Pipeline step class), as the JavaScript ports the settings'
 * functions module gives, by Python name. They are set for the thread while a model is
 * built and created (`withUserFunctions`), and each call is checked: a function that throws
 * or returns the wrong kind fails that text with an error naming it.
 */
import { ServiceError } from '../../errors.js'

export type UserFunctions = ReadonlyMap<string, unknown>

/**
 * What a Pipeline step class's port is given instead of its pickled state as plain data: the
 * model room's built-in objects for the library objects that state describes (an NLTK stemmer).
 */
export type StateReviver = (state: unknown) => unknown

let current: UserFunctions | null = null
let currentReviver: StateReviver | null = null

/**
 * Runs `make` with `functions` as the functions a pickle's callables resolve to, and
 * `reviveState` as what a step class's state goes through before its port gets it.
 */
export function withUserFunctions<T> (functions: UserFunctions | null, make: () => T, reviveState: StateReviver | null = null): T {
  const previous = current
  const previousReviver = currentReviver
  current = functions
  currentReviver = reviveState
  try {
    return make()
  } finally {
    current = previous
    currentReviver = previousReviver
  }
}

/** The functions set by `withUserFunctions`, or null. */
export function currentUserFunctions (): UserFunctions | null {
  return current
}

/** The error a user function's failure on one text becomes: it names the function (the text is not logged). */
export class UserFunctionError extends Error {
  override readonly name = 'UserFunctionError'
}

function lookup (functions: UserFunctions | null, name: string, where: string): (...args: unknown[]) => unknown {
  const fn = functions?.get(name)
  if (typeof fn !== 'function') {
    throw new ServiceError('ERR_MODEL_UNSUPPORTED', functions === null
      ? `${where} is the Python function ${name}; port it to JavaScript and name the module in the model settings ("functions")`
      : `${where} is the Python function ${name}, which the functions module does not export`)
  }
  return fn as (...args: unknown[]) => unknown
}

function failed (name: string, detail: string): never {
  throw new UserFunctionError(`user function ${name} ${detail}`)
}

/** `fn(text)`, a throw becoming an error that names the function. */
function callNamed (fn: (...args: unknown[]) => unknown, name: string, text: string): unknown {
  try {
    return fn(text)
  } catch (err) {
    return failed(name, `threw: ${err instanceof Error ? err.message : String(err)}`)
  }
}

/** A text -> text function (a preprocessor, a cleaning step), checked at each call. */
export function textFunction (functions: UserFunctions | null, name: string, where: string): (text: string) => string {
  const fn = lookup(functions, name, where)
  return text => {
    const out = callNamed(fn, name, text)
    return typeof out === 'string' ? out : failed(name, `returned ${out === null ? 'null' : typeof out}, not a string`)
  }
}

/** A text -> list of strings function (a tokenizer or an analyzer), checked at each call. */
export function tokensFunction (functions: UserFunctions | null, name: string, where: string): (text: string) => string[] {
  const fn = lookup(functions, name, where)
  return text => {
    const out = callNamed(fn, name, text)
    if (!Array.isArray(out) || out.some(t => typeof t !== 'string')) failed(name, 'returned something other than a list of strings')
    return out as string[]
  }
}

/** A Pipeline step class: its factory is given the pickled state and returns the text -> text transform. */
export function stepFunction (functions: UserFunctions | null, name: string, where: string, state: unknown): (text: string) => string {
  const factory = lookup(functions, name, where)
  let made: unknown
  try {
    made = factory(currentReviver === null ? state : currentReviver(state))
  } catch (err) {
    throw new ServiceError('ERR_MODEL_UNSUPPORTED', `${where}: the functions module's ${name} threw when given the pickled state: ${err instanceof Error ? err.message : String(err)}`)
  }
  if (typeof made !== 'function') throw new ServiceError('ERR_MODEL_UNSUPPORTED', `${where}: the functions module's ${name} must return a text -> text function when given the pickled state`)
  return textFunction(new Map([[name, made]]), name, where)
}

/**
 * A columns block (numbers the app appended to the vectorizer's row): given the raw text and
 * the text fed to the vectorizer, it returns `width` finite numbers, checked at each call (a
 * NaN or an infinity is what scikit-learn's input check refuses).
 */
export function numbersFunction (functions: UserFunctions | null, name: string, where: string, width: number): (text: string, fed: string) => Float64Array {
  const fn = lookup(functions, name, where)
  return (text, fed) => {
    let out: unknown
    try {
      out = fn(text, fed)
    } catch (err) {
      return failed(name, `threw: ${err instanceof Error ? err.message : String(err)}`)
    }
    if (!(Array.isArray(out) || (ArrayBuffer.isView(out) && !(out instanceof DataView))) || (out as ArrayLike<unknown>).length !== width) {
      return failed(name, `returned ${Array.isArray(out) || ArrayBuffer.isView(out) ? `${(out as ArrayLike<unknown>).length} values` : out === null ? 'null' : typeof out}, not the ${width} numbers the settings declare`)
    }
    const numbers = Float64Array.from(out as ArrayLike<unknown>, v => typeof v === 'number' && Number.isFinite(v) ? v : failed(name, `returned ${String(v)} among its numbers: each must be a finite number`))
    return numbers
  }
}
