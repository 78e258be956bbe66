/**
 * The app's own functions, ported to JavaScript: one ES module named in the settings that
 * exports `functions`, an object keyed by the Python name each replaces
 * (`'__main__.tokenize'`, `'utils.clean_text'`, `'__main__.TextClean'`). A preprocessor or
 * cleaning function maps a text to a text, a tokenizer or analyzer a text to a list of
 * strings, a Pipeline step class is a factory given the pickled instance's state as plain
 * data that returns a text -> text function. Each call is checked: a function that throws or
 * returns the wrong kind fails that text with an error naming it.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { ServiceError } from '../errors.js'
import type { UserFunctions } from '../sklearn/text/user-callables.js'

export { stepFunction, textFunction, tokensFunction, UserFunctionError, withUserFunctions, type UserFunctions } from '../sklearn/text/user-callables.js'

/**
 * A functions module as a model's load read it: its file, its source then, and the SHA-256
 * of that source. A load reads it once; every thread that serves that load imports this
 * source, whatever the file holds later (plain data: it crosses threads).
 */
export interface FunctionsModule {
  readonly file: string
  readonly source: string
  readonly sha256: string
}

/**
 * Reads the functions module at `file` (a model's load does, once).
 * @throws ServiceError ERR_CONFIG_INVALID naming the file when it cannot be read.
 */
export function readFunctionsModule (file: string): FunctionsModule {
  let bytes: Buffer
  try {
    bytes = readFileSync(file)
  } catch (err) {
    throw new ServiceError('ERR_CONFIG_INVALID', `the functions module cannot be read: ${(err as Error).message}`, { file, cause: err })
  }
  return { file, source: bytes.toString('utf8'), sha256: sha256Of(bytes) }
}

function sha256Of (bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex')
}

/**
 * Where to import `module` from. Node keeps one instance of a module per URL and thread for
 * the life of the thread, so the URL names the content: the file itself, with the hash of the
 * source as its query (a reload of changed code gets a new instance; relative imports and
 * packages resolve beside the file, as the author wrote them), while the file still holds that
 * source; once the file has changed, the source kept from the load, as a data: URL (a worker
 * started later for an old load runs that load's code, not the new file's).
 */
function moduleUrl (module: FunctionsModule): string {
  let onDisk: string | null = null
  try {
    onDisk = sha256Of(readFileSync(module.file))
  } catch {}
  if (onDisk === module.sha256) return `${pathToFileURL(module.file).href}?sha256=${module.sha256}`
  return `data:text/javascript;base64,${Buffer.from(module.source, 'utf8').toString('base64')}`
}

/**
 * Imports the functions module as a load read it (readFunctionsModule) and returns its
 * functions by Python name.
 * @throws ServiceError ERR_CONFIG_INVALID naming the module and the problem.
 */
export async function loadUserFunctions (module: FunctionsModule): Promise<UserFunctions> {
  const file = module.file
  const url = moduleUrl(module)
  let imported: Record<string, unknown>
  try {
    imported = await import(url) as Record<string, unknown>
  } catch (err) {
    const message = err instanceof Error ? err.message.split('\n')[0]! : String(err)
    const changed = url.startsWith('data:') ? ' (the file has changed since this model was loaded, and its source as loaded cannot be imported away from its folder: reload the model)' : ''
    throw new ServiceError('ERR_CONFIG_INVALID', `the functions module failed to import: ${message}${changed}`, { file, cause: err })
  }
  const table = imported.functions ?? imported.default
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
