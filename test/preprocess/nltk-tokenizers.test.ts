import { expect } from 'chai'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { ServiceError } from '../../src/errors.js'
import { compilePreprocess } from '../../src/preprocess/compile-steps.js'
import { readModelSettings } from '../../src/settings/model-settings.js'
import type { NltkSplitSpec } from '../../src/settings/step-schema.js'
import { compileNltkSplit } from '../../src/preprocess/tokenizers/nltk-split.js'
import { FIXTURES } from '../helpers/paths.js'
import { tokenDigest } from '../helpers/token-digest.js'
import { punktFrom, sharedNltkData, sharedStepData } from '../helpers/word-data.js'

interface Fixture {
  nltk: string
  regex: string
  texts: number
  calls: Array<{ split: NltkSplitSpec, hashes: string }>
}

const TEXTS = JSON.parse(readFileSync(path.join(FIXTURES, 'preprocess', 'nltk-tokenizers-texts.json'), 'utf8')) as string[]
/** Both written by test/fixtures/preprocess/nltk-tokenizers.py, under NLTK 3.8 and 3.10.3. */
const FIXTURES_BY_VERSION: ReadonlyArray<readonly [string, Fixture]> = ['3.8', '3.10'].map(v =>
  [v, JSON.parse(readFileSync(path.join(FIXTURES, 'preprocess', `nltk-tokenizers-${v}.json`), 'utf8')) as Fixture] as const)

const describeCall = (split: NltkSplitSpec): string => JSON.stringify(split)

describe('NLTK tokenizers as word splitters', () => {
  const punkt = punktFrom()

  it('read the English Punkt tables NLTK ships, from ../shared/nltk_data (its punkt_tab/english files, byte for byte)', () => {
    const sha = createHash('sha256').update(readFileSync(path.join(sharedNltkData(), 'tokenizers', 'punkt_tab', 'english', 'abbrev_types.txt'))).digest('hex')
    expect(sha).to.equal('e1c377252e71ca06637be45f23b621403ddaf8d8554a00ded56723c5b5707ed1')
    expect(punkt('3.10', 'english').abbrevTypes).to.have.length(156)
  })

  for (const [version, fixture] of FIXTURES_BY_VERSION) {
    context(`against NLTK ${fixture.nltk} (regex ${fixture.regex}) on ${TEXTS.length} texts (test/fixtures/preprocess/nltk-tokenizers-${version}.json)`, () => {
      it('has thousands of texts for each call', () => {
        expect(fixture.texts).to.equal(TEXTS.length)
        expect(TEXTS.length).to.be.at.least(2000)
        for (const call of fixture.calls) expect(call.hashes).to.have.length(8 * TEXTS.length)
      })

      for (const call of fixture.calls) {
        it(`gives NLTK's tokens for ${describeCall(call.split)}`, () => {
          const split = compileNltkSplit(call.split, punkt)
          const mismatches: Array<{ text: string, actual: string[] }> = []
          TEXTS.forEach((text, i) => {
            const expected = call.hashes.slice(8 * i, 8 * i + 8)
            let actual: string[]
            try {
              actual = split(text)
            } catch (err) {
              actual = [`threw ${String(err)}`]
            }
            if (tokenDigest(actual) !== expected) mismatches.push({ text, actual })
          })
          expect({ count: mismatches.length, first: mismatches.slice(0, 4) }).to.deep.equal({ count: 0, first: [] })
        })
      }
    })
  }
})

describe('NLTK tokenizers in model-settings.json', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tfidf-nltk-split-'))
  /** The preprocessing a settings file with one `words` step splitting by `split` compiles to. */
  const compiled = (split: unknown, steps: unknown[] = []): ((text: string) => string) => {
    const file = path.join(dir, `${Math.random().toString(36).slice(2)}.json`)
    writeFileSync(file, JSON.stringify({ name: 'x', parameters: { extra: { tfidf_serve: { model: 'm.pkl', preprocess: [{ op: 'words', split, join: '|', steps }] } } } }))
    const declared = readModelSettings(file).preprocess
    return compilePreprocess(declared, null, file, sharedStepData(declared))!
  }
  const TEXT = "Mr. Smith isn't here. He left at 5 p.m. \"Really?\" she asked... @ann :-)"

  it('takes a tokenizer by its name alone, with NLTK 3.8 and its defaults', () => {
    for (const name of ['nltk.word_tokenize', 'nltk.sent_tokenize', 'nltk.TreebankWordTokenizer', 'nltk.wordpunct_tokenize', 'nltk.TweetTokenizer'] as const) {
      expect(compiled(name)(TEXT), name).to.equal(compileNltkSplit({ [name]: { nltk: '3.8' } } as NltkSplitSpec, punktFrom())(TEXT).join('|'))
    }
    expect(compiled('nltk.word_tokenize')(TEXT)).to.equal("Mr.|Smith|is|n't|here|.|He|left|at|5|p.m|.|``|Really|?|''|she|asked|...|@|ann|:|-|)")
  })

  it('runs the word steps on its tokens (word_tokenize, then stop words and lowercasing)', () => {
    const clean = compiled({ 'nltk.word_tokenize': { preserve_line: true, nltk: '3.10' } }, [{ op: 'str.lower' }, { op: 'stopwords', nltk: 'english' }, { op: 'keep', if: 'str.isalpha' }])
    expect(clean(TEXT)).to.equal('smith|left|really|asked|ann')
  })

  it('splits sentences by the language named (Russian: its abbreviations, where English\'s tables break after "А.С." and "т.е.")', () => {
    const text = 'Ай да А.С. Пушкин! Ай да сукин сын! Он жил в г. Москве, т.е. в столице.'
    // NLTK 3.8's word_tokenize(text, "russian"), word_tokenize(text); NLTK 3.10.3's sent_tokenize(text, "russian").
    expect(compiled({ 'nltk.word_tokenize': { language: 'russian' } })(text)).to.equal('Ай|да|А.С.|Пушкин|!|Ай|да|сукин|сын|!|Он|жил|в|г.|Москве|,|т.е.|в|столице|.')
    expect(compiled({ 'nltk.word_tokenize': { language: 'english' } })(text)).to.equal('Ай|да|А.С|.|Пушкин|!|Ай|да|сукин|сын|!|Он|жил|в|г.|Москве|,|т.е|.|в|столице|.')
    expect(compiled({ 'nltk.sent_tokenize': { language: 'russian', nltk: '3.10' } })(text)).to.equal('Ай да А.С. Пушкин!|Ай да сукин сын!|Он жил в г. Москве, т.е. в столице.')
  })

  const refused: ReadonlyArray<readonly [string, unknown, RegExp]> = [
    ['a language NLTK has no Punkt parameters for, naming those served', { 'nltk.word_tokenize': { language: 'japanese' } },
      /split\.nltk\.word_tokenize\.language must be equal to one of the allowed values \("czech", "danish", "dutch", "english", "estonian", "finnish", "french", "german", "greek", "italian", "malayalam", "norwegian", "polish", "portuguese", "russian", "slovene", "spanish", "swedish", "turkish"\)/],
    ['a language by another name than NLTK\'s', { 'nltk.sent_tokenize': { language: 'Russian' } }, /split\.nltk\.sent_tokenize\.language must be equal to one of the allowed values \("czech", /],
    ['an NLTK version not reproduced', { 'nltk.TweetTokenizer': { nltk: '3.9' } }, /split\.nltk\.TweetTokenizer\.nltk must be equal to one of the allowed values \("3\.8", "3\.10"\)/],
    ['an unknown argument', { 'nltk.word_tokenize': { preserve_lines: true } }, /split\.nltk\.word_tokenize must NOT have additional properties 'preserve_lines'/],
    ['RegexpTokenizer without a pattern', { 'nltk.RegexpTokenizer': { gaps: true } }, /split\.nltk\.RegexpTokenizer must have required property 'pattern'/],
    ['RegexpTokenizer by name alone', 'nltk.RegexpTokenizer', /split must be equal to one of the allowed values/],
    ['\\p{L} under NLTK 3.8 (re rejects it)', { 'nltk.RegexpTokenizer': { pattern: String.raw`\p{L}+` } }, /preprocess step 1 \(words\): pattern "\\\\p\{L\}\+": the bad escape \\p/],
    ["a POSIX class under NLTK 3.10's regex module", { 'nltk.RegexpTokenizer': { pattern: '[[:alpha:]]+', nltk: '3.10' } }, /a '\[' inside a class/]
  ]
  for (const [what, split, message] of refused) {
    it(`refuses ${what} at load, naming the step`, () => {
      let error: unknown
      try {
        compiled(split)
      } catch (err) {
        error = err
      }
      expect(error).to.be.instanceOf(ServiceError)
      expect((error as ServiceError).code).to.equal('ERR_CONFIG_INVALID')
      expect((error as ServiceError).message).to.match(message)
    })
  }
})
