import { expect } from 'chai'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { ServiceError } from '../../src/errors.js'
import { createLancasterStemmer } from '../../src/preprocess/stemmers/lancaster.js'
import { createPorterStemmer, type PorterMode } from '../../src/preprocess/stemmers/porter.js'
import { FIXTURES } from '../helpers/paths.js'

const DIR = path.join(FIXTURES, 'preprocess')
const read = <T>(name: string): T => JSON.parse(readFileSync(path.join(DIR, name), 'utf8')) as T

const MODES: readonly PorterMode[] = ['ORIGINAL_ALGORITHM', 'MARTIN_EXTENSIONS', 'NLTK_EXTENSIONS']

type PorterFixture = {
  nltk: string
  words: string[]
  /** The words that lowercasing changes, stemmed again with to_lowercase=False. */
  cased_words: string[]
  blocks: Record<'NLTK_EXTENSIONS' | 'ORIGINAL_ALGORITHM', string[]>
} & Record<PorterMode | `${PorterMode}/to_lowercase=False`, string[]>

interface LancasterFixture {
  nltk: string
  words: string[]
  default: string[]
  strip_prefix: string[]
  blocks: { default: string[] }
}

/** The words whose stem differs from NLTK's, as "word -> got (expected)", the first ten and a count. */
function mismatches (words: readonly string[], expected: readonly string[], stem: (word: string) => string): string[] {
  const bad: string[] = []
  words.forEach((word, i) => {
    const got = stem(word)
    if (got !== expected[i]) bad.push(`${JSON.stringify(word)} -> ${JSON.stringify(got)} (NLTK ${JSON.stringify(expected[i])})`)
  })
  return bad.length > 10 ? [...bad.slice(0, 10), `... and ${bad.length - 10} more`] : bad
}

/** Per block of 4096 code points, SHA-256 (16 hex digits) over the stems of `build(X)`, as the generator computes it. */
function blockMismatches (expected: readonly string[], stem: (word: string) => string, build: (x: string) => string): string[] {
  const bad: string[] = []
  expected.forEach((digest, b) => {
    const h = createHash('sha256')
    for (let cp = b * 4096; cp < (b + 1) * 4096; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue
      h.update(stem(build(String.fromCodePoint(cp))), 'utf8')
      h.update(Buffer.from([0]))
    }
    if (h.digest('hex').slice(0, 16) !== digest) bad.push(`U+${(b * 4096).toString(16)}`)
  })
  return bad
}

describe('createPorterStemmer', () => {
  const fixture = read<PorterFixture>('porter.json')

  it('mirrors NLTK 3.8', () => {
    expect(fixture.nltk).to.equal('3.8')
  })

  for (const mode of MODES) {
    context(`in ${mode} mode`, () => {
      it(`stems all ${fixture.words.length} words as NLTK does`, () => {
        expect(mismatches(fixture.words, fixture[mode], createPorterStemmer(mode))).to.deep.equal([])
      })

      it('stems cased words unlowered as NLTK does with to_lowercase=False', () => {
        const stem = createPorterStemmer(mode, { toLowercase: false })
        expect(mismatches(fixture.cased_words, fixture[`${mode}/to_lowercase=False`], stem)).to.deep.equal([])
      })
    })
  }

  context('over every code point, block by block against NLTK', () => {
    it('stems a + X + X + ing as NLTK_EXTENSIONS does', function () {
      this.timeout(20_000)
      const stem = createPorterStemmer()
      expect(blockMismatches(fixture.blocks.NLTK_EXTENSIONS, stem, x => `a${x}${x}ing`)).to.deep.equal([])
    })

    it('stems X alone as ORIGINAL_ALGORITHM does', function () {
      this.timeout(20_000)
      const stem = createPorterStemmer('ORIGINAL_ALGORITHM')
      expect(blockMismatches(fixture.blocks.ORIGINAL_ALGORITHM, stem, x => x)).to.deep.equal([])
    })
  })

  context('with an unknown mode', () => {
    it('throws ERR_CONFIG_INVALID', () => {
      expect(() => createPorterStemmer('SNOWBALL' as PorterMode))
        .to.throw(ServiceError).with.property('code', 'ERR_CONFIG_INVALID')
    })
  })

  context('with the default mode', () => {
    it('uses NLTK_EXTENSIONS', () => {
      const stem = createPorterStemmer()
      expect(['skies', 'dying', 'generously', 'flies'].map(stem)).to.deep.equal(['sky', 'die', 'gener', 'fli'])
    })
  })
})

describe('createLancasterStemmer', () => {
  const fixture = read<LancasterFixture>('lancaster.json')

  it('mirrors NLTK 3.8', () => {
    expect(fixture.nltk).to.equal('3.8')
  })

  context('with the default rules', () => {
    it(`stems all ${fixture.words.length} words as NLTK does`, () => {
      expect(mismatches(fixture.words, fixture.default, createLancasterStemmer())).to.deep.equal([])
    })

    it('stems ab + X + ing as NLTK does for every code point', function () {
      this.timeout(20_000)
      expect(blockMismatches(fixture.blocks.default, createLancasterStemmer(), x => `ab${x}ing`)).to.deep.equal([])
    })
  })

  context('with stripPrefix', () => {
    it(`stems all ${fixture.words.length} words as NLTK does with strip_prefix_flag=True`, () => {
      const stem = createLancasterStemmer({ stripPrefix: true })
      expect(mismatches(fixture.words, fixture.strip_prefix, stem)).to.deep.equal([])
    })
  })
})
