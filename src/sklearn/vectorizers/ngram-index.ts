/**
 * Word n-gram look-up by token ids instead of joined strings. When tokens cannot contain
 * a space (the `\w`-run tokenizers), every vocabulary term splits back into its tokens, so
 * each token is looked up once per document, and unigrams and bigrams are found by id in
 * typed arrays (bigrams as sorted runs per first token, CSR-like: 8 bytes each rather than
 * a Map entry and a boxed key). Longer n-grams fall back to the joined string.
 */
import { STOP_WORD, TokenTable, UNKNOWN, scanTokenIds } from './token-table.js'

export class NgramIndex {
  /** Token ids, looked up straight from the text; stop words marked. */
  readonly #table: TokenTable
  readonly #scratch = { ids: new Int32Array(256) }
  /** Feature of each token id as a unigram, or -1. */
  readonly #unigram: Int32Array
  /** Bigrams starting with token t: second ids in #second[#start[t] .. #start[t+1]), sorted. */
  readonly #start: Int32Array
  readonly #second: Int32Array
  readonly #bigramFeature: Int32Array
  /** Kept only when the vocabulary has n-grams longer than two. */
  readonly #longer: ReadonlyMap<string, number> | undefined

  constructor (vocabulary: ReadonlyMap<string, number>, stopWords: ReadonlySet<string> | null) {
    const tokenIds = new Map<string, number>()
    // Pass 1: token ids, and how many bigrams start with each token.
    const startsWith: number[] = []
    let longest = 1
    for (const term of vocabulary.keys()) {
      const parts = term.split(' ')
      longest = Math.max(longest, parts.length)
      for (const t of parts) {
        if (!tokenIds.has(t)) {
          tokenIds.set(t, tokenIds.size)
          startsWith.push(0)
        }
      }
      if (parts.length === 2) startsWith[tokenIds.get(parts[0]!)!]!++
    }
    const tokens = tokenIds.size
    this.#unigram = new Int32Array(tokens).fill(-1)
    this.#start = new Int32Array(tokens + 1)
    for (let t = 0; t < tokens; t++) this.#start[t + 1] = this.#start[t]! + startsWith[t]!
    const total = this.#start[tokens]!
    this.#second = new Int32Array(total)
    this.#bigramFeature = new Int32Array(total)
    // Pass 2: fill, then sort each run by second id.
    const fill = Int32Array.from(this.#start.subarray(0, tokens))
    for (const [term, feature] of vocabulary) {
      const space = term.indexOf(' ')
      if (space < 0) {
        this.#unigram[tokenIds.get(term)!] = feature
      } else if (term.indexOf(' ', space + 1) < 0) {
        const first = tokenIds.get(term.slice(0, space))!
        const slot = fill[first]!++
        this.#second[slot] = tokenIds.get(term.slice(space + 1))!
        this.#bigramFeature[slot] = feature
      }
    }
    for (let t = 0; t < tokens; t++) this.#sortRun(this.#start[t]!, this.#start[t + 1]!)
    this.#longer = longest > 2 ? vocabulary : undefined
    this.#table = new TokenTable(tokens + (stopWords?.size ?? 0))
    // Stop words first: scikit-learn drops them before any look-up (wordTokens already has on the string path).
    for (const w of stopWords ?? []) this.#table.add(w, STOP_WORD)
    for (const [t, id] of tokenIds) this.#table.add(t, id)
  }

  /** Whether every vocabulary term has at most two tokens, so texts need no token strings. */
  get idsSuffice (): boolean {
    return this.#longer === undefined
  }

  /** The features of the n-grams (n <= 2) of the `\w` runs of `text`, straight from the text. */
  forEachFeatureOfText (text: string, minLength: number, minN: number, maxN: number, emit: (feature: number) => void): void {
    const count = scanTokenIds(text, minLength, this.#table, this.#scratch)
    const ids = this.#scratch.ids
    if (minN <= 1) {
      for (let i = 0; i < count; i++) {
        const id = ids[i]!
        if (id !== UNKNOWN) {
          const f = this.#unigram[id]!
          if (f >= 0) emit(f)
        }
      }
    }
    if (minN <= 2 && maxN >= 2) {
      for (let i = 0; i + 1 < count; i++) {
        const a = ids[i]!
        const b = ids[i + 1]!
        if (a !== UNKNOWN && b !== UNKNOWN) {
          const f = this.#bigram(a, b)
          if (f >= 0) emit(f)
        }
      }
    }
  }

  #sortRun (from: number, to: number): void {
    if (to - from < 2) return
    const order = Array.from({ length: to - from }, (_, k) => from + k).sort((a, b) => this.#second[a]! - this.#second[b]!)
    const seconds = order.map(k => this.#second[k]!)
    const features = order.map(k => this.#bigramFeature[k]!)
    this.#second.set(seconds, from)
    this.#bigramFeature.set(features, from)
  }

  /** The token's id, or -1 when no vocabulary term contains it. */
  tokenId (token: string): number {
    const id = this.#table.lookup(token, 0, token.length)
    return id === STOP_WORD ? UNKNOWN : id
  }

  #bigram (first: number, second: number): number {
    let lo = this.#start[first]!
    let hi = this.#start[first + 1]! - 1
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1
      const s = this.#second[mid]!
      if (s === second) return this.#bigramFeature[mid]!
      if (s < second) lo = mid + 1
      else hi = mid - 1
    }
    return -1
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
        else if (n === 2) feature = this.#bigram(ids[i]!, ids[i + 1]!)
        else feature = this.#longer?.get(tokens.slice(i, i + n).join(' '))
        if (feature !== undefined && feature >= 0) emit(feature)
      }
    }
  }
}
