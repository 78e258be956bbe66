/**
 * A Punkt pickle of NLTK < 3.9 (tokenizers/punkt/PY3/<language>.pickle) to its four tables,
 * read by our own unpickler allowing only what such a file names: Punkt's four classes,
 * collections.defaultdict, set and int (the Python 2 pickles spell builtins `__builtin__`).
 * Its objects are records, never run; the tables are checked to be what Punkt keeps.
 */
import { unpickle } from '../../pickle/unpickler.js'
import { PyObject, PyTuple } from '../../pickle/values.js'
import type { PunktTables } from './punkt-tables.js'

const PUNKT_CLASSES = ['PunktSentenceTokenizer', 'PunktParameters', 'PunktLanguageVars', 'PunktToken'].map(c => `nltk.tokenize.punkt.${c}`)
const ONLY = new Set([...PUNKT_CLASSES, 'collections.defaultdict', ...['set', 'int'].flatMap(b => [`builtins.${b}`, `__builtin__.${b}`])])
const USER = new Set(PUNKT_CLASSES)

function strings (value: unknown, what: string, file: string): string[] {
  if (!(value instanceof Set) || ![...value].every(v => typeof v === 'string')) throw new Error(`${file}: ${what} is not a set of strings`)
  return [...value] as string[]
}

/** @throws Error naming the file when it is not a pickled PunktSentenceTokenizer with default language variables. */
export function punktTablesOfPickle (bytes: Uint8Array, file: string): PunktTables {
  let value: unknown
  try {
    value = unpickle(bytes, { onlyGlobals: ONLY, userGlobals: USER })
  } catch (err) {
    throw new Error(`${file} is not a Punkt pickle NLTK wrote: ${err instanceof Error ? err.message : String(err)}`)
  }
  const state = value instanceof PyObject && value.qualifiedName === PUNKT_CLASSES[0] && value.state instanceof Map ? value.state : undefined
  const params = state?.get('_params')
  if (state === undefined || !(params instanceof PyObject) || params.qualifiedName !== PUNKT_CLASSES[1] || !(params.state instanceof Map)) throw new Error(`${file} does not hold a PunktSentenceTokenizer with its PunktParameters`)
  const langVars = state.get('_lang_vars')
  if (!(langVars instanceof PyObject) || langVars.qualifiedName !== PUNKT_CLASSES[2] || langVars.state !== 1) throw new Error(`${file}: its PunktLanguageVars are not NLTK's defaults, which are all that is reproduced`)
  const p = params.state
  const collocations = p.get('collocations')
  if (!(collocations instanceof Set) || ![...collocations].every(c => c instanceof PyTuple && c.length === 2 && c.items.every(t => typeof t === 'string'))) throw new Error(`${file}: collocations are not pairs of strings`)
  const ortho = p.get('ortho_context')
  if (!(ortho instanceof Map) || ![...ortho].every(([k, v]) => typeof k === 'string' && typeof v === 'number' && Number.isSafeInteger(v) && v >= 0)) throw new Error(`${file}: ortho_context is not a map of strings to flags`)
  return {
    abbrevTypes: strings(p.get('abbrev_types'), 'abbrev_types', file),
    collocations: [...collocations as Set<PyTuple>].map(c => c.items.join('\t')),
    sentStarters: strings(p.get('sent_starters'), 'sent_starters', file),
    orthoContext: [...ortho as Map<string, number>]
  }
}
