/**
 * `words` steps that look at a word's neighbours (NLTK's mark_negation, the app's own n-gram
 * joins) and stop-word lists by difference, against what the apps' Python gave on every line
 * of four corpora (test/fixtures/preprocess/word-lists.py, NLTK 3.8 and 3.10.3 alike).
 */
import { expect } from 'chai'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { compilePreprocess } from '../../src/preprocess/compile-steps.js'
import { isNegation, markNegation } from '../../src/preprocess/mark-negation.js'
import { stopList } from '../../src/preprocess/stop-list.js'
import { readNltkStopWords } from '../../src/preprocess/word-data/nltk-stopwords.js'
import { sharedNltkData, sharedStepData } from '../helpers/word-data.js'
import { joinNgrams } from '../../src/preprocess/word-ngrams.js'
import { readModelSettings, type StepSpec } from '../../src/settings/model-settings.js'
import { FIXTURES } from '../helpers/paths.js'
import { hasShared, needShared } from '../helpers/shared-data.js'

interface Pipeline {
  name: string
  python: string
  preprocess: StepSpec[]
  blocks: string[]
  marked: number
  hard_outputs: string[]
}

interface Fixture {
  nltk: string
  block: number
  corpora: Array<[string, number]>
  hard: string[]
  pipelines: Pipeline[]
}

const FIXTURE = JSON.parse(readFileSync(path.join(FIXTURES, 'preprocess', 'word-lists.json'), 'utf8')) as Fixture
const DIR = mkdtempSync(path.join(tmpdir(), 'tfidf-word-lists-'))

const blockHash = (outputs: readonly string[]): string => createHash('sha256').update(outputs.join('\0'), 'utf8').digest('hex').slice(0, 16)

/** The corpora's texts in file order, as the generator read them (in ../shared/data; none when one is absent). */
function corpusTexts (): string[] {
  const folders = FIXTURE.corpora.map(([name]) => needShared(`data/${name}`))
  if (!FIXTURE.corpora.every(([name]) => hasShared(`data/${name}`))) return []
  return FIXTURE.corpora.flatMap(([name, count], i) => {
    const lines = readFileSync(path.join(folders[i]!, `${name}.jsonl`), 'utf8').split('\n').filter(l => l !== '')
    expect(lines.length, name).to.equal(count)
    return lines.map(l => (JSON.parse(l) as { text: string }).text)
  })
}

/** The steps as a settings file declares them: read and checked by the settings reader, then compiled. */
function compiled (name: string, preprocess: readonly unknown[]): (text: string) => string {
  const file = path.join(DIR, `${name}.json`)
  writeFileSync(file, JSON.stringify({ name, parameters: { extra: { tfidf_serve: { preprocess } } } }))
  const settings = readModelSettings(file)
  // The data read as a load reads it: NLTK's search path (NLTK_DATA: ../shared/nltk_data in tests).
  return compilePreprocess(settings.preprocess, null, file)!
}

function loadError (preprocess: readonly unknown[]): string {
  try {
    compiled('bad', preprocess)
  } catch (err) {
    return (err as Error).message.replace(/ in \/.*$/, '')
  }
  return 'loaded'
}

describe('word steps over the list of words, against the apps’ Python', function () {
  this.timeout(60000)
  const texts = corpusTexts()

  it('reads thousands of texts', () => {
    expect(texts.length).to.be.above(29000)
  })

  for (const pipeline of FIXTURE.pipelines) {
    context(pipeline.name, () => {
      const clean = compiled(pipeline.name, pipeline.preprocess)

      it('gives the hard cases what Python gave, whole', () => {
        expect(FIXTURE.hard.map(clean)).to.deep.equal(pipeline.hard_outputs)
      })

      it(`gives every corpus text what Python gave (${FIXTURE.corpora.map(c => c[0]).join(', ')})`, () => {
        const outputs = texts.map(clean)
        const blocks = Array.from({ length: Math.ceil(outputs.length / FIXTURE.block) }, (_, b) => blockHash(outputs.slice(b * FIXTURE.block, (b + 1) * FIXTURE.block)))
        const wrong = blocks.flatMap((h, b) => h === pipeline.blocks[b] ? [] : [b])
        expect({ blocks: blocks.length, wrong }).to.deep.equal({ blocks: pipeline.blocks.length, wrong: [] })
        expect(outputs.filter(o => o.includes('_NEG')).length).to.equal(pipeline.marked)
      })
    })
  }

  it('marks thousands of texts in the negation pipelines (the check is not vacuous)', () => {
    const marked = FIXTURE.pipelines.filter(p => p.name.includes('negat')).map(p => p.marked)
    expect(Math.min(...marked)).to.be.above(4000)
  })
})

describe('markNegation', () => {
  it("gives NLTK's own example", () => {
    expect(markNegation("I didn't like this movie . It was bad .".split(' ')))
      .to.deep.equal(['I', "didn't", 'like_NEG', 'this_NEG', 'movie_NEG', '.', 'It', 'was', 'bad', '.'])
  })

  it('marks a second negation inside the scope, or closes the scope with double_neg_flip', () => {
    const words = 'not never good . good'.split(' ')
    expect(markNegation(words)).to.deep.equal(['not', 'never_NEG', 'good_NEG', '.', 'good'])
    expect(markNegation(words, true)).to.deep.equal(['not', 'never', 'good', '.', 'good'])
    expect(words).to.deep.equal(['not', 'never', 'good', '.', 'good'])
  })

  it("finds negations as NEGATION_RE does: whole words, case-sensitive, any word with n't, a final newline allowed", () => {
    expect(['not', 'dont', "don't", "n't", "isn't", 'not\n', 'wasn\'t'].map(isNegation)).to.deep.equal([true, true, true, true, true, true, true])
    expect(['Not', 'NOT', "DON'T", 'nothing!', 'cannot', 'not\n\n', 'no-one', 'knot'].map(isNegation)).to.deep.equal([false, false, false, false, false, false, false, false])
  })

  it('ends a scope at one of . : ; ! ? alone, not at , or ... or ?!', () => {
    expect(markNegation('not a , b ... c ?! d ; e'.split(' '))).to.deep.equal(['not', 'a_NEG', ',_NEG', 'b_NEG', '..._NEG', 'c_NEG', '?!_NEG', 'd_NEG', ';', 'e'])
  })
})

describe('joinNgrams', () => {
  it('appends or replaces, size by size in the order given', () => {
    expect(joinNgrams(['a', 'b', 'c'], [2], '_', true)).to.deep.equal(['a', 'b', 'c', 'a_b', 'b_c'])
    expect(joinNgrams(['a', 'b', 'c'], [2], '_', false)).to.deep.equal(['a_b', 'b_c'])
    expect(joinNgrams(['a', 'b', 'c'], [2, 3], '+', true)).to.deep.equal(['a', 'b', 'c', 'a+b', 'b+c', 'a+b+c'])
    expect(joinNgrams(['a'], [2], '_', false)).to.deep.equal([])
  })
})

describe('stop words by difference', () => {
  it('drops NLTK’s list less the words kept out, plus the words added', () => {
    const clean = compiled('difference', [{ op: 'words', steps: [{ op: 'stopwords', nltk: ['english'], except: ['not', 'no'], add: ['rt', 'amp'] }] }])
    expect(clean('rt this is not a film i would watch , no amp way')).to.equal('not film would watch , no way')
  })

  it('is the Python set (lists | add) - except', () => {
    const data = sharedStepData([{ op: 'words', steps: [{ op: 'stopwords', nltk: 'english' }] }])
    const stop = stopList({ nltk: 'english', sklearn: true, words: ['zz'], add: ['yy'], except: ['not', 'no', 'nor', 'absent-anyway'] }, data)
    const expected = new Set([...readNltkStopWords([sharedNltkData()], 'english').words, ...(stopList({ sklearn: true }, data)), 'zz', 'yy'])
    for (const w of ['not', 'no', 'nor', 'absent-anyway']) expected.delete(w)
    expect([...stop].sort()).to.deep.equal([...expected].sort())
  })

  it('refuses a word both added and kept out, an unknown language and an unknown key, naming them', () => {
    expect(loadError([{ op: 'words', steps: [{ op: 'stopwords', nltk: 'english', except: ['not'], add: ['not'] }] }]))
      .to.equal('invalid model settings: preprocess step 1 (words): word step 1 (stopwords): "not" both added and in "except": say only what the app\'s set ends with')
    expect(loadError([{ op: 'words', steps: [{ op: 'stopwords', nltk: ['english', 'English'] }] }]))
      .to.match(/^invalid model settings: preprocess step 1 \(words\): no NLTK stop-word list for "English"; the stopwords corpus at .*nltk_data\/corpora\/stopwords has arabic, .*english/)
    expect(loadError([{ op: 'words', steps: [{ op: 'stopwords', nltk: 'english', exclude: ['not'] }] }]))
      .to.equal("invalid model settings: preprocess step 1 (words) word step 1 (stopwords): must NOT have additional properties 'exclude' (known: op, nltk, sklearn, sastrawi, words, add, except)")
  })
})

describe('word list steps in the settings', () => {
  it('refuses ngrams without append or with n below 1, naming the field', () => {
    expect(loadError([{ op: 'words', steps: [{ op: 'ngrams', n: 2 }] }])).to.match(/word step 1 \(ngrams\): must have required property 'append'/)
    expect(loadError([{ op: 'words', steps: [{ op: 'ngrams', n: 0, append: true }] }])).to.match(/word step 1 \(ngrams\): n must be >= 1/)
  })

  it('runs word steps before and after a list step in order, as successive list comprehensions', () => {
    const clean = compiled('order', [{ op: 'words', steps: [{ op: 'str.lower' }, { op: 'nltk.mark_negation' }, { op: 'keep', if: 'str.isalpha' }, { op: 'ngrams', n: 2, append: true }] }])
    // "NOT" lowered first becomes a negation; "good_NEG" then fails isalpha and is dropped.
    expect(clean('NOT good . Fine film')).to.equal('not fine film not_fine fine_film')
  })
})

describe("the forms docs/preprocessing.md shows, as written", () => {
  it('re.sub flags as a list of names (["IGNORECASE"]) and keep if as Python names the method ("str.isalpha", "not str.isupper")', () => {
    const clean = compiled('readme-forms', [
      { op: 're.sub', pattern: 'http\\S+', repl: ' ', flags: ['IGNORECASE'] },
      { op: 'words', steps: [{ op: 'keep', if: 'str.isalpha' }, { op: 'keep', if: 'not str.isupper' }] }
    ])
    expect(clean('See HTTP://x.y NOW or never 42 times')).to.equal('See or never times')
    expect(loadError([{ op: 're.sub', pattern: 'a', repl: '', flags: 'IGNORECASE' }])).to.match(/flags must be array/)
    expect(loadError([{ op: 'words', steps: [{ op: 'keep', if: 'isalpha' }] }])).to.match(/if must be equal to one of the allowed values \("str\.isalpha", /)
  })
})

