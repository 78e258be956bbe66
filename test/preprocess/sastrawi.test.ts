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
import { createSastrawiStemmer, sastrawiStopWords } from '../../src/preprocess/stemmers/sastrawi.js'
import type { StepSpec } from '../../src/settings/step-schema.js'
import { FIXTURES } from '../helpers/paths.js'

interface Reference { source: string, words: Record<string, string>, texts: Array<{ text: string, stem: string, stop: string, stem_then_stop: string }> }
const REF = JSON.parse(readFileSync(path.join(FIXTURES, 'preprocess', 'sastrawi.json'), 'utf8')) as Reference

/** PySastrawi's StopWordRemover.remove: `text.split(' ')`, stop words dropped, joined by ' '. */
const STOP: StepSpec = { op: 'words', split: { 're.split': ' ' }, join: ' ', steps: [{ op: 'stopwords', sastrawi: true }] }
const compile = (steps: StepSpec[]): (text: string) => string => compilePreprocess(steps, null, 'model-settings.json')!

describe('Sastrawi (PySastrawi) as steps', function () {
  this.timeout(300000)

  it(`stems every one of ${Object.keys(REF.words).length} words as PySastrawi does`, () => {
    const stem = createSastrawiStemmer()
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
    const stem = createSastrawiStemmer()
    for (const t of REF.texts.slice(0, 200)) expect(perWord(t.text)).to.equal(pySplit(t.text).map(w => REF.words[w] ?? stem(w)).join(' '))
  })

  it("ships PySastrawi's 809 stop words and its dictionary with their source", () => {
    expect(sastrawiStopWords()).to.have.length(809)
    expect(sastrawiStopWords().slice(0, 3)).to.deep.equal(['a', 'ada', 'adalah'])
    expect(REF.source).to.match(/^github:har07\/PySastrawi@[0-9a-f]{40}$/)
  })
})
