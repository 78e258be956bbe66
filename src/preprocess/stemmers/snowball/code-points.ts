/**
 * Python indexes strings by code point, JavaScript by UTF-16 unit. The Snowball stemmers
 * only ever compare a character with fixed letters of their own (all in the BMP), so a
 * character outside the BMP behaves exactly like any BMP character the stemmer never
 * names. `withCodePoints` swaps each astral character for such a stand-in (private use,
 * then CJK and Hangul code points, none of them in any stemmer's tables or output and
 * none already in the word), runs the stemmer on a string whose lengths and indexes are
 * Python's, and swaps the stand-ins back.
 */

const SURROGATE = /[\uD800-\uDFFF]/
const STAND_IN_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0xE000, 0xF8FF], [0x3400, 0x4DBF], [0x4E00, 0x9FFF], [0xAC00, 0xD7A3]
]

/**
 * Runs `stem` on `word` as Python would see it, one UTF-16 unit per code point.
 * A lone surrogate is one code point in both languages and stays as it is.
 * @throws RangeError if a word holds more distinct astral characters than there are
 *   stand-ins left (about 45,000), far beyond any real token.
 */
export function withCodePoints (word: string, stem: (bmpWord: string) => string): string {
  if (!SURROGATE.test(word)) return stem(word)
  const inWord = new Set<number>()
  for (let i = 0; i < word.length; i++) inWord.add(word.charCodeAt(i))
  const standIns = new Map<string, string>()
  const originals = new Map<string, string>()
  const free = freeStandIns(inWord)
  let mapped = ''
  for (const ch of word) {
    if (ch.length === 1) {
      mapped += ch
      continue
    }
    let standIn = standIns.get(ch)
    if (standIn === undefined) {
      const next = free.next()
      if (next.done === true) throw new RangeError('too many distinct astral characters in one word')
      standIn = String.fromCharCode(next.value)
      standIns.set(ch, standIn)
      originals.set(standIn, ch)
    }
    mapped += standIn
  }
  const stemmed = stem(mapped)
  let out = ''
  for (let i = 0; i < stemmed.length; i++) {
    const ch = stemmed[i]!
    out += originals.get(ch) ?? ch
  }
  return out
}

function * freeStandIns (inWord: ReadonlySet<number>): Generator<number> {
  for (const [first, last] of STAND_IN_RANGES) {
    for (let code = first; code <= last; code++) if (!inWord.has(code)) yield code
  }
}
