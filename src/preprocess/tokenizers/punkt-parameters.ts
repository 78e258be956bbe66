/**
 * Punkt's parameters for one language (what NLTK's `sent_tokenize(text, language)` uses),
 * read once per thread, on first use of that language, from
 * src/preprocess/data/punkt-<language>.txt, made by test/fixtures/preprocess/punkt-data.py
 * from NLTK's own `punkt` and `punkt_tab` packages (the same tables; see SOURCES.md there).
 */
import assert from 'node:assert'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { PREPROCESS_DATA_DIR } from '../../layout.js'
import type { PunktLanguage } from '../../settings/punkt-languages.js'

/** A language's data file, kept with the sources (src/layout.ts). */
export const punktDataPath = (language: PunktLanguage): string => path.join(PREPROCESS_DATA_DIR, `punkt-${language}.txt`)

/** The English data file. */
export const PUNKT_DATA_PATH = punktDataPath('english')

/** `PunktParameters`: types are lowercased tokens, numbers as '##number##'. */
export interface PunktParameters {
  readonly abbrevTypes: ReadonlySet<string>
  /** Pairs of types, as `${first}\t${second}` (no type holds a tab). */
  readonly collocations: ReadonlySet<string>
  readonly sentStarters: ReadonlySet<string>
  /** Orthographic context flags by type; a type not here has 0. */
  readonly orthoContext: ReadonlyMap<string, number>
}

const loaded = new Map<PunktLanguage, PunktParameters>()

/** The English parameters (182 KB of text, parsed on first use). */
export const englishPunktParameters = (): PunktParameters => punktParameters('english')

/** One language's parameters (from 10 KB for Russian to 1.1 MB for Finnish, parsed on first use). */
export function punktParameters (language: PunktLanguage): PunktParameters {
  const cached = loaded.get(language)
  if (cached !== undefined) return cached
  const file = punktDataPath(language)
  const lines = readFileSync(file, 'utf8').split('\n')
  const sets = new Map<string, Set<string>>()
  const orthoContext = new Map<string, number>()
  let i = 0
  while (i < lines.length && lines[i]!.startsWith('#')) i++
  while (i < lines.length && lines[i] !== '') {
    const [section, a, b] = lines[i++]!.split(' ')
    const count = Number(section === '@ortho_context' ? b : a)
    const end = i + count
    assert(Number.isSafeInteger(count) && end <= lines.length, `bad section header ${lines[i - 1]!} in ${file}`)
    if (section === '@ortho_context') {
      const flags = Number(a)
      for (; i < end; i++) orthoContext.set(lines[i]!, flags)
    } else {
      assert(section === '@abbrev_types' || section === '@collocations' || section === '@sent_starters', `bad section ${section!} in ${file}`)
      sets.set(section, new Set(lines.slice(i, end)))
      i = end
    }
  }
  const params: PunktParameters = Object.freeze({
    abbrevTypes: sets.get('@abbrev_types')!,
    collocations: sets.get('@collocations')!,
    sentStarters: sets.get('@sent_starters')!,
    orthoContext
  })
  loaded.set(language, params)
  return params
}
