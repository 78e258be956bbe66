import { expect } from 'chai'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { compileNltkSplit } from '../../src/preprocess/tokenizers/nltk-split.js'
import type { NltkSplitSpec } from '../../src/settings/step-schema.js'
import { PUNKT_LANGUAGES } from '../../src/settings/punkt-languages.js'
import { punktParameters } from '../../src/preprocess/tokenizers/punkt-parameters.js'
import { readNltkPunkt } from '../../src/preprocess/word-data/nltk-punkt.js'
import { FIXTURES } from '../helpers/paths.js'
import { needShared } from '../helpers/shared-data.js'
import { tokenDigest } from '../helpers/token-digest.js'
import { oneLayoutFolder, punktFrom, sharedNltkData } from '../helpers/word-data.js'

type Expected = Record<string, Array<[string[], string[]]>>
const read = (name: string): unknown => JSON.parse(readFileSync(path.join(FIXTURES, 'preprocess', name), 'utf8'))
/** Written by test/fixtures/preprocess/punkt-languages.py (texts: UDHR translations, Malayalam UD sentences, probes). */
const TEXTS = read('punkt-languages-texts.json') as Record<string, string[]>

describe('Punkt in every language NLTK ships', () => {
  it('serves the 19 languages of the punkt and punkt_tab packages', () => {
    expect(Object.keys(TEXTS)).to.deep.equal([...PUNKT_LANGUAGES])
    expect(PUNKT_LANGUAGES).to.have.length(19)
  })

  for (const language of PUNKT_LANGUAGES) {
    it(`reads ${language}'s tables alike from NLTK's pickle (punkt/PY3) and from punkt_tab (../shared/nltk_data)`, () => {
      const pickle = readNltkPunkt([sharedNltkData()], language, '3.8')
      const tab = readNltkPunkt([sharedNltkData()], language, '3.10')
      expect([pickle.layout, tab.layout]).to.deep.equal(['punkt', 'punkt_tab'])
      expect(pickle.files.map(f => f.file)).to.deep.equal([path.join('tokenizers', 'punkt', 'PY3', `${language}.pickle`)])
      expect(tab.files.map(f => path.basename(f.file))).to.deep.equal(['abbrev_types.txt', 'collocations.tab', 'sent_starters.txt', 'ortho_context.tab'])
      for (const f of [...pickle.files, ...tab.files]) expect(f.sha256).to.equal(createHash('sha256').update(readFileSync(path.join(f.folder, f.file))).digest('hex'))
      const a = punktParameters(pickle.tables)
      const b = punktParameters(tab.tables)
      expect(punktParameters(pickle.tables)).to.equal(a)
      expect([...a.abbrevTypes].sort()).to.deep.equal([...b.abbrevTypes].sort())
      expect([...a.collocations].sort()).to.deep.equal([...b.collocations].sort())
      expect([...a.sentStarters].sort()).to.deep.equal([...b.sentStarters].sort())
      expect([...a.orthoContext].sort()).to.deep.equal([...b.orthoContext].sort())
      expect(a.abbrevTypes.size).to.be.greaterThan(0)
    })
  }

  it('reads Russian\'s tables as NLTK does: 1,989 abbreviation types (the empty string among them), one flag of 0, nothing else', () => {
    const russian = punktParameters(readNltkPunkt([sharedNltkData()], 'russian', '3.10').tables)
    expect([russian.abbrevTypes.size, russian.abbrevTypes.has(''), russian.abbrevTypes.has('т.е'), russian.collocations.size, russian.sentStarters.size, [...russian.orthoContext]])
      .to.deep.equal([1989, true, true, 0, 0, [['download', 0]]])
  })

  const base = read('punkt-languages-3.8.json') as { nltk: string, languages: Expected }
  const newer = read('punkt-languages-3.10.json') as { nltk: string, 'differences_from_3.8': Record<string, Record<string, [string[], string[]]>> }
  /** NLTK 3.10.3's answers: 3.8's, but for the texts listed where they differ. */
  const expected310: Expected = Object.fromEntries(Object.entries(base.languages).map(([language, rows]) =>
    [language, rows.map((row, i) => newer['differences_from_3.8'][language]?.[String(i)] ?? row)]))

  it('has texts on which NLTK 3.10 differs from 3.8 (curly quotes, guillemets), so both are tested', () => {
    expect(Object.values(newer['differences_from_3.8']).reduce((n, d) => n + Object.keys(d).length, 0)).to.be.greaterThan(0)
  })

  for (const [version, fixture] of [['3.8', base], ['3.10', { nltk: newer.nltk, languages: expected310 }]] as const) {
    for (const layout of ['punkt', 'punkt_tab'] as const) {
    context(`against NLTK ${fixture.nltk} (test/fixtures/preprocess/punkt-languages-${version}.json), tables read from ${layout}`, () => {
      for (const language of PUNKT_LANGUAGES) {
        const texts = TEXTS[language]!
        it(`gives sent_tokenize's and word_tokenize's tokens in ${language} (${texts.length} texts)`, () => {
          expect(fixture.languages[language]).to.have.length(texts.length)
          expect(texts.length).to.be.at.least(50)
          const punkt = punktFrom(oneLayoutFolder(layout))
          const sentences = compileNltkSplit({ 'nltk.sent_tokenize': { language, nltk: version } }, punkt)
          const words = compileNltkSplit({ 'nltk.word_tokenize': { language, nltk: version } }, punkt)
          const mismatches: Array<{ text: string, actual: [string[], string[]], expected: [string[], string[]] }> = []
          texts.forEach((text, i) => {
            const actual: [string[], string[]] = [sentences(text), words(text)]
            const expected = fixture.languages[language]![i]!
            if (JSON.stringify(actual) !== JSON.stringify(expected)) mismatches.push({ text, actual, expected })
          })
          expect({ count: mismatches.length, first: mismatches.slice(0, 2) }).to.deep.equal({ count: 0, first: [] })
        })
      }
    })
    }
  }
})

interface UdhrFixture {
  nltk: string
  corpus_sha256: string
  labels: Record<string, string>
  languages: Record<string, { texts: number, sent_tokenize: string, word_tokenize: string }>
}

describe('Punkt in every language NLTK ships, on the whole UDHR (../shared/data/udhr-langid, read in place)', () => {
  const folder = needShared('data/udhr-langid')
  let corpus: Buffer
  const lines = new Map<string, string[]>()
  const punkt = punktFrom()
  before(() => {
    corpus = readFileSync(path.join(folder, 'udhr-langid.jsonl'))
    for (const record of corpus.toString('utf8').split('\n')) {
      if (record === '') continue
      const { text, label } = JSON.parse(record) as { text: string, label: string }
      lines.set(label, [...lines.get(label) ?? [], text])
    }
  })
  /** As test/fixtures/preprocess/punkt-udhr.py builds them: each line, then runs of five lines joined by a space. */
  const textsOf = (label: string): string[] => {
    const own = lines.get(label)!
    const runs: string[] = []
    for (let i = 0; i < own.length; i += 5) runs.push(own.slice(i, i + 5).join(' '))
    return [...own, ...runs]
  }

  for (const version of ['3.8', '3.10'] as const) {
    const fixture = read(`punkt-udhr-${version}.json`) as UdhrFixture
    context(`against NLTK ${fixture.nltk} (test/fixtures/preprocess/punkt-udhr-${version}.json)`, () => {
      it('reads the corpus the fixture was made from', () => {
        expect(createHash('sha256').update(corpus).digest('hex')).to.equal(fixture.corpus_sha256)
        expect(Object.keys(fixture.languages)).to.deep.equal([...PUNKT_LANGUAGES])
      })

      for (const language of PUNKT_LANGUAGES) {
        it(`gives sent_tokenize's and word_tokenize's tokens for the UDHR in ${language} (${fixture.labels[language]!})`, () => {
          const texts = textsOf(fixture.labels[language]!)
          const expected = fixture.languages[language]!
          expect(texts).to.have.length(expected.texts)
          expect(texts.length).to.be.at.least(90)
          const mismatches: Array<{ call: string, text: string, actual: string[] }> = []
          for (const call of ['sent_tokenize', 'word_tokenize'] as const) {
            const split = compileNltkSplit({ [`nltk.${call}`]: { language, nltk: version } } as NltkSplitSpec, punkt)
            texts.forEach((text, i) => {
              const actual = split(text)
              if (tokenDigest(actual) !== expected[call].slice(8 * i, 8 * i + 8)) mismatches.push({ call, text, actual })
            })
          }
          expect({ count: mismatches.length, first: mismatches.slice(0, 2) }).to.deep.equal({ count: 0, first: [] })
        })
      }
    })
  }
})
