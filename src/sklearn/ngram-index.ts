/**
 * Word n-gram look-up by token ids instead of joined strings. When tokens cannot contain
 * a space (the `\w`-run tokenizers), every vocabulary term splits back into its tokens, so
 * each token is looked up once per document and a bigram is a numeric key: no n-gram
 * string is built unless all its tokens are known and n > 2.
 */
export class NgramIndex {
  readonly #tokenIds = new Map<string, number>()
  /** Feature of each token id as a unigram, or -1. */
  readonly #unigram: Int32Array
  readonly #bigram = new Map<number, number>()
  readonly #vocabulary: ReadonlyMap<string, number>
  readonly #tokenCount: number

  constructor (vocabulary: ReadonlyMap<string, number>) {
    this.#vocabulary = vocabulary
    const grams: Array<[number[], number]> = []
    for (const [term, feature] of vocabulary) {
      const ids = term.split(' ').map(t => {
        let id = this.#tokenIds.get(t)
        if (id === undefined) {
          id = this.#tokenIds.size
          this.#tokenIds.set(t, id)
        }
        return id
      })
      grams.push([ids, feature])
    }
    this.#tokenCount = this.#tokenIds.size
    this.#unigram = new Int32Array(this.#tokenCount).fill(-1)
    for (const [ids, feature] of grams) {
      if (ids.length === 1) this.#unigram[ids[0]!] = feature
      else if (ids.length === 2) this.#bigram.set(ids[0]! * this.#tokenCount + ids[1]!, feature)
    }
  }

  /** The token's id, or -1 when no vocabulary term contains it. */
  tokenId (token: string): number {
    return this.#tokenIds.get(token) ?? -1
  }

  /**
   * Emits the feature of every n-gram of `tokens` (ids alongside) that is in the vocabulary,
   * for n in [minN, maxN], as scikit-learn's `_word_ngrams` enumerates them.
   */
  forEachFeature (tokens: readonly string[], ids: Int32Array, minN: number, maxN: number, emit: (feature: number) => void): void {
    const count = tokens.length
    for (let n = minN; n <= Math.min(maxN, count); n++) {
      for (let i = 0; i + n <= count; i++) {
        let known = true
        for (let k = i; k < i + n; k++) {
          if (ids[k]! < 0) { known = false; break }
        }
        if (!known) continue
        let feature: number | undefined
        if (n === 1) feature = this.#unigram[ids[i]!]
        else if (n === 2) feature = this.#bigram.get(ids[i]! * this.#tokenCount + ids[i + 1]!)
        else feature = this.#vocabulary.get(tokens.slice(i, i + n).join(' '))
        if (feature !== undefined && feature >= 0) emit(feature)
      }
    }
  }
}
