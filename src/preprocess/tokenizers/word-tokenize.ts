/**
 * NLTK's `word_tokenize(text, language, preserve_line)` and `sent_tokenize(text, language)`
 * (nltk/tokenize/__init__.py): the sentences Punkt finds with that language's parameters (or,
 * with `preserve_line`, the whole text as one), each through NLTKWordTokenizer, which is the
 * same for every language.
 */
import type { TokenizerNltkVersion } from './nltk-version.js'
import { createPunktSentenceTokenizer, type SentenceTokenizer } from './punkt.js'
import type { PunktLanguage } from '../../settings/punkt-languages.js'
import { punktParameters } from './punkt-parameters.js'
import { createNltkWordTokenizer, type WordTokenizer } from './treebank.js'

/** `sent_tokenize(text, language)`. */
export function createSentTokenize (version: TokenizerNltkVersion, language: PunktLanguage = 'english'): SentenceTokenizer {
  return createPunktSentenceTokenizer(version, punktParameters(language))
}

/** `word_tokenize(text, language, preserve_line=preserveLine)`; with `preserveLine` no Punkt, so no parameters are read. */
export function createWordTokenize (version: TokenizerNltkVersion, preserveLine = false, language: PunktLanguage = 'english'): WordTokenizer {
  const words = createNltkWordTokenizer(version)
  if (preserveLine) return words
  const sentences = createSentTokenize(version, language)
  return text => {
    const out: string[] = []
    for (const sentence of sentences(text)) for (const word of words(sentence)) out.push(word)
    return out
  }
}
