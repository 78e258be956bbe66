/**
 * The Sastrawi Indonesian stemmer and stop words against PySastrawi itself
 * (test/fixtures/preprocess/sastrawi.json, made by sastrawi.py from github:har07/PySastrawi):
 * every dictionary word, affixed and reduplicated forms, odd inputs, and Indonesian texts.
 */
import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { compilePreprocess } from '../../src/preprocess/compile-steps.js'
import { pySplit } from '../../src/python/python-str.js'
import { createSastrawiStemmer } from '../../src/preprocess/stemmers/sastrawi.js'
import { PACKAGE_DICTIONARY, readSastrawiDictionary, readSastrawiStopWords } from '../../src/preprocess/word-data/sastrawi-lists.js'
import { readStepData } from '../../src/preprocess/word-data/step-data.js'
import type { StepSpec } from '../../src/settings/step-schema.js'
import { ServiceError } from '../../src/errors.js'
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { FIXTURES } from '../helpers/paths.js'
import { sharedSastrawi, sharedStepData } from '../helpers/word-data.js'

interface Reference { source: string, words: Record<string, string>, texts: Array<{ text: string, stem: string, stop: string, stem_then_stop: string }> }
const REF = JSON.parse(readFileSync(path.join(FIXTURES, 'preprocess', 'sastrawi.json'), 'utf8')) as Reference

/** PySastrawi's StopWordRemover.remove: `text.split(' ')`, stop words dropped, joined by ' '. */
const STOP: StepSpec = { op: 'words', split: { 're.split': ' ' }, join: ' ', steps: [{ op: 'stopwords', sastrawi: true }] }
const compile = (steps: StepSpec[]): (text: string) => string => compilePreprocess(steps, null, 'model-settings.json', sharedStepData(steps))!
const dictionary = (): readonly string[] => readSastrawiDictionary(sharedSastrawi()).words

describe('Sastrawi (PySastrawi) as steps', function () {
  this.timeout(300000)

  it(`stems every one of ${Object.keys(REF.words).length} words as PySastrawi does`, () => {
    const stem = createSastrawiStemmer(dictionary())
    const differing = Object.entries(REF.words).filter(([w, s]) => stem(w) !== s)
    expect(Object.keys(REF.words).length).to.be.greaterThan(150000)
    expect(differing.slice(0, 20)).to.deep.equal([])
  })

  it('the word list covers the rules: dictionary words, affixed forms, reduplications and odd inputs', () => {
    const stems = REF.words
    expect(stems.mentaati).to.equal('taat')
    expect(stems['berbalas-balasan']).to.equal('balas')
    expect(stems['meniru-nirukan']).to.equal('tiru')
    expect(stems.Belajar).to.equal('ajar')
    expect(stems['\u0131lmu']).to.equal('\u0131lmu') // kept by Python's [^a-z] with IGNORECASE
    expect(stems['rp10.000']).to.equal('rp10 000')
  })

  it(`stems ${REF.texts.length} Indonesian and Malay texts, and drops its stop words, as PySastrawi does`, () => {
    const stem = compile([{ op: 'sastrawi.Stemmer' }])
    const stop = compile([STOP])
    const both = compile([{ op: 'sastrawi.Stemmer' }, STOP])
    const ours = REF.texts.map(t => ({ text: t.text, stem: stem(t.text), stop: stop(t.text), stem_then_stop: both(t.text) }))
    expect(ours).to.deep.equal(REF.texts)
  })

  it('as a word step, stems each word as stemmer.stem(w) does', () => {
    const perWord = compile([{ op: 'words', steps: [{ op: 'sastrawi.Stemmer' }] }])
    const stem = createSastrawiStemmer(dictionary())
    for (const t of REF.texts.slice(0, 200)) expect(perWord(t.text)).to.equal(pySplit(t.text).map(w => REF.words[w] ?? stem(w)).join(' '))
  })

  it("reads PySastrawi's 809 stop words and its 29,932-word dictionary from the files the settings name (../shared/sastrawi)", () => {
    const stop = readSastrawiStopWords(sharedSastrawi())
    expect(stop.words).to.have.length(809)
    expect(stop.words.slice(0, 3)).to.deep.equal(['a', 'ada', 'adalah'])
    const dict = readSastrawiDictionary(sharedSastrawi())
    expect(dict.words).to.have.length(29932)
    expect(dict.read.sha256).to.equal('6c2c298fad69211e6a09129a03f5aeee42ada602949a4affd3d236f0ef4732ed')
    expect(REF.source).to.match(/^github:har07\/PySastrawi@[0-9a-f]{40}$/)
  })

  it('finds the dictionary inside an installed Sastrawi package folder the settings name (Stemmer/data/kata-dasar.txt)', () => {
    const pkg = path.join(mkdtempSync(path.join(tmpdir(), 'tfidf-sastrawi-')), 'Sastrawi')
    mkdirSync(path.join(pkg, 'Stemmer', 'data'), { recursive: true })
    symlinkSync(sharedSastrawi().dictionary!, path.join(pkg, PACKAGE_DICTIONARY))
    const data = readStepData([{ op: 'sastrawi.Stemmer' }], { nltkData: null, sastrawi: { package: pkg, dictionary: null, stopwords: null } })
    expect(data.sastrawiDictionary!.words).to.have.length(29932)
    expect(data.sastrawiDictionary!.read.folder).to.equal(path.join(pkg, 'Stemmer', 'data'))
    const stem = compilePreprocess([{ op: 'sastrawi.Stemmer' }], null, 'model-settings.json', data)!
    expect(stem('mentaati')).to.equal('taat')
  })

  it('refuses in one line naming what is missing and the fix when the settings name no Sastrawi lists, or a folder without them', () => {
    const message = (sastrawi: Parameters<typeof readStepData>[1]['sastrawi'], steps: StepSpec[]): string => {
      try {
        compilePreprocess(steps, null, 'model-settings.json', readStepData(steps, { nltkData: null, sastrawi }))
      } catch (err) {
        return (err as Error).message
      }
      try {
        compilePreprocess(steps, null, 'model-settings.json')
      } catch (err) {
        expect(err).to.be.instanceOf(ServiceError)
        return (err as Error).message
      }
      return 'no error'
    }
    const none = message(null, [{ op: 'sastrawi.Stemmer' }])
    expect(none).to.match(/^preprocess step 1 \(sastrawi\.Stemmer\): Sastrawi's dictionary \(kata-dasar\.txt\) is not named: name it in model-settings\.json: "sastrawi"/)
    expect(none).to.not.include('\n')
    const empty = mkdtempSync(path.join(tmpdir(), 'tfidf-no-sastrawi-'))
    expect(message({ package: empty, dictionary: null, stopwords: null }, [{ op: 'sastrawi.Stemmer' }])).to.include(`Sastrawi's dictionary is not installed: no ${path.join(empty, PACKAGE_DICTIONARY)}`)
    expect(message({ package: empty, dictionary: null, stopwords: null }, [STOP])).to.match(/^preprocess step 1 \(words\): Sastrawi's stop-word list is not named/)
    expect(message(null, [STOP])).to.include('StopWordRemoverFactory().get_stop_words()')
  })
})
