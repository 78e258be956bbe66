/**
 * The data a model's declared steps read, found and read once where the app's installation
 * keeps it (NLTK's stop words and Punkt tables, Sastrawi's lists), as plain data: the thread
 * that decodes the model reads it, every worker builds the steps from this copy, and a
 * compiled model carries it, so it serves with no data installed. docs/preprocessing.md,
 * "Where the data comes from".
 */
import type { SastrawiFiles } from '../../settings/model-settings.js'
import type { NltkSplitSpec, SplitSpec, StepSpec, WordsStepSpec } from '../../settings/step-schema.js'
import type { TokenizerNltkVersion } from '../tokenizers/nltk-version.js'
import { readNltkPunkt, type PunktRead } from './nltk-punkt.js'
import { readNltkStopWords, type StopWordsRead } from './nltk-stopwords.js'
import type { FileRead } from './read-files.js'
import { readSastrawiDictionary, readSastrawiStopWords, type WordListRead } from './sastrawi-lists.js'
import { nltkDataFolders } from './search-path.js'

export interface StepData {
  /** NLTK's folders searched, in order (empty when no step needs NLTK data). */
  readonly nltkFolders: readonly string[]
  /** NLTK stop-word lists by language. */
  readonly stopwords: Readonly<Record<string, StopWordsRead>>
  /** Punkt tables by `${nltk version}/${language}`. */
  readonly punkt: Readonly<Record<string, PunktRead>>
  readonly sastrawiDictionary: WordListRead | null
  readonly sastrawiStopWords: WordListRead | null
}

/** Where a model's settings say its data is. */
export interface DataPlaces {
  readonly nltkData: string | null
  readonly sastrawi: SastrawiFiles | null
}

export const punktKey = (version: TokenizerNltkVersion, language: string): string => `${version}/${language}`

/** What one step needs: a thunk per datum, run by readStepData with the step's name for errors. */
interface Needs {
  stopwords: Set<string>
  punkt: Map<string, { version: TokenizerNltkVersion, language: string }>
  sastrawiDictionary: boolean
  sastrawiStopWords: boolean
}

function splitNeeds (split: SplitSpec | undefined, needs: Needs): void {
  if (split === undefined || split === 'str.split' || (typeof split === 'object' && ('re.split' in split || 're.findall' in split))) return
  const [name, options] = typeof split === 'string' ? [split, {}] : Object.entries(split as NltkSplitSpec)[0] as [string, Record<string, unknown>]
  if (name !== 'nltk.word_tokenize' && name !== 'nltk.sent_tokenize') return
  if (name === 'nltk.word_tokenize' && options.preserve_line === true) return
  const version = (options.nltk as TokenizerNltkVersion | undefined) ?? '3.8'
  const language = (options.language as string | undefined) ?? 'english'
  needs.punkt.set(punktKey(version, language), { version, language })
}

function wordNeeds (step: WordsStepSpec, needs: Needs): void {
  if (step.op === 'stopwords') {
    for (const language of typeof step.nltk === 'string' ? [step.nltk] : step.nltk ?? []) needs.stopwords.add(language)
    if (step.sastrawi === true) needs.sastrawiStopWords = true
  }
  if (step.op === 'sastrawi.Stemmer') needs.sastrawiDictionary = true
}

function stepNeeds (step: StepSpec): Needs {
  const needs: Needs = { stopwords: new Set(), punkt: new Map(), sastrawiDictionary: false, sastrawiStopWords: false }
  if (step.op === 'words') {
    splitNeeds(step.split, needs)
    for (const s of step.steps) wordNeeds(s, needs)
  } else if (step.op === 'sastrawi.Stemmer') {
    needs.sastrawiDictionary = true
  }
  return needs
}

/**
 * Reads what `steps` need from where `places` and NLTK's search path say.
 * @throws Error `preprocess step N (op): <what is missing, where it was looked for, the fix>`
 *   (the caller names the settings file).
 */
export function readStepData (steps: readonly StepSpec[], places: DataPlaces, env: NodeJS.ProcessEnv = process.env): StepData {
  const stopwords: Record<string, StopWordsRead> = {}
  const punkt: Record<string, PunktRead> = {}
  let sastrawiDictionary: WordListRead | null = null
  let sastrawiStopWords: WordListRead | null = null
  let folders: string[] | null = null
  const nltk = (): string[] => (folders ??= nltkDataFolders(places.nltkData, env))
  steps.forEach((step, i) => {
    try {
      const needs = stepNeeds(step)
      for (const language of needs.stopwords) stopwords[language] ??= readNltkStopWords(nltk(), language)
      for (const [key, { version, language }] of needs.punkt) punkt[key] ??= readNltkPunkt(nltk(), language, version)
      if (needs.sastrawiDictionary) sastrawiDictionary ??= readSastrawiDictionary(places.sastrawi)
      if (needs.sastrawiStopWords) sastrawiStopWords ??= readSastrawiStopWords(places.sastrawi)
    } catch (err) {
      throw new Error(`preprocess step ${i + 1} (${step.op}): ${err instanceof Error ? err.message : String(err)}`)
    }
  })
  return { nltkFolders: folders ?? [], stopwords, punkt, sastrawiDictionary, sastrawiStopWords }
}

/** Every file the data was read from, for `inspect` and a compiled model's sources: what, which folder, which file, SHA-256. */
export function filesRead (data: StepData): Array<FileRead & { readonly what: string }> {
  return [
    ...Object.values(data.stopwords).map(s => ({ what: `NLTK stopwords (${s.language})`, ...s.read })),
    ...Object.entries(data.punkt).flatMap(([key, p]) => p.files.map(f => ({ what: `NLTK ${p.layout} (${p.language}, for NLTK ${key.split('/')[0]!})`, ...f }))),
    ...(data.sastrawiDictionary === null ? [] : [{ what: 'Sastrawi dictionary', ...data.sastrawiDictionary.read }]),
    ...(data.sastrawiStopWords === null ? [] : [{ what: 'Sastrawi stop words', ...data.sastrawiStopWords.read }])
  ]
}
