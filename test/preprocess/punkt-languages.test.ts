import { expect } from 'chai'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { compileNltkSplit } from '../../src/preprocess/tokenizers/nltk-split.js'
import type { NltkSplitSpec } from '../../src/settings/step-schema.js'
import { PUNKT_LANGUAGES, type PunktLanguage } from '../../src/settings/punkt-languages.js'
import { punktDataPath, punktParameters } from '../../src/preprocess/tokenizers/punkt-parameters.js'
import { FIXTURES } from '../helpers/paths.js'
import { hasShared, needShared } from '../helpers/shared-data.js'
import { tokenDigest } from '../helpers/token-digest.js'

/** What test/fixtures/preprocess/punkt-data.py writes, under NLTK 3.8 and 3.10.3 alike. */
const DATA_SHA256: Readonly<Record<PunktLanguage, string>> = {
  czech: '09cfc565c70d41c13e6f5dfb08a8feef8cc67c4ae220129a874c725b620e63d3',
  danish: 'aaed05c8005cd4693743081b51ebf5aea8e5043626974ea50931b4cdd406bbd4',
  dutch: '5c1931f369a3a85421140debd045c358aa2eb9ca97649b2e9810be9c0da04a62',
  english: 'cf5e398db258cee3be9eb3a624dd8d42e8fdc24ff491bc82023b6ad7f0fae5cf',
  estonian: 'aca4d3825fb2ef62627f63c3d22275030489e32748d69ed083884bd9357bb66b',
  finnish: '0b299d7ad6d2719fa7d8042d519e7d9d57c4eb67f23d04834644a797824f2f30',
  french: '4be4aab97dc0ae7cc4a38d668cd05254d02e27a8a440f89635fe60fb8f7c0b24',
  german: '20996ab0a177cd2aff6a4a447f7afe393ba581f27d7abc65a2ceb4711863de44',
  greek: '10fa055d8b00603c26e9eab7dff52ea8154edbd8ae4277f819b047888390b853',
  italian: '46687d77717905afec77ee6de0013f355bc96035091760b54c8861dcca2ca982',
  malayalam: '65b0c9c8d4ca6b4fe59940a9f3b1d8e5122a160903517d0936c384d99f9aa056',
  norwegian: '0d01a75403f440839031839f90c755320e6a2968440b142beafb66cc7c627e66',
  polish: '5d01e17c9a60f1a2cfc88f3b8c8aeb41015ec11784d458aadd50b68728e1c980',
  portuguese: 'ed35ede769b277829af91277deb618608ed6ecb3ba2801fa9b98988e9e1b2851',
  russian: '0caccc20b60a6ab35f6b333110a48bccd54337c369b1839fbcacfee407245ced',
  slovene: 'e78c3a908e27bd9c80400653b4dbe07fb8bab4e5aa17e78c305831ba02db97c6',
  spanish: '9d31a6bf5023d8e9981a4325643445fe7f650064e1e55307fa60896ee0a2a401',
  swedish: '607459ebe0f4decd94d30dbe5568da5cb0fbb9c801211f6f9f878cbfba887dd3',
  turkish: 'fd653c728525039b663b167027bd36832ddf81da82421fe96186e1428d78797d'
}

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
    it(`reads ${language}'s parameters as NLTK's tables (punkt-${language}.txt, byte for byte)`, () => {
      expect(createHash('sha256').update(readFileSync(punktDataPath(language))).digest('hex')).to.equal(DATA_SHA256[language])
      const params = punktParameters(language)
      expect(punktParameters(language)).to.equal(params)
      expect(params.abbrevTypes.size).to.be.greaterThan(0)
    })
  }

  it('reads Russian\'s tables as NLTK does: 1,989 abbreviation types (the empty string among them), nothing else', () => {
    const russian = punktParameters('russian')
    expect([russian.abbrevTypes.size, russian.abbrevTypes.has(''), russian.abbrevTypes.has('т.е'), russian.collocations.size, russian.sentStarters.size, russian.orthoContext.size])
      .to.deep.equal([1989, true, true, 0, 0, 0])
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
    context(`against NLTK ${fixture.nltk} (test/fixtures/preprocess/punkt-languages-${version}.json)`, () => {
      for (const language of PUNKT_LANGUAGES) {
        const texts = TEXTS[language]!
        it(`gives sent_tokenize's and word_tokenize's tokens in ${language} (${texts.length} texts)`, () => {
          expect(fixture.languages[language]).to.have.length(texts.length)
          expect(texts.length).to.be.at.least(50)
          const sentences = compileNltkSplit({ 'nltk.sent_tokenize': { language, nltk: version } })
          const words = compileNltkSplit({ 'nltk.word_tokenize': { language, nltk: version } })
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
})

interface UdhrFixture {
  nltk: string
  corpus_sha256: string
  labels: Record<string, string>
  languages: Record<string, { texts: number, sent_tokenize: string, word_tokenize: string }>
}

describe('Punkt in every language NLTK ships, on the whole UDHR (../shared/data/udhr-langid, read in place)', () => {
  const folder = needShared('data/udhr-langid')
  const corpus = hasShared('data/udhr-langid') ? readFileSync(path.join(folder, 'udhr-langid.jsonl')) : Buffer.alloc(0)
  const lines = new Map<string, string[]>()
  for (const record of corpus.toString('utf8').split('\n')) {
    if (record === '') continue
    const { text, label } = JSON.parse(record) as { text: string, label: string }
    lines.set(label, [...lines.get(label) ?? [], text])
  }
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
            const split = compileNltkSplit({ [`nltk.${call}`]: { language, nltk: version } } as NltkSplitSpec)
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
