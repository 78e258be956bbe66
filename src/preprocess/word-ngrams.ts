/**
 * N-grams an app joins itself from adjacent words, the way notebooks write it:
 *
 *   grams = [sep.join(words[i:i + n]) for i in range(len(words) - n + 1)]
 *   words = words + grams          # append: true  (bigrams appended)
 *   words = grams                  # append: false (bigrams replacing the words)
 *
 * (`["_".join(p) for p in zip(words, words[1:])]` and `"_".join` over `nltk.bigrams(words)` or
 * `nltk.ngrams(words, n)` give the same list.) With several sizes, each size's n-grams follow in
 * the order given: `words + bigrams + trigrams` for n = [2, 3].
 */

/** The n-grams of `words` for each size in `sizes`, joined with `sep`, after `words` when `append`. */
export function joinNgrams (words: readonly string[], sizes: readonly number[], sep: string, append: boolean): string[] {
  const out = append ? words.slice() : []
  for (const n of sizes) {
    for (let i = 0; i + n <= words.length; i++) {
      let gram = words[i]!
      for (let k = 1; k < n; k++) gram += sep + words[i + k]!
      out.push(gram)
    }
  }
  return out
}
