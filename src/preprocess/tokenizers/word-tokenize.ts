/**
 * NLTK's `word_tokenize(text, preserve_line=...)` and `sent_tokenize(text)` for English
 * (nltk/tokenize/__init__.py): the sentences Punkt finds (or, with `preserve_line`, the
 * whole text as one), each through NLTKWordTokenizer.
 */
import type { TokenizerNltkVersion } from './nltk-version.js'
import { createPunktSentenceTokenizer, type SentenceTokenizer } from './punkt.js'
import { createNltkWordTokenizer, type WordTokenizer } from './treebank.js'

/** `sent_tokenize(text)` (language 'english'). */
export function createSentTokenize (version: TokenizerNltkVersion): SentenceTokenizer {
  return createPunktSentenceTokenizer(version)
}

/** `word_tokenize(text, preserve_line=preserveLine)` (language 'english'). */
export function createWordTokenize (version: TokenizerNltkVersion, preserveLine = false): WordTokenizer {
  const words = createNltkWordTokenizer(version)
  if (preserveLine) return words
  const sentences = createPunktSentenceTokenizer(version)
  return text => {
    const out: string[] = []
    for (const sentence of sentences(text)) for (const word of words(sentence)) out.push(word)
    return out
  }
}
