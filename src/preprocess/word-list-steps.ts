/**
 * The steps of a `words` step that take the whole list of words, because each word's result
 * depends on its neighbours: NLTK's mark_negation and n-grams joined by the app. The word
 * steps around them still run word by word: a `words` step runs as the app's Python did, one
 * list comprehension after another.
 */
import { WORD_LIST_OPS, type WordListStepSpec, type WordsStepSpec } from '../settings/step-schema.js'
import { markNegation } from './mark-negation.js'
import { joinNgrams } from './word-ngrams.js'

/** A list of words to the next list (a new array; the one given is not changed). */
export type WordListFunction = (words: string[]) => string[]

/** Whether a step inside `words` takes the whole list. */
export function isWordListStep (step: WordsStepSpec): step is WordListStepSpec {
  return WORD_LIST_OPS.has(step.op)
}

export function compileWordListStep (step: WordListStepSpec): WordListFunction {
  switch (step.op) {
    case 'nltk.mark_negation': {
      const flip = step.double_neg_flip ?? false
      return words => markNegation(words, flip)
    }
    case 'ngrams': {
      const sizes = typeof step.n === 'number' ? [step.n] : [...step.n]
      const sep = step.sep ?? '_'
      return words => joinNgrams(words, sizes, sep, step.append)
    }
  }
}
