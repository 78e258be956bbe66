import { expect } from 'chai'
import { buildPreprocessor } from '../../src/sklearn/text/analyzer.js'
import { forEachWordRun } from '../../src/python/word-runs.js'
import { NEEDS_EXACT_PATH, STOP_WORD, UNKNOWN, buildWordIndex, scanTokenIds, type IdBuffer } from '../../src/sklearn/vectorizers/word-index.js'

/** Characters whose lowercase, \w-ness or width are special cases of the one-pass scanner. */
const ALPHABET = ['a', 'B', 'z', 'İ', 'ı', 'i', 'Σ', 'σ', 'ς', 'ǅ', 'ẞ', 'ß', '\u212a', '_', '7', '\u0301', ' ', ' ', '-', '\t',
  '😀', '\ud801\udc00', '\ud801\udc28', '\ud800', '\udc00', 'é', 'Ω', 'Ⅻ', '日', '\u00a0']

/** A deterministic stream of texts over ALPHABET. */
function texts (count: number): string[] {
  let seed = 20261122
  const next = (): number => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return seed >>> 8 }
  return Array.from({ length: count }, () => Array.from({ length: 1 + next() % 14 }, () => ALPHABET[next() % ALPHABET.length]!).join(''))
}

describe('the one-pass word scanner against the exact path (lower the whole text, then split into \\w runs)', () => {
  // Tokens over the same alphabet, as a fitted vocabulary holds them (lowercased), plus a stop word.
  const vocabulary = [...new Set(texts(3000).flatMap(t => { const out: string[] = []; forEachWordRun(t.toLowerCase(), 1, (s, e) => out.push(t.toLowerCase().slice(s, e))); return out }))]
  const index = buildWordIndex(vocabulary, ['ab'])
  const tokenId = (t: string): number => { const buffer: IdBuffer = { ids: new Int32Array(4) }; const n = scanTokenIds(t, false, 1, index.tokens, buffer); return n === 1 ? buffer.ids[0]! : UNKNOWN }

  for (const [lowercase, minLength] of [[true, 1], [true, 2], [false, 1], [false, 2]] as const) {
    it(`finds the same tokens in 5,000 texts (lowercase ${String(lowercase)}, runs of ${minLength}+)`, () => {
      const preprocess = buildPreprocessor({ analyzer: 'word', lowercase, stripAccents: null, tokenPattern: '', stopWords: null, ngramRange: [1, 1] })
      const buffer: IdBuffer = { ids: new Int32Array(2) }
      let exactPath = 0
      for (const text of texts(5000)) {
        let n = scanTokenIds(text, lowercase, minLength, index.tokens, buffer)
        if (n === NEEDS_EXACT_PATH) {
          exactPath++
          n = scanTokenIds(preprocess(text), false, minLength, index.tokens, buffer)
        }
        const expected: number[] = []
        const lowered = preprocess(text)
        forEachWordRun(lowered, minLength, (s, e) => {
          const token = lowered.slice(s, e)
          const id = token === 'ab' ? STOP_WORD : tokenId(token)
          if (id !== STOP_WORD) expected.push(id)
        })
        expect(Array.from(buffer.ids.subarray(0, n)), JSON.stringify(text)).to.deep.equal(expected)
      }
      // Texts with İ, Σ or an astral \w take the exact path only when lowering.
      if (lowercase) expect(exactPath).to.be.within(500, 4500)
      else expect(exactPath).to.equal(0)
    })
  }
})
