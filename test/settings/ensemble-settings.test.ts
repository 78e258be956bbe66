/** An `ensemble` declared in model-settings.json: what it reads into, and what it refuses, each with its message. */
import { expect } from 'chai'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { readModelSettings } from '../../src/settings/model-settings.js'

describe('ensemble settings', () => {
  let dir: string
  before(() => { dir = mkdtempSync(path.join(tmpdir(), 'tfidf-ensemble-settings-')) })
  after(() => { rmSync(dir, { recursive: true, force: true }) })

  const read = (ensemble: unknown, more: object = {}): ReturnType<typeof readModelSettings> => {
    const file = path.join(dir, 'model-settings.json')
    writeFileSync(file, JSON.stringify({ name: 'e', parameters: { extra: { tfidf_serve: { ...more, ensemble } } } }))
    return readModelSettings(file)
  }
  const refusal = (ensemble: unknown, more: object = {}): string => {
    try {
      read(ensemble, more)
    } catch (err) {
      return (err as Error).message.replace(` in ${path.join(dir, 'model-settings.json')}`, '')
    }
    throw new Error('accepted')
  }

  it('reads members (files with the folder\'s vectorizer, models by name), weights and rules', () => {
    const s = read({ combine: 'vote', ties: 'first', members: [{ file: 'knn.pkl', weight: 2 }, { file: 'nb.pkl', vectorizer: 'other.pkl', name: 'bayes' }, { model: 'spam' }] }, { vectorizer: 'tfidf_vectorizer.pkl' })
    expect(s.model).to.equal(null)
    expect(s.ensemble).to.deep.equal({
      combine: 'vote',
      ties: 'first',
      separator: '',
      members: [
        { kind: 'file', name: 'knn', weight: 2, model: path.join(dir, 'knn.pkl'), vectorizers: [path.join(dir, 'tfidf_vectorizer.pkl')] },
        { kind: 'file', name: 'bayes', weight: 1, model: path.join(dir, 'nb.pkl'), vectorizers: [path.join(dir, 'other.pkl')] },
        { kind: 'model', name: 'spam', weight: 1, model: 'spam' }
      ]
    })
    expect(read({ combine: 'join', separator: '-', members: [{ file: 'a.pkl' }, { file: 'b.pkl' }] }).ensemble).to.deep.include({ combine: 'join', ties: null, separator: '-' })
  })

  it('refuses what is not defined, in one line naming what to do', () => {
    const two = [{ file: 'a.pkl' }, { file: 'b.pkl' }]
    expect(refusal({ combine: 'vote', members: two })).to.equal('invalid model settings: ensemble: a vote must say how a tie is broken: "ties": "first" (the first member\'s vote among the tied, as Counter(votes).most_common(1)) or "lowest" (the first tied class in class order)')
    expect(refusal({ combine: 'vote', ties: 'set', members: two })).to.equal('invalid model settings: parameters.extra.tfidf_serve.ensemble.ties must be equal to one of the allowed values ("first", "lowest")')
    expect(refusal({ combine: 'mean', ties: 'first', members: two })).to.equal('invalid model settings: ensemble: "ties" belongs to a vote, not to mean')
    expect(refusal({ combine: 'vote', ties: 'first', separator: '', members: two })).to.equal('invalid model settings: ensemble: "separator" belongs to a join, not to vote')
    expect(refusal({ combine: 'join', members: [{ file: 'a.pkl', weight: 2 }, { file: 'b.pkl' }] })).to.equal('invalid model settings: ensemble member 1: a join has no weights')
    expect(refusal({ combine: 'mean', members: [{ file: 'a.pkl', model: 'x' }, { file: 'b.pkl' }] })).to.equal('invalid model settings: ensemble member 1 must name either a "file" of the folder or a "model" of the repository')
    expect(refusal({ combine: 'mean', members: [{ model: 'x', vectorizer: 'v.pkl' }, { file: 'b.pkl' }] })).to.equal('invalid model settings: ensemble member 1 names the repository model "x", which has its own vectorizer: drop "vectorizer"')
    expect(refusal({ combine: 'mean', members: [{ file: 'a.pkl' }, { file: 'sub/a.pkl' }] })).to.equal('invalid model settings: ensemble: two members are named "a"; give one a "name"')
    expect(refusal({ combine: 'mean', members: two }, { model: 'm.pkl' })).to.equal('invalid model settings: an ensemble names its members, not a model file: drop "model" (or "ensemble")')
    expect(refusal({ combine: 'mean', members: [{ file: 'a.pkl' }] })).to.equal('invalid model settings: parameters.extra.tfidf_serve.ensemble.members must NOT have fewer than 2 items')
    expect(refusal({ combine: 'max', members: two })).to.equal('invalid model settings: parameters.extra.tfidf_serve.ensemble.combine must be equal to one of the allowed values ("vote", "mean", "join")')
    expect(refusal({ combine: 'mean', members: [{ file: 'a.pkl', weight: 0 }, { file: 'b.pkl' }] })).to.equal('invalid model settings: parameters.extra.tfidf_serve.ensemble.members.0.weight must be > 0')
  })
})
