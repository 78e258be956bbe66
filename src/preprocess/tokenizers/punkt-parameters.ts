/**
 * Punkt's parameters for one language (what NLTK's `sent_tokenize(text, language)` uses), made
 * from the tables the step read where the app's NLTK keeps them (word-data/nltk-punkt.ts):
 * sets for the look-ups, built once per tables object per thread.
 */
import type { PunktTables } from '../word-data/nltk-punkt.js'

/** `PunktParameters`: types are lowercased tokens, numbers as '##number##'. */
export interface PunktParameters {
  readonly abbrevTypes: ReadonlySet<string>
  /** Pairs of types, as `${first}\t${second}` (no type holds a tab). */
  readonly collocations: ReadonlySet<string>
  readonly sentStarters: ReadonlySet<string>
  /** Orthographic context flags by type; a type not here has 0. */
  readonly orthoContext: ReadonlyMap<string, number>
}

const built = new WeakMap<PunktTables, PunktParameters>()

/** The parameters of `tables` (from a few thousand entries for Russian to ~60,000 for Finnish). */
export function punktParameters (tables: PunktTables): PunktParameters {
  let params = built.get(tables)
  if (params === undefined) {
    params = Object.freeze({
      abbrevTypes: new Set(tables.abbrevTypes),
      collocations: new Set(tables.collocations),
      sentStarters: new Set(tables.sentStarters),
      orthoContext: new Map(tables.orthoContext)
    })
    built.set(tables, params)
  }
  return params
}
