/**
 * NLTK's stop-word lists read as `nltk.corpus.stopwords.words(language)` reads them, where the
 * app's NLTK finds them: the reference copy ../shared/nltk_data as an NLTK_DATA folder, a
 * folder the settings name, NLTK's search path; and a model refusing in one line when none
 * has them.
 */
import { expect } from 'chai'
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { compilePreprocess } from '../../src/preprocess/compile-steps.js'
import { readNltkStopWords, stopWordLines } from '../../src/preprocess/word-data/nltk-stopwords.js'
import { nltkDataFolders } from '../../src/preprocess/word-data/search-path.js'
import { readStepData } from '../../src/preprocess/word-data/step-data.js'
import { readAppSource } from '../../src/model/served-model.js'
import { ServiceError } from '../../src/errors.js'
import type { StepSpec } from '../../src/settings/step-schema.js'
import { sharedNltkData } from '../helpers/word-data.js'

// What `nltk.corpus.stopwords.fileids()` lists for the stopwords package of ../shared/nltk_data.
const NLTK_LANGUAGES = [
  'arabic', 'azerbaijani', 'basque', 'bengali', 'catalan', 'chinese', 'danish', 'dutch', 'english',
  'finnish', 'french', 'german', 'greek', 'hebrew', 'hinglish', 'hungarian', 'indonesian', 'italian',
  'kazakh', 'nepali', 'norwegian', 'portuguese', 'romanian', 'russian', 'slovene', 'spanish',
  'swedish', 'tajik', 'turkish'
]

/** The 19 words NLTK's English list gained in 2025 (nltk_data's stopwords package after that change). */
const ADDED_2025 = ["he'd", "he'll", "he's", "i'd", "i'll", "i'm", "i've", "it'd", "it'll", "she'd", "she'll", "they'd", "they'll", "they're", "they've", "we'd", "we'll", "we're", "we've"]

const words = (language: string): readonly string[] => readNltkStopWords([sharedNltkData()], language).words
const STOP: StepSpec = { op: 'words', steps: [{ op: 'stopwords', nltk: 'english' }] }

/** A settings file beside a model name, its steps `steps`, its own keys `extra`. */
function settingsFile (steps: StepSpec[], extra: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'tfidf-stop-settings-'))
  const file = path.join(dir, 'model-settings.json')
  writeFileSync(file, JSON.stringify({ name: 'm', parameters: { extra: { tfidf_serve: { model: 'm.pkl', preprocess: steps, ...extra } } } }))
  return file
}

describe('NLTK stop words, read where NLTK reads them', () => {
  it('reads every language of ../shared/nltk_data\'s stopwords corpus', () => {
    const files = readdirSync(path.join(sharedNltkData(), 'corpora', 'stopwords')).filter(f => f !== 'README').sort()
    expect(files).to.deep.equal(NLTK_LANGUAGES)
    for (const language of NLTK_LANGUAGES) expect(words(language).length, language).to.be.greaterThan(0)
  })

  it("has NLTK's 179 English words, 'i' first and \"wouldn't\" last, with the file's SHA-256", () => {
    const english = readNltkStopWords([sharedNltkData()], 'english')
    expect(english.words).to.have.length(179)
    expect(english.words.slice(0, 6)).to.deep.equal(['i', 'me', 'my', 'myself', 'we', 'our'])
    expect(english.words.slice(-4)).to.deep.equal(['won', "won't", 'wouldn', "wouldn't"])
    expect(english.read).to.deep.equal({ folder: sharedNltkData(), file: path.join('corpora', 'stopwords', 'english'), sha256: english.read.sha256 })
    expect(english.read.sha256).to.match(/^[0-9a-f]{64}$/)
  })

  it('keeps trailing spaces and repeats (basque), and drops blank lines (kazakh), as NLTK does', () => {
    const basque = words('basque')
    expect(basque).to.have.length(326)
    expect(basque.slice(0, 4)).to.deep.equal(['ahala', 'aitzitik', 'al', 'ala '])
    expect(basque.filter(w => w === 'bada ')).to.have.length(3)
    const kazakh = words('kazakh')
    expect(kazakh).to.have.length(324)
    expect(kazakh.every(w => w.trim() !== '')).to.equal(true)
    expect(words('greek')).to.have.length(265)
    expect(words('chinese')).to.have.length(841)
    expect(stopWordLines('a\r\nb\n  \nc \u2028d\n')).to.deep.equal(['a', 'b', 'c ', 'd'])
  })

  it('names the corpus folder when it lacks a language (case-sensitive, as on Linux)', () => {
    expect(() => readNltkStopWords([sharedNltkData()], 'klingon')).to.throw(Error, /no NLTK stop-word list for "klingon"; the stopwords corpus at .*nltk_data\/corpora\/stopwords has arabic, azerbaijani/)
    expect(() => readNltkStopWords([sharedNltkData()], 'English')).to.throw(Error, /"English"/)
  })

  it('searches NLTK\'s path: the settings\' folder, NLTK_DATA, ~/nltk_data, the Python prefixes, then /usr/share, /usr/local/share, /usr/lib, /usr/local/lib', () => {
    expect(nltkDataFolders('/srv/app/nltk', { NLTK_DATA: `/a${path.delimiter}${path.delimiter}/b`, HOME: '/srv/u', VIRTUAL_ENV: '/venv' })).to.deep.equal([
      '/srv/app/nltk', '/a', '/b', '/srv/u/nltk_data',
      '/venv/nltk_data', '/venv/share/nltk_data', '/venv/lib/nltk_data',
      '/usr/nltk_data', '/usr/share/nltk_data', '/usr/lib/nltk_data',
      '/usr/local/nltk_data', '/usr/local/share/nltk_data', '/usr/local/lib/nltk_data',
      '/usr/local/lib/nltk_data'
    ].filter((f, i, all) => all.indexOf(f) === i))
  })

  it('an NLTK_DATA with the longer 2025 English list changes the answer as NLTK would: the first folder holding the corpus wins', () => {
    const newer = mkdtempSync(path.join(tmpdir(), 'tfidf-nltk-2025-'))
    mkdirSync(path.join(newer, 'corpora', 'stopwords'), { recursive: true })
    const list2025 = [...words('english'), ...ADDED_2025]
    writeFileSync(path.join(newer, 'corpora', 'stopwords', 'english'), list2025.join('\n') + '\n')
    expect(list2025).to.have.length(198)
    const text = "i'm sure they're saying it'll rain , and we'd agree"
    const before = compilePreprocess([STOP], null, 'model-settings.json', readStepData([STOP], { nltkData: null, sastrawi: null }, { NLTK_DATA: sharedNltkData(), HOME: '' }))!
    const after = compilePreprocess([STOP], null, 'model-settings.json', readStepData([STOP], { nltkData: null, sastrawi: null }, { NLTK_DATA: [newer, sharedNltkData()].join(path.delimiter), HOME: '' }))!
    // What NLTK answers with each folder as NLTK_DATA: [w for w in text.split() if w not in set(stopwords.words("english"))]
    expect(before(text)).to.equal("i'm sure they're saying it'll rain , we'd agree")
    expect(after(text)).to.equal('sure saying rain , agree')
    const data = readStepData([STOP], { nltkData: null, sastrawi: null }, { NLTK_DATA: [newer, sharedNltkData()].join(path.delimiter), HOME: '' })
    expect(data.stopwords.english!.read.folder).to.equal(newer)
    expect(data.stopwords.english!.words).to.have.length(198)
  })

  it('reads the folder model-settings.json names ("nltk_data", relative to the settings file) before NLTK_DATA', () => {
    const file = settingsFile([STOP], { nltk_data: path.relative(path.dirname(path.join(tmpdir(), 'x', 'y')), sharedNltkData()) })
    const app = readAppSource(file)!
    expect(app.settings.nltkData).to.equal(path.resolve(path.dirname(file), path.relative(path.dirname(path.join(tmpdir(), 'x', 'y')), sharedNltkData())))
    const named = settingsFile([STOP], { nltk_data: sharedNltkData() })
    expect(readAppSource(named)!.data.stopwords.english!.read.folder).to.equal(sharedNltkData())
  })

  it('a model whose steps need stop words NLTK cannot find refuses to load in one line naming the package, the folders searched and the fix', () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'tfidf-no-nltk-'))
    const file = settingsFile([{ op: 'str.lower' }, STOP], { nltk_data: empty })
    const saved = { NLTK_DATA: process.env.NLTK_DATA, HOME: process.env.HOME }
    process.env.NLTK_DATA = path.join(empty, 'also-empty')
    process.env.HOME = empty
    let error: unknown
    try {
      readAppSource(file)
    } catch (err) {
      error = err
    } finally {
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v
    }
    expect(error).to.be.instanceOf(ServiceError)
    const e = error as ServiceError
    expect(e.code).to.equal('ERR_CONFIG_INVALID')
    expect(e.file).to.equal(file)
    expect(e.detail).to.not.include('\n')
    expect(e.detail).to.match(/^invalid model settings: preprocess step 2 \(words\): NLTK's stopwords data is not installed: no corpora\/stopwords in /)
    expect(e.detail).to.include(`${empty}, ${path.join(empty, 'also-empty')}, ${path.join(empty, 'nltk_data')}, `)
    expect(e.detail).to.include('/usr/share/nltk_data')
    expect(e.detail).to.include('python -m nltk.downloader stopwords')
    expect(e.detail).to.include('set NLTK_DATA')
  })
})
