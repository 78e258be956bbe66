import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import { NLTK_STOPWORD_LANGUAGES, NLTK_STOPWORDS_PATH, nltkStopWords } from '../../src/preprocess/stop-words.js'

// What `nltk.corpus.stopwords.fileids()` lists for the nltk_data package named in
// src/preprocess/data/SOURCES.md (stopwords.zip of 2022-07-04).
const NLTK_LANGUAGES = [
  'arabic', 'azerbaijani', 'basque', 'bengali', 'catalan', 'chinese', 'danish', 'dutch', 'english',
  'finnish', 'french', 'german', 'greek', 'hebrew', 'hinglish', 'hungarian', 'indonesian', 'italian',
  'kazakh', 'nepali', 'norwegian', 'portuguese', 'romanian', 'russian', 'slovene', 'spanish',
  'swedish', 'tajik', 'turkish'
]

describe('nltkStopWords', () => {
  const committed = JSON.parse(readFileSync(NLTK_STOPWORDS_PATH, 'utf8')) as Record<string, string[]>

  context('NLTK_STOPWORD_LANGUAGES', () => {
    it('lists every language NLTK lists, in its order', () => {
      expect(NLTK_STOPWORD_LANGUAGES).to.deep.equal(NLTK_LANGUAGES)
      expect(Object.keys(committed)).to.deep.equal(NLTK_LANGUAGES)
    })
  })

  context('for each language', () => {
    it('returns the committed list, whole and in file order', () => {
      for (const language of NLTK_LANGUAGES) expect(nltkStopWords(language), language).to.deep.equal(committed[language])
    })

    it('returns the same frozen list on every call', () => {
      const english = nltkStopWords('english')
      expect(nltkStopWords('english')).to.equal(english)
      expect(Object.isFrozen(english)).to.equal(true)
    })
  })

  context('english', () => {
    it("has NLTK's 179 words, 'i' first and \"wouldn't\" last", () => {
      const english = nltkStopWords('english')
      expect(english).to.have.length(179)
      expect(english.slice(0, 6)).to.deep.equal(['i', 'me', 'my', 'myself', 'we', 'our'])
      expect(english.slice(-4)).to.deep.equal(['won', "won't", 'wouldn', "wouldn't"])
    })
  })

  context('lists NLTK reads with their quirks', () => {
    it('keeps trailing spaces and repeats (basque), and drops blank lines (kazakh)', () => {
      const basque = nltkStopWords('basque')
      expect(basque).to.have.length(326)
      expect(basque.slice(0, 4)).to.deep.equal(['ahala', 'aitzitik', 'al', 'ala '])
      expect(basque.filter(w => w === 'bada ')).to.have.length(3)
      const kazakh = nltkStopWords('kazakh')
      expect(kazakh).to.have.length(324)
      expect(kazakh.every(w => w.trim() !== '')).to.equal(true)
    })

    it('keeps other scripts as they are (greek, chinese)', () => {
      expect(nltkStopWords('greek')).to.have.length(265)
      expect(nltkStopWords('chinese')).to.have.length(841)
    })
  })

  context('for a language NLTK does not have', () => {
    it('throws, naming the language and the available ones', () => {
      expect(() => nltkStopWords('klingon')).to.throw(Error, /"klingon".*arabic, azerbaijani/)
      expect(() => nltkStopWords('English')).to.throw(Error, /"English"/)
    })
  })
})
