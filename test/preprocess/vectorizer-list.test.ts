/**
 * A CountVectorizer and a TfidfTransformer saved as two files, named in model-settings.json
 * as a list in `vectorizer` (docs/preprocessing.md), answer as scikit-learn did
 * (test/fixtures/sklearn/separate-transformer, made by test/fixtures/generate.py).
 */
import { expect } from 'chai'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { loadServedModel } from '../../src/model/served-model.js'
import { readModelSettings } from '../../src/settings/model-settings.js'
import { expectParity, readExpected } from '../helpers/parity.js'
import { FIXTURES } from '../helpers/paths.js'

const DIR = path.join(FIXTURES, 'sklearn', 'separate-transformer')
const TEXTS = (JSON.parse(readFileSync(path.join(FIXTURES, 'sklearn', 'texts.json'), 'utf8')) as { texts: string[] }).texts

describe('a CountVectorizer + TfidfTransformer pair named in the settings', () => {
  it('"vectorizer": [count, tfidf] serves the pair in that order, exactly', async () => {
    const tmp = mkdtempSync(path.join(tmpdir(), 'tfidf-pair-'))
    try {
      const file = path.join(tmp, 'model-settings.json')
      const extra = { model: path.join(DIR, 'final_best_model.pkl'), vectorizer: [path.join(DIR, 'count_vectorizer.pkl'), path.join(DIR, 'tfidf_transformer.pkl')] }
      writeFileSync(file, JSON.stringify({ name: 'pair', parameters: { extra: { tfidf_serve: extra } } }))
      const settings = readModelSettings(file)
      expect(settings.vectorizers).to.deep.equal(extra.vectorizer)
      const { predictor } = await loadServedModel({ paths: { model: settings.model!, vectorizers: settings.vectorizers }, settingsFile: settings.file })
      expect(predictor.info.vectorizer).to.equal('CountVectorizer + TfidfTransformer')
      expectParity(predictor, readExpected(DIR), TEXTS)
    } finally {
      rmSync(tmp, { recursive: true, force: true })
    }
  })
})
