/**
 * The app's own functions, ported to JavaScript: one ES module named in the settings that
 * exports `functions`, an object keyed by the Python name each replaces
 * (`'__main__.tokenize'`, `'utils.clean_text'`, `'__main__.TextClean'`). A preprocessor or
 * cleaning function maps a text to a text, a tokenizer or analyzer a text to a list of
 * strings, a Pipeline step class is a factory given the pickled instance's state as plain
 * data that returns a text -> text function. Each call is checked: a function that throws or
 * returns the wrong kind fails that text with an error naming it.
 */
import { pathToFileURL } from 'node:url'
import { ServiceError } from '../errors.js'
import type { UserFunctions } from '../sklearn/text/user-callables.js'

export { stepFunction, textFunction, tokensFunction, UserFunctionError, withUserFunctions, type UserFunctions } from '../sklearn/text/user-callables.js'

/**
 * Imports the module at `file` and returns its functions by Python name.
 * @throws ServiceError ERR_CONFIG_INVALID naming the module and the problem.
 */
export async function loadUserFunctions (file: string): Promise<UserFunctions> {
  let module: Record<string, unknown>
  try {
    module = await import(pathToFileURL(file).href) as Record<string, unknown>
  } catch (err) {
    const message = err instanceof Error ? err.message.split('\n')[0]! : String(err)
    throw new ServiceError('ERR_CONFIG_INVALID', `the functions module failed to import: ${message}`, { file, cause: err })
  }
  const table = module.functions ?? module.default
  if (table === null || typeof table !== 'object') {
    throw new ServiceError('ERR_CONFIG_INVALID', "the functions module exports no 'functions' object (Python name -> function)", { file })
  }
  const out = new Map<string, unknown>()
  for (const [name, fn] of Object.entries(table)) {
    if (typeof fn !== 'function') throw new ServiceError('ERR_CONFIG_INVALID', `the functions module's '${name}' is not a function`, { file })
    out.set(name, fn)
  }
  return out
}
