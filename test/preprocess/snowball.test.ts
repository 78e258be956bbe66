import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { SNOWBALL_LANGUAGES, createSnowballStemmer } from '../../src/preprocess/stemmers/snowball/index.js'
import { FIXTURES } from '../helpers/paths.js'

/** A stem of null: NLTK raised (IndexError), so the port must throw. */
type Stems = Array<string | null>

interface Fixture {
  nltk: string
  languages: Record<string, { words: string[], stems: Stems, fresh?: Stems }>
  mixed: { words: string[], stems: Record<string, Stems> }
}

interface Mismatch { word: string, expected: string | null, actual: string }

const FIXTURE = JSON.parse(
  readFileSync(path.join(FIXTURES, 'preprocess', 'snowball.json'), 'utf8')
) as Fixture

/** Stems every word with `stemmerFor(i)` and lists where the result differs from NLTK's. */
function mismatches (words: string[], stems: Stems, stemmerFor: (i: number) => (word: string) => string): Mismatch[] {
  const found: Mismatch[] = []
  words.forEach((word, i) => {
    const expected = stems[i]!
    let actual: string
    try {
      actual = stemmerFor(i)(word)
    } catch (err) {
      if (expected === null && err instanceof RangeError) return
      actual = `threw ${String(err)}`
    }
    if (actual !== expected) found.push({ word, expected, actual })
  })
  return found
}

function expectNone (found: Mismatch[], total: number): void {
  expect(found.slice(0, 5), `${found.length} of ${total} words differ from NLTK`).to.deep.equal([])
}

describe('createSnowballStemmer', () => {
  it(`lists the languages of NLTK ${FIXTURE.nltk}'s SnowballStemmer, in its order`, () => {
    expect(SNOWBALL_LANGUAGES).to.deep.equal(Object.keys(FIXTURE.languages))
  })

  it('throws for an unknown language, naming it and the known ones', () => {
    for (const language of ['klingon', 'English', 'constructor', '']) {
      expect(() => createSnowballStemmer(language)).to.throw(Error, `'${language}'`)
        .with.property('message').that.includes(SNOWBALL_LANGUAGES.join(', '))
    }
  })

  context(`on corpus words, table-built words and hard cases, against NLTK ${FIXTURE.nltk}`, () => {
    for (const language of Object.keys(FIXTURE.languages)) {
      it(`stems every ${language} word and the shared mixed-language list exactly as NLTK does`, () => {
        const { words, stems, fresh } = FIXTURE.languages[language]!
        // One stemmer for the whole list, as NLTK's Arabic stemmer keeps state between words.
        const stemmer = createSnowballStemmer(language)
        expectNone(mismatches(words, stems, () => stemmer), words.length)
        if (fresh !== undefined) {
          expectNone(mismatches(words, fresh, () => createSnowballStemmer(language)), words.length)
        }
        const mixed = createSnowballStemmer(language)
        expectNone(mismatches(FIXTURE.mixed.words, FIXTURE.mixed.stems[language]!, () => mixed), FIXTURE.mixed.words.length)
      })
    }
  })
})
