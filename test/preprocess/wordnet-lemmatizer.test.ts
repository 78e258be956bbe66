import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { createWordNetLemmatizer, type NltkVersion, type WordNetPos } from '../../src/preprocess/wordnet-lemmatizer.js'
import { FIXTURES } from '../helpers/paths.js'

type Call = WordNetPos | 'default'
interface Fixture {
  nltk: string
  wordnet: string
  words: string[]
  /** Per call, the words whose lemma is not the word itself (see wordnet-lemmatize.py). */
  changed: Record<Call, Record<string, string>>
}

const readFixture = (name: string): Fixture =>
  JSON.parse(readFileSync(path.join(FIXTURES, 'preprocess', name), 'utf8')) as Fixture
/** Both written by test/fixtures/preprocess/wordnet-lemmatize.py, under NLTK 3.8 and 3.10.3. */
const FIXTURES_BY_VERSION: ReadonlyArray<readonly [NltkVersion, string, Fixture]> = [
  ['3.8', 'wordnet.json', readFixture('wordnet.json')],
  ['3.9', 'wordnet-3.9.json', readFixture('wordnet-3.9.json')]
]
const CALLS: readonly Call[] = ['n', 'v', 'a', 'r', 's', 'default']
const lemmatizerFor = (call: Call, version?: NltkVersion): (word: string) => string =>
  version === undefined
    ? (call === 'default' ? createWordNetLemmatizer() : createWordNetLemmatizer(call))
    : createWordNetLemmatizer(call === 'default' ? undefined : call, version)

describe('createWordNetLemmatizer', () => {
  for (const [version, file, fixture] of FIXTURES_BY_VERSION) {
    context(`with nltkVersion '${version}', against NLTK ${fixture.nltk} and WordNet ${fixture.wordnet} (test/fixtures/preprocess/${file})`, () => {
      it('has at least 10,000 cases for every part of speech', () => {
        expect(fixture.nltk.startsWith(version === '3.8' ? '3.8' : '3.')).to.equal(true)
        expect(fixture.words.length).to.be.at.least(10_000)
        expect(Object.keys(fixture.changed)).to.have.members([...CALLS])
      })

      for (const call of CALLS) {
        it(`gives NLTK's lemma for every word with ${call === 'default' ? 'no pos' : `pos '${call}'`}`, () => {
          // The default version is 3.8's: its fixture is checked with the option left out.
          const lemmatize = lemmatizerFor(call, version === '3.8' ? undefined : version)
          const changed = new Map(Object.entries(fixture.changed[call]))
          const mismatches: Array<{ word: string, expected: string, actual: string }> = []
          for (const word of fixture.words) {
            const expected = changed.get(word) ?? word
            const actual = lemmatize(word)
            if (actual !== expected) mismatches.push({ word, expected, actual })
          }
          expect(mismatches).to.deep.equal([])
        })
      }
    })
  }

  context('with either NLTK version', () => {
    it('lemmatizes the same words, and both fixtures hold the same words', () => {
      const [[, , older], [, , newer]] = FIXTURES_BY_VERSION
      expect(newer!.words).to.deep.equal(older!.words)
      expect(newer!.nltk).to.not.match(/^3\.8(\.|$)/)
      expect(older!.nltk).to.match(/^3\.8(\.|$)/)
    })
  })

  context('on irregular, cased and odd words', () => {
    const cases: ReadonlyArray<readonly [string, Call, string]> = [
      ['geese', 'n', 'goose'], ['went', 'v', 'go'], ['better', 'a', 'good'], ['ran', 'v', 'run'],
      ['ate', 'v', 'eat'], ['women', 'n', 'woman'], ['corpora', 'n', 'corpus'], ['us', 'n', 'u'],
      ['has', 'v', 'have'], ['was', 'v', 'be'], ['leaves', 'n', 'leaf'], ['leaves', 'v', 'leave'],
      ['axes', 'n', 'ax'], ['abaci', 'default', 'abacus'], ['hardest', 's', 'hard'],
      ['lying', 'v', 'lie'], ['hot_dogs', 'n', 'hot_dog'], ['mothers-in-law', 'n', 'mother-in-law'],
      ['Dogs', 'n', 'Dogs'], ['1990s', 'n', '1990s'], ['cafés', 'n', 'cafés'], ['', 'n', '']
    ]
    for (const version of [undefined, '3.8', '3.9'] as const) {
      it(`gives the lemmas NLTK gives (nltkVersion ${version ?? 'left out'})`, () => {
        const actual = cases.map(([word, call]) => lemmatizerFor(call, version)(word))
        expect(actual).to.deep.equal(cases.map(([, , lemma]) => lemma))
      })
    }
  })

  context('where NLTK 3.9 stopped repeating the suffix rules', () => {
    // [word, call, NLTK 3.8's lemma, NLTK 3.9's and 3.10's]
    const cases: ReadonlyArray<readonly [string, Call, string, string]> = [
      ['needless', 'v', 'needle', 'needless'], ['feelings', 'v', 'feel', 'feelings'],
      ['beings', 'v', 'be', 'beings'], ['catss', 'n', 'cat', 'catss'],
      ['possesses', 'default', 'posse', 'possesses'], ['adulterer', 'a', 'adult', 'adulterer'],
      ['churcheses', 'n', 'church', 'churcheses'],
      // one round finds a form: both agree
      ['feelings', 'n', 'feeling', 'feeling'], ['dogs', 'n', 'dog', 'dog']
    ]
    it('keeps stripping in 3.8, the default', () => {
      expect(cases.map(([word, call]) => lemmatizerFor(call)(word))).to.deep.equal(cases.map(([, , lemma]) => lemma))
      expect(cases.map(([word, call]) => lemmatizerFor(call, '3.8')(word))).to.deep.equal(cases.map(([, , lemma]) => lemma))
    })
    it('strips once in 3.9', () => {
      expect(cases.map(([word, call]) => lemmatizerFor(call, '3.9')(word))).to.deep.equal(cases.map(([, , , lemma]) => lemma))
    })
  })

  context('on a very long run of suffixes', () => {
    it('strips them one round at a time, in time linear in the word', () => {
      const started = performance.now()
      expect(createWordNetLemmatizer('n')('dog' + 's'.repeat(200_000))).to.equal('dog')
      expect(createWordNetLemmatizer('v')('es'.repeat(100_000))).to.equal('es'.repeat(100_000))
      expect(createWordNetLemmatizer('n', '3.9')('dog' + 's'.repeat(200_000))).to.equal('dog' + 's'.repeat(200_000))
      expect(performance.now() - started).to.be.below(5_000)
    })
  })

  context('with a part of speech NLTK does not know', () => {
    it('throws, naming the ones it knows', () => {
      expect(() => createWordNetLemmatizer('x' as WordNetPos)).to.throw(Error, /"x".*n, v, a, r, s/)
    })
  })

  context('with an NLTK version it does not reproduce', () => {
    it('throws, naming the ones it does', () => {
      expect(() => createWordNetLemmatizer('n', '3.10' as NltkVersion)).to.throw(Error, /"3\.10".*3\.8, 3\.9/)
    })
  })
})
