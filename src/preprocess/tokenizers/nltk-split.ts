/**
 * The NLTK tokenizers a `words` step can split with (`"split": {"nltk.word_tokenize": {...}}`),
 * compiled from the settings into text -> words functions.
 */
import { compileReFindall, compileReSplit, type EngineOptions } from '../../python/re-functions.js'
import { REGEX_2026_9_29 } from '../../python/regex-module-2026-9-29.js'
import { regexModuleSemantics } from '../../python/regex-module.js'
import type { NltkSplitSpec } from '../../settings/step-schema.js'
import type { TokenizerNltkVersion } from './nltk-version.js'
import type { PunktLanguage } from '../../settings/punkt-languages.js'
import { createTreebankWordTokenizer } from './treebank.js'
import { createTweetTokenizer } from './tweet-tokenizer.js'
import { createSentTokenize, createWordTokenize, type PunktTablesOf } from './word-tokenize.js'

export type Splitter = (text: string) => string[]

/** RegexpTokenizer's default flags: `re.UNICODE | re.MULTILINE | re.DOTALL`. */
const REGEXP_TOKENIZER_FLAGS = ['UNICODE', 'MULTILINE', 'DOTALL']

/**
 * `RegexpTokenizer(pattern, gaps, discard_empty, flags).tokenize`: `findall`, or `split` less
 * its empty strings. NLTK 3.8 compiles the pattern with `re`; NLTK 3.10 with the `regex`
 * module (nltk/redos.py, against catastrophic backtracking), whose `\w \d \s` and case
 * folding differ (the release checked beside 3.10.3: 2026.9.29).
 */
function regexpTokenizer (pattern: string, gaps: boolean, discardEmpty: boolean, flags: readonly string[], version: TokenizerNltkVersion): Splitter {
  const engine: EngineOptions = version === '3.8' ? {} : { regexModule: regexModuleSemantics(REGEX_2026_9_29) }
  if (!gaps) return compileReFindall(pattern, flags, engine)
  const split = compileReSplit(pattern, flags, 0, engine)
  return discardEmpty ? text => split(text).filter(t => t !== '') : split
}

/**
 * The tokenizer a `split` names, by its name alone (defaults) or with its arguments.
 * @throws Error naming what cannot be reproduced (the caller names the step).
 */
export function compileNltkSplit (spec: NltkSplitSpec | string, punkt: PunktTablesOf): Splitter {
  const [name, options] = typeof spec === 'string' ? [spec, {}] : Object.entries(spec)[0] as [string, Record<string, unknown>]
  const version = (options.nltk as TokenizerNltkVersion | undefined) ?? '3.8'
  switch (name) {
    case 'nltk.word_tokenize': return createWordTokenize(version, options.preserve_line === true, () => punkt(version, (options.language as PunktLanguage | undefined) ?? 'english'))
    case 'nltk.sent_tokenize': return createSentTokenize(version, punkt(version, (options.language as PunktLanguage | undefined) ?? 'english'))
    case 'nltk.TreebankWordTokenizer': return createTreebankWordTokenizer()
    // WordPunctTokenizer: RegexpTokenizer(r"\w+|[^\w\s]+") with the default flags.
    case 'nltk.wordpunct_tokenize': return regexpTokenizer(String.raw`\w+|[^\w\s]+`, false, true, REGEXP_TOKENIZER_FLAGS, version)
    case 'nltk.RegexpTokenizer':
      return regexpTokenizer(options.pattern as string, options.gaps === true, options.discard_empty !== false, (options.flags as string[] | undefined) ?? REGEXP_TOKENIZER_FLAGS, version)
    case 'nltk.TweetTokenizer':
      return createTweetTokenizer(version, {
        preserveCase: options.preserve_case !== false,
        reduceLen: options.reduce_len === true,
        stripHandles: options.strip_handles === true,
        matchPhoneNumbers: options.match_phone_numbers !== false
      })
    default: throw new Error(`unknown tokenizer ${name}`)
  }
}
