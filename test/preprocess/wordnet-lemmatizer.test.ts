import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { createWordNetLemmatizer, type WordNetPos } from '../../src/preprocess/wordnet-lemmatizer.js'
import { FIXTURES } from '../helpers/paths.js'

type Call = WordNetPos | 'default'
interface Fixture {
  nltk: string
  wordnet: string
  words: string[]
  /** Per call, the words whose lemma is not the word itself (see wordnet-lemmatize.py). */
  changed: Record<Call, Record<string, string>>
}

const FIXTURE = JSON.parse(readFileSync(path.join(FIXTURES, 'preprocess', 'wordnet.json'), 'utf8')) as Fixture
const CALLS: readonly Call[] = ['n', 'v', 'a', 'r', 's', 'default']
const lemmatizerFor = (call: Call): (word: string) => string =>
  call === 'default' ? createWordNetLemmatizer() : createWordNetLemmatizer(call)

describe('createWordNetLemmatizer', () => {
  context(`against NLTK ${FIXTURE.nltk} and WordNet ${FIXTURE.wordnet} (test/fixtures/preprocess/wordnet.json)`, () => {
    it('has at least 10,000 cases for every part of speech', () => {
      expect(FIXTURE.words.length).to.be.at.least(10_000)
      expect(Object.keys(FIXTURE.changed)).to.have.members([...CALLS])
    })

    for (const call of CALLS) {
      it(`gives NLTK's lemma for every word with ${call === 'default' ? 'no pos' : `pos '${call}'`}`, () => {
        const lemmatize = lemmatizerFor(call)
        const changed = new Map(Object.entries(FIXTURE.changed[call]))
        const mismatches: Array<{ word: string, expected: string, actual: string }> = []
        for (const word of FIXTURE.words) {
          const expected = changed.get(word) ?? word
          const actual = lemmatize(word)
          if (actual !== expected) mismatches.push({ word, expected, actual })
        }
        expect(mismatches).to.deep.equal([])
      })
    }
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
    it('gives the lemmas NLTK gives', () => {
      const actual = cases.map(([word, call]) => lemmatizerFor(call)(word))
      expect(actual).to.deep.equal(cases.map(([, , lemma]) => lemma))
    })
  })

  context('on a very long run of suffixes', () => {
    it('strips them one round at a time, in time linear in the word', () => {
      const started = performance.now()
      expect(createWordNetLemmatizer('n')('dog' + 's'.repeat(200_000))).to.equal('dog')
      expect(createWordNetLemmatizer('v')('es'.repeat(100_000))).to.equal('es'.repeat(100_000))
      expect(performance.now() - started).to.be.below(5_000)
    })
  })

  context('with a part of speech NLTK does not know', () => {
    it('throws, naming the ones it knows', () => {
      expect(() => createWordNetLemmatizer('x' as WordNetPos)).to.throw(Error, /"x".*n, v, a, r, s/)
    })
  })
})
