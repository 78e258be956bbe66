/**
 * The NLTK tokenizers a `words` step can split with (`"split": {"nltk.word_tokenize": {...}}`),
 * compiled from the settings into text -> words functions.
 */
import { compileReFindall, compileReSplit } from '../../python/re-functions.js'
import type { NltkSplitSpec } from '../../settings/step-schema.js'
import type { TokenizerNltkVersion } from './nltk-version.js'
import { createTreebankWordTokenizer } from './treebank.js'
import { createSentTokenize, createWordTokenize } from './word-tokenize.js'

export type Splitter = (text: string) => string[]

/** RegexpTokenizer's default flags: `re.UNICODE | re.MULTILINE | re.DOTALL`. */
const REGEXP_TOKENIZER_FLAGS = ['UNICODE', 'MULTILINE', 'DOTALL']

/** `RegexpTokenizer(pattern, gaps, discard_empty, flags).tokenize`. */
function regexpTokenizer (pattern: string, gaps: boolean, discardEmpty: boolean, flags: readonly string[], version: TokenizerNltkVersion): Splitter {
  if (version !== '3.8') throw new Error('NLTK 3.10 compiles RegexpTokenizer patterns with the regex module, not yet reproduced')
  if (!gaps) return compileReFindall(pattern, flags)
  const split = compileReSplit(pattern, flags)
  return discardEmpty ? text => split(text).filter(t => t !== '') : split
}

/**
 * The tokenizer a `split` names, by its name alone (defaults) or with its arguments.
 * @throws Error naming what cannot be reproduced (the caller names the step).
 */
export function compileNltkSplit (spec: NltkSplitSpec | string): Splitter {
  const [name, options] = typeof spec === 'string' ? [spec, {}] : Object.entries(spec)[0] as [string, Record<string, unknown>]
  const version = (options.nltk as TokenizerNltkVersion | undefined) ?? '3.8'
  switch (name) {
    case 'nltk.word_tokenize': return createWordTokenize(version, options.preserve_line === true)
    case 'nltk.sent_tokenize': return createSentTokenize(version)
    case 'nltk.TreebankWordTokenizer': return createTreebankWordTokenizer()
    // WordPunctTokenizer: RegexpTokenizer(r"\w+|[^\w\s]+") with the default flags.
    case 'nltk.wordpunct_tokenize': return regexpTokenizer(String.raw`\w+|[^\w\s]+`, false, true, REGEXP_TOKENIZER_FLAGS, version)
    case 'nltk.RegexpTokenizer':
      return regexpTokenizer(options.pattern as string, options.gaps === true, options.discard_empty !== false, (options.flags as string[] | undefined) ?? REGEXP_TOKENIZER_FLAGS, version)
    case 'nltk.TweetTokenizer': throw new Error('TweetTokenizer is not yet reproduced')
    default: throw new Error(`unknown tokenizer ${name}`)
  }
}
