/**
 * NLTK's `nltk.sentiment.util.mark_negation(document, double_neg_flip, shallow)` over a list
 * of words: each word after a negation gets "_NEG" appended, until a clause's punctuation ends
 * the scope. The same code in NLTK 3.8 through 3.10.3 (nltk/sentiment/util.py, unchanged since
 * 2021 but for its copyright line), checked against both by
 * test/fixtures/preprocess/word-lists.py.
 *
 * The rules, as NLTK writes them:
 * - a negation is a word NEGATION_RE finds: one of never, no, nothing, nowhere, noone, none,
 *   not, havent, hasnt, hadnt, cant, couldnt, shouldnt, wont, wouldnt, dont, doesnt, didnt,
 *   isnt, arent, aint as the whole word, or any word holding "n't" (case-sensitive: "Not" and
 *   "DON'T" are not negations);
 * - a negation outside a scope opens one and is left as it is; inside a scope it is marked
 *   like any word, unless `double_neg_flip`, when it closes the scope (and is left as it is);
 * - a word CLAUSE_PUNCT_RE finds (one of . : ; ! ? alone) closes a scope and is left as it is.
 * Both patterns are `^...$` searches without MULTILINE, so Python's `$` also matches before a
 * final "\n": "not\n" is a negation and ".\n" a clause's end, as a `re.split` split can leave them.
 *
 * `shallow` only decides whether NLTK copies the list before marking it; the words it returns
 * are the same either way.
 */

// NEGATION_RE's and CLAUSE_PUNCT_RE's anchored alternatives as sets: a look-up per word is
// cheaper than a regex, and `$` before a final "\n" is one more look-up.
const NEGATION_WORDS: ReadonlySet<string> = new Set(['never', 'no', 'nothing', 'nowhere', 'noone', 'none', 'not', 'havent', 'hasnt', 'hadnt', 'cant', 'couldnt', 'shouldnt', 'wont', 'wouldnt', 'dont', 'doesnt', 'didnt', 'isnt', 'arent', 'aint'])
const CLAUSE_PUNCT: ReadonlySet<string> = new Set(['.', ':', ';', '!', '?'])

/** Whether `word`, or `word` less a final "\n", is in `set`: a Python `^(?:...)$` search without MULTILINE. */
function anchoredIn (set: ReadonlySet<string>, word: string): boolean {
  return set.has(word) || (word.endsWith('\n') && set.has(word.slice(0, -1)))
}

/** Whether NLTK's NEGATION_RE finds `word` a negation. */
export function isNegation (word: string): boolean {
  return anchoredIn(NEGATION_WORDS, word) || word.includes("n't")
}

/** Whether NLTK's CLAUSE_PUNCT_RE finds `word` the end of a clause. */
export function isClausePunctuation (word: string): boolean {
  return word.length <= 2 && anchoredIn(CLAUSE_PUNCT, word)
}

/** `mark_negation(words, double_neg_flip=doubleNegFlip)`: a new list, `words` unchanged. */
export function markNegation (words: readonly string[], doubleNegFlip = false): string[] {
  const out = words.slice()
  let scope = false
  for (let i = 0; i < out.length; i++) {
    const word = out[i]!
    if (isNegation(word)) {
      if (!scope || doubleNegFlip) scope = !scope
      else out[i] = `${word}_NEG`
    } else if (scope) {
      if (isClausePunctuation(word)) scope = false
      else out[i] = `${word}_NEG`
    }
  }
  return out
}
