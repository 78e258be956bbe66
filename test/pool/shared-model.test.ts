import { expect } from 'chai'
import path from 'node:path'
import { ClassifierPool } from '../../src/pool/classifier-pool.js'
import { decodeModel } from '../../src/sklearn/load-model.js'
import { shareState, stateBytes } from '../../src/sklearn/shared-state.js'
import { FIXTURES } from '../helpers/paths.js'
import { requireShared } from '../helpers/shared-data.js'

/** An rbf SVC of the wild, read in place: the test using it fails in one line when it is absent. */
function svcModel (): { model: string, vectorizers: string[] } {
  const svc = requireShared('wild/15-AchmadAjiePriyajie-hatespeech-detection')
  return { model: path.join(svc, 'svm_model.joblib'), vectorizers: [path.join(svc, 'tfidf_vectorizer.joblib')] }
}

describe('one model, decoded once, shared by every worker', function () {
  this.timeout(60000)

  it('puts every array of a model in one shared buffer, leaving the rest of the state as it was', async () => {
    const { state } = await decodeModel(svcModel())
    const before = stateBytes(state)
    expect(before.shared).to.equal(0)
    const shared = shareState(state)
    expect(stateBytes(shared.state)).to.deep.equal({ total: before.total, shared: before.total })
    expect(shared.bytes).to.be.within(before.total, before.total + 8 * 200)
    expect(JSON.stringify(shared.state, (_, v: unknown) => ArrayBuffer.isView(v) ? Array.from(v as Float64Array).slice(0, 50) : v))
      .to.equal(JSON.stringify(state, (_, v: unknown) => ArrayBuffer.isView(v) ? Array.from(v as Float64Array).slice(0, 50) : v))
  })

  it('gives 3 workers the model with no array of their own: every byte of it is in the memory they share', async () => {
    const model = svcModel()
    const pool = await ClassifierPool.start({ modelPath: model.model, vectorizerPaths: model.vectorizers, workers: 3, predictionTimeoutMs: 10000, maxConcurrentRequests: 10, maxQueue: 10 })
    try {
      // An rbf SVC of 8,618 support vectors: MBs of arrays, held once.
      expect(pool.model.sharedBytes).to.be.greaterThan(1.5e6)
      expect(pool.workerMemory).to.have.length(3)
      for (const m of pool.workerMemory) {
        expect(m.ownBytes).to.equal(0)
        expect(m.sharedBytes).to.be.within(pool.model.sharedBytes - 8 * 200, pool.model.sharedBytes)
      }
      const results = await pool.classify(['a calm and kind message', 'you are all idiots'], 1)
      expect(results.classIndex).to.have.length(2)
    } finally {
      await pool.close()
    }
  })

  it('decodes in the pool, not in a worker: a bad file fails there, the error naming the file', async () => {
    const file = path.join(FIXTURES, 'pickle', 'os-system.pkl')
    let caught: unknown
    try {
      await ClassifierPool.start({ modelPath: file, vectorizerPaths: [], workers: 4, predictionTimeoutMs: 1000, maxConcurrentRequests: 1, maxQueue: 0 })
    } catch (err) {
      caught = err
    }
    // A worker's failure crosses the thread hop as a code and a message only; this one keeps its file.
    expect(caught).to.include({ code: 'ERR_PICKLE_GLOBAL_NOT_ALLOWED', file })
  })
})
