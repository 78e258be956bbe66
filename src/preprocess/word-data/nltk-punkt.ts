/**
 * Punkt's parameters for one language read where the app's NLTK reads them, in either layout
 * NLTK has used: tokenizers/punkt_tab/<language>/ (four text tables, NLTK >= 3.9) or
 * tokenizers/punkt/PY3/<language>.pickle (a pickled PunktSentenceTokenizer, NLTK < 3.9, read
 * by our own unpickler with only Punkt's classes allowed: punkt-pickle.ts). The step's `nltk`
 * version picks the layout looked for first; the other is taken when only it is installed (the
 * two hold the same tables). docs/preprocessing.md, "Where the data comes from".
 */
import path from 'node:path'
import type { TokenizerNltkVersion } from '../tokenizers/nltk-version.js'
import { missingData } from './missing-data.js'
import { punktTablesOfPickle } from './punkt-pickle.js'
import type { PunktTables } from './punkt-tables.js'
import { isFile, isFolder, readDataFile, utf8Text, type FileRead } from './read-files.js'

export type { PunktTables }

export interface PunktRead {
  readonly language: string
  readonly layout: 'punkt_tab' | 'punkt'
  readonly files: readonly FileRead[]
  readonly tables: PunktTables
}

const TAB_FILES = ['abbrev_types.txt', 'collocations.tab', 'sent_starters.txt', 'ortho_context.tab'] as const

const tabFolder = (language: string): string => path.join('tokenizers', 'punkt_tab', language)
const pickleFile = (language: string): string => path.join('tokenizers', 'punkt', 'PY3', `${language}.pickle`)

/** A table file's entries: its lines, the last newline ending the last one. */
function entries (text: string): string[] {
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines
}

function pairs (lines: readonly string[], file: string): string[][] {
  return lines.map(line => {
    const cut = line.split('\t')
    if (cut.length !== 2) throw new Error(`${file}: a line is not two tab-separated fields: ${JSON.stringify(line.slice(0, 80))}`)
    return cut
  })
}

function readTab (folder: string, language: string): PunktRead {
  const files: FileRead[] = []
  const text: Record<string, string[]> = {}
  for (const name of TAB_FILES) {
    const relative = path.join(tabFolder(language), name)
    const { bytes, read } = readDataFile(folder, relative)
    files.push(read)
    text[name] = entries(utf8Text(bytes, path.join(folder, relative)))
  }
  const where = (name: string): string => path.join(folder, tabFolder(language), name)
  const orthoContext = pairs(text['ortho_context.tab']!, where('ortho_context.tab')).map(([type, flags]) => {
    const n = Number(flags)
    if (!Number.isSafeInteger(n) || n < 0 || String(n) !== flags!.trim()) throw new Error(`${where('ortho_context.tab')}: ${JSON.stringify(flags)} is not a flag number`)
    return [type!, n] as const
  })
  const tables: PunktTables = {
    abbrevTypes: text['abbrev_types.txt']!,
    collocations: pairs(text['collocations.tab']!, where('collocations.tab')).map(p => p.join('\t')),
    sentStarters: text['sent_starters.txt']!,
    orthoContext
  }
  return { language, layout: 'punkt_tab', files, tables }
}

function readPickle (folder: string, language: string): PunktRead {
  const { bytes, read } = readDataFile(folder, pickleFile(language))
  return { language, layout: 'punkt', files: [read], tables: punktTablesOfPickle(bytes, path.join(folder, pickleFile(language))) }
}

const hasTab = (folder: string, language: string): boolean => isFolder(path.join(folder, tabFolder(language))) && TAB_FILES.every(f => isFile(path.join(folder, tabFolder(language), f)))
const hasPickle = (folder: string, language: string): boolean => isFile(path.join(folder, pickleFile(language)))

/**
 * @throws Error in one line naming the package, the folders searched and the fix when neither
 *   layout is installed for `language`.
 */
export function readNltkPunkt (folders: readonly string[], language: string, version: TokenizerNltkVersion): PunktRead {
  const tab = { has: hasTab, read: readTab }
  const pickle = { has: hasPickle, read: readPickle }
  for (const layout of version === '3.8' ? [pickle, tab] : [tab, pickle]) {
    const folder = folders.find(f => layout.has(f, language))
    if (folder !== undefined) return layout.read(folder, language)
  }
  throw version === '3.8'
    ? missingData('punkt', `${pickleFile(language)} (or ${tabFolder(language)}/)`, folders)
    : missingData('punkt_tab', `${tabFolder(language)}/ (or ${pickleFile(language)})`, folders)
}
