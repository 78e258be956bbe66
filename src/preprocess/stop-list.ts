/**
 * A `stopwords` word step's list, as the app built its Python set: library lists and its own
 * words together, less the words it kept out. Apps keep negations out of NLTK's list far more
 * often than they write a list out:
 *
 *   stop = (set(stopwords.words("english")) | set(ENGLISH_STOP_WORDS) | set(add)) - set(except_)
 *
 * `words` (the older key) and `add` are the same: the app's own words, added.
 */
import { ENGLISH_STOP_WORDS } from '../sklearn/text/english-stop-words.js'
import type { StepData } from './word-data/step-data.js'

/** A `stopwords` step's declaration (its keys as the settings write them). */
export interface StopListSpec {
  /** NLTK's lists by language, e.g. "english" or ["english", "french"]. */
  readonly nltk?: string | readonly string[]
  /** scikit-learn's ENGLISH_STOP_WORDS. */
  readonly sklearn?: boolean
  /** PySastrawi's Indonesian stop words (StopWordRemoverFactory().get_stop_words()). */
  readonly sastrawi?: boolean
  readonly words?: readonly string[]
  readonly add?: readonly string[]
  /** Words taken out of the list after everything else is in it. */
  readonly except?: readonly string[]
}

/** A list the step's data holds (read when the model loaded: word-data/step-data.ts). */
function listOf (words: readonly string[] | undefined, what: string): readonly string[] {
  if (words === undefined) throw new Error(`${what} were not read for this step`)
  return words
}

/**
 * The set of words a `stopwords` step drops, the libraries' lists from `data`.
 * @throws Error naming a list `data` lacks, or a word
 *   both added and taken out, whose meaning depends on an order the settings do not say.
 */
export function stopList (spec: StopListSpec, data: StepData): ReadonlySet<string> {
  const stop = new Set<string>()
  for (const language of typeof spec.nltk === 'string' ? [spec.nltk] : spec.nltk ?? []) for (const w of listOf(data.stopwords[language]?.words, `NLTK's ${language} stop words`)) stop.add(w)
  if (spec.sklearn === true) for (const w of ENGLISH_STOP_WORDS) stop.add(w)
  if (spec.sastrawi === true) for (const w of listOf(data.sastrawiStopWords?.words, 'Sastrawi\'s stop words')) stop.add(w)
  const own = [...spec.words ?? [], ...spec.add ?? []]
  for (const w of own) stop.add(w)
  const kept = new Set(spec.except ?? [])
  const both = own.filter(w => kept.has(w))
  if (both.length > 0) {
    throw new Error(`${[...new Set(both)].map(w => JSON.stringify(w)).join(', ')} both added and in "except": say only what the app's set ends with`)
  }
  for (const w of kept) stop.delete(w)
  return stop
}
