/**
 * Punkt's English parameters (what NLTK's `sent_tokenize(text)` uses), read once per thread
 * from src/preprocess/data/punkt-english.txt, made by test/fixtures/preprocess/punkt-data.py
 * from NLTK's own `punkt` and `punkt_tab` packages (the same tables; see SOURCES.md there).
 */
import assert from 'node:assert'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { PREPROCESS_DATA_DIR } from '../../layout.js'

/** The data file, kept with the sources (src/layout.ts). */
export const PUNKT_DATA_PATH = path.join(PREPROCESS_DATA_DIR, 'punkt-english.txt')

/** `PunktParameters`: types are lowercased tokens, numbers as '##number##'. */
export interface PunktParameters {
  readonly abbrevTypes: ReadonlySet<string>
  /** Pairs of types, as `${first}\t${second}` (no type holds a tab). */
  readonly collocations: ReadonlySet<string>
  readonly sentStarters: ReadonlySet<string>
  /** Orthographic context flags by type; a type not here has 0. */
  readonly orthoContext: ReadonlyMap<string, number>
}

let english: PunktParameters | undefined

/** The English parameters (182 KB of text, parsed on first use). */
export function englishPunktParameters (): PunktParameters {
  if (english !== undefined) return english
  const lines = readFileSync(PUNKT_DATA_PATH, 'utf8').split('\n')
  const sets = new Map<string, Set<string>>()
  const orthoContext = new Map<string, number>()
  let i = 0
  while (i < lines.length && lines[i]!.startsWith('#')) i++
  while (i < lines.length && lines[i] !== '') {
    const [section, a, b] = lines[i++]!.split(' ')
    const count = Number(section === '@ortho_context' ? b : a)
    const end = i + count
    assert(Number.isSafeInteger(count) && end <= lines.length, `bad section header ${lines[i - 1]!} in ${PUNKT_DATA_PATH}`)
    if (section === '@ortho_context') {
      const flags = Number(a)
      for (; i < end; i++) orthoContext.set(lines[i]!, flags)
    } else {
      assert(section === '@abbrev_types' || section === '@collocations' || section === '@sent_starters', `bad section ${section!} in ${PUNKT_DATA_PATH}`)
      sets.set(section, new Set(lines.slice(i, end)))
      i = end
    }
  }
  english = Object.freeze({
    abbrevTypes: sets.get('@abbrev_types')!,
    collocations: sets.get('@collocations')!,
    sentStarters: sets.get('@sent_starters')!,
    orthoContext
  })
  return english
}
