/**
 * Two keys of model-settings.json from issue #38: `labels` on an ensemble's file member (as a
 * model's `labels`), and `max_workers`, a model's share of the workers (src/pool/model-shares.ts).
 */
import { expect } from 'chai'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { readModelSettings } from '../../src/settings/model-settings.js'

describe('model settings: member labels and max_workers', () => {
  let dir: string
  before(() => { dir = mkdtempSync(path.join(tmpdir(), 'tfidf-member-labels-')) })
  after(() => { rmSync(dir, { recursive: true, force: true }) })
  const file = (): string => path.join(dir, 'model-settings.json')
  const read = (tfidfServe: object): ReturnType<typeof readModelSettings> => {
    writeFileSync(file(), JSON.stringify({ name: 'm', parameters: { extra: { tfidf_serve: tfidfServe } } }))
    return readModelSettings(file())
  }
  const refusal = (tfidfServe: object): string => {
    try {
      read(tfidfServe)
    } catch (err) {
      return (err as Error).message.replace(` in ${file()}`, '')
    }
    throw new Error('accepted')
  }

  context('labels on an ensemble member', () => {
    it('reads a file member\'s own labels, a map or a LabelEncoder file beside the settings; a member without keeps none of its own', () => {
      const s = read({ vectorizer: 'v.pkl', labels: { 0: 'no', 1: 'yes' }, ensemble: { combine: 'join', members: [{ file: 'ie.pkl', labels: { 0: 'I', 1: 'E' } }, { file: 'ns.pkl', labels: { file: 'ns-encoder.pkl' } }, { file: 'tf.pkl' }] } })
      expect(s.labels).to.deep.equal({ map: { 0: 'no', 1: 'yes' } })
      expect(s.ensemble!.members).to.deep.equal([
        { kind: 'file', name: 'ie', weight: 1, model: path.join(dir, 'ie.pkl'), vectorizers: [path.join(dir, 'v.pkl')], labels: { map: { 0: 'I', 1: 'E' } } },
        { kind: 'file', name: 'ns', weight: 1, model: path.join(dir, 'ns.pkl'), vectorizers: [path.join(dir, 'v.pkl')], labels: { file: path.join(dir, 'ns-encoder.pkl') } },
        { kind: 'file', name: 'tf', weight: 1, model: path.join(dir, 'tf.pkl'), vectorizers: [path.join(dir, 'v.pkl')] }
      ])
    })

    it('refuses labels on a member named by repository model (its own settings name them), and labels of the wrong shape', () => {
      expect(refusal({ ensemble: { combine: 'join', members: [{ model: 'axis-ie', labels: { 0: 'I' } }, { model: 'axis-ns' }] } }))
        .to.equal('invalid model settings: ensemble member 1 names the repository model "axis-ie", which has its own labels (its settings\' "labels"): drop "labels"')
      expect(refusal({ ensemble: { combine: 'join', members: [{ file: 'a.pkl', labels: { 0: '' } }, { file: 'b.pkl' }] } })).to.match(/^invalid model settings: parameters\.extra\.tfidf_serve\.ensemble\.members\.0\.labels/)
      expect(refusal({ ensemble: { combine: 'join', members: [{ file: 'a.pkl', labels: ['I', 'E'] }, { file: 'b.pkl' }] } })).to.match(/^invalid model settings: parameters\.extra\.tfidf_serve\.ensemble\.members\.0\.labels/)
    })
  })

  context('max_workers', () => {
    it('is the model\'s own share of the workers, or null for the default rule', () => {
      expect(read({ max_workers: 1 }).maxWorkers).to.equal(1)
      expect(read({}).maxWorkers).to.equal(null)
    })

    it('refuses what is not a count of workers', () => {
      expect(refusal({ max_workers: 0 })).to.equal('invalid model settings: parameters.extra.tfidf_serve.max_workers must be >= 1')
      expect(refusal({ max_workers: 1.5 })).to.equal('invalid model settings: parameters.extra.tfidf_serve.max_workers must be integer')
    })
  })
})
