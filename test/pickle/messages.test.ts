/**
 * Refusals that say what to do: a model file re-encoded as UTF-8 text (made from real files by
 * test/fixtures/messages/generate.py) and a CatBoost classifier.
 */
import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { decodePickleBytes } from '../../src/pickle/read-pickle-file.js'
import { textDamage } from '../../src/pickle/text-damage.js'
import { loadModel } from '../../src/sklearn/load-model.js'
import { serviceErrorOf } from '../helpers/errors.js'
import { FIXTURES } from '../helpers/paths.js'

const DIR = path.join(FIXTURES, 'messages')
const DAMAGED = 'the file is not a pickle any more: it was saved as UTF-8 text, which replaced every byte that is not text by EF BF BD ' +
  '(what git does to a binary file not marked binary in .gitattributes, e.g. by `*.pkl binary`, or an editor or a text upload), and the lost bytes cannot be recovered; ' +
  'fetch the file again as binary (`git lfs pull` if the repository uses Git LFS, or the raw download) and load that copy'

describe('refusals that say what to do', () => {
  for (const [name, original] of [['text-copy.pkl', 'sklearn/logreg-binary/final_best_model.pkl'], ['text-copy-gz.joblib', 'sklearn/bundle-tuple-gz/bundle-gz.joblib']]) {
    it(`${name}: a ${original} saved as UTF-8 text says it is not a pickle any more and how to fetch it again`, async () => {
      const file = path.join(DIR, name!)
      const err = await serviceErrorOf(async () => await loadModel({ model: file }))
      expect({ code: err.code, message: err.message }).to.deep.equal({ code: 'ERR_PICKLE_INVALID', message: `${DAMAGED} in ${file}` })
    })

    it(`${original}: the real file is not taken for a damaged one`, async () => {
      const bytes = readFileSync(path.join(FIXTURES, original!))
      expect(textDamage(bytes)).to.equal(undefined)
      await decodePickleBytes(bytes)
    })
  }

  it('only U+FFFD in the first bytes of a file valid UTF-8 throughout counts as damage', () => {
    const encoder = new TextEncoder()
    expect(textDamage(encoder.encode('(lp0\n.\uFFFD'))).to.equal(undefined)
    expect(textDamage(encoder.encode('\uFFFD\x04\uFFFD'))?.detail).to.equal(DAMAGED)
    // A file that is not valid UTF-8 was never through a text round trip: its own error stands.
    expect(textDamage(Uint8Array.from([0xef, 0xbf, 0xbd, 0x80]))).to.equal(undefined)
  })

  it("a CatBoost classifier's refusal says to fit a served classifier instead", async () => {
    const file = path.join(DIR, 'catboost-classifier.pkl')
    const err = await serviceErrorOf(async () => await loadModel({ model: file }))
    expect(err.code).to.equal('ERR_PICKLE_GLOBAL_NOT_ALLOWED')
    expect(err.detail).to.equal("unsupported object 'catboost.core.CatBoostClassifier' (CatBoost models are not served: CatBoost cannot be run here to check answers against, " +
      'so none could be promised exact; to serve the app here, fit a served classifier on the same features instead (a scikit-learn one, XGBClassifier or LGBMClassifier) ' +
      'and save that; CatBoost exports (save_model as json, onnx or cpp) are not read either)')
  })
})
