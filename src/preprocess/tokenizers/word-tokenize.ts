/**
 * NLTK's `word_tokenize(text, language, preserve_line)` and `sent_tokenize(text, language)`
 * (nltk/tokenize/__init__.py): the sentences Punkt finds with that language's parameters (or,
 * with `preserve_line`, the whole text as one), each through NLTKWordTokenizer, which is the
 * same for every language.
 */
import type { TokenizerNltkVersion } from './nltk-version.js'
import { createPunktSentenceTokenizer, type SentenceTokenizer } from './punkt.js'
import type { PunktTables } from '../word-data/nltk-punkt.js'
import { punktParameters } from './punkt-parameters.js'
import { createNltkWordTokenizer, type WordTokenizer } from './treebank.js'

/** The Punkt tables of a language, as the step read them (word-data/step-data.ts). */
export type PunktTablesOf = (version: TokenizerNltkVersion, language: string) => PunktTables

/** `sent_tokenize(text, language)` with that language's tables. */
export function createSentTokenize (version: TokenizerNltkVersion, tables: PunktTables): SentenceTokenizer {
  return createPunktSentenceTokenizer(version, punktParameters(tables))
}

/** `word_tokenize(text, language, preserve_line=preserveLine)`; with `preserveLine` no Punkt, so no tables are needed. */
export function createWordTokenize (version: TokenizerNltkVersion, preserveLine: boolean, tables: () => PunktTables): WordTokenizer {
  const words = createNltkWordTokenizer(version)
  if (preserveLine) return words
  const sentences = createSentTokenize(version, tables())
  return text => {
    const out: string[] = []
    for (const sentence of sentences(text)) for (const word of words(sentence)) out.push(word)
    return out
  }
}
