/**
 * The combination rules of an ensemble, on answers made up to reach each case (ties, weights,
 * classes that differ). The rules against the apps' own Python on 3,111 texts:
 * test/repository/ensembles.test.ts.
 */
import { expect } from 'chai'
import { ensembleClasses, join, mean, vote, type EnsembleClasses, type MemberAnswer } from '../../src/model/ensemble-rules.js'

const answer = (classIndex: number, confidence = 1, proba?: number[]): MemberAnswer => ({ classIndex, confidence, proba: proba === undefined ? undefined : Float64Array.from(proba) })
const table = (t: EnsembleClasses | string): EnsembleClasses => {
  if (typeof t === 'string') throw new Error(t)
  return t
}

describe('ensemble rules', () => {
  context('vote', () => {
    const abc = table(ensembleClasses('vote', 'first', '', [{ name: 'a', classes: ['x', 'y', 'z'] }, { name: 'b', classes: ['x', 'y', 'z'] }, { name: 'c', classes: ['x', 'y', 'z'] }]))
    const ones = Float64Array.of(1, 1, 1)

    it('gives the majority, with its share of the votes as confidence', () => {
      expect(vote([answer(2), answer(1), answer(2)], abc.maps, ones, 3, 'first')).to.deep.equal({ classIndex: 2, confidence: 2 / 3, proba: undefined })
    })

    it('breaks a three-way tie as Counter(votes).most_common(1) does ("first": the first member\'s vote) or by class order ("lowest")', () => {
      expect(vote([answer(2), answer(0), answer(1)], abc.maps, ones, 3, 'first').classIndex).to.equal(2)
      expect(vote([answer(1), answer(2), answer(0)], abc.maps, ones, 3, 'first').classIndex).to.equal(1)
      expect(vote([answer(2), answer(0), answer(1)], abc.maps, ones, 3, 'lowest').classIndex).to.equal(0)
      expect(vote([answer(2), answer(1), answer(0)], abc.maps, ones, 3, 'lowest')).to.deep.equal({ classIndex: 0, confidence: 1 / 3, proba: undefined })
    })

    it('adds weights in member order; equal sums are ties too (1.5 against 1 + 0.5)', () => {
      const w = Float64Array.of(1.5, 1, 0.5)
      expect(vote([answer(0), answer(1), answer(1)], abc.maps, w, 3, 'first')).to.deep.equal({ classIndex: 0, confidence: 0.5, proba: undefined })
      expect(vote([answer(1), answer(0), answer(0)], abc.maps, w, 3, 'lowest')).to.deep.equal({ classIndex: 0, confidence: 0.5, proba: undefined })
      expect(vote([answer(2), answer(0), answer(1)], abc.maps, w, 3, 'lowest')).to.deep.equal({ classIndex: 2, confidence: 0.5, proba: undefined })
    })

    it('counts members with other classes by label: the classes are every label, in the order first met', () => {
      const t = table(ensembleClasses('vote', 'first', '', [{ name: 'a', classes: ['ham', 'spam'] }, { name: 'b', classes: ['eggs', 'spam'] }]))
      expect(t.classes).to.deep.equal(['ham', 'spam', 'eggs'])
      expect(Array.from(t.maps[1]!)).to.deep.equal([2, 1])
      expect(vote([answer(1), answer(1)], t.maps, Float64Array.of(1, 1), 3, 'first')).to.deep.equal({ classIndex: 1, confidence: 1, proba: undefined })
    })

    it('refuses "lowest" over members whose classes differ, naming them', () => {
      expect(ensembleClasses('vote', 'lowest', '', [{ name: 'a', classes: ['ham', 'spam'] }, { name: 'b', classes: ['spam', 'ham'] }]))
        .to.equal('ties "lowest" needs every member to have the same classes in the same order: a has ham, spam, b has spam, ham')
    })
  })

  context('mean', () => {
    it('averages the probabilities with the weights; the label is the first largest (numpy\'s argmax)', () => {
      const r = mean([answer(0, 0.9, [0.9, 0.1]), answer(1, 0.7, [0.3, 0.7])], Float64Array.of(0.6, 0.4), 2)
      expect(r.classIndex).to.equal(0)
      expect(Array.from(r.proba!)).to.deep.equal([0.6 * 0.9 + 0.4 * 0.3, 0.6 * 0.1 + 0.4 * 0.7])
      expect(r.confidence).to.equal(r.proba![0])
      expect(mean([answer(0, 0.75, [0.75, 0.25]), answer(1, 0.75, [0.25, 0.75])], Float64Array.of(1, 1), 2)).to.deep.include({ classIndex: 0, confidence: 0.5 })
    })

    it('refuses members whose classes differ, naming both', () => {
      expect(ensembleClasses('mean', null, '', [{ name: 'lr', classes: ['ham', 'spam'] }, { name: 'nb', classes: ['0', '1'] }]))
        .to.equal('a mean adds the members\' probabilities class by class, so every member needs the same classes in the same order: lr has ham, spam, nb has 0, 1')
    })
  })

  context('join', () => {
    const letters = [{ name: 'ie', classes: ['E', 'I'] }, { name: 'ns', classes: ['N', 'S'] }, { name: 'tf', classes: ['F', 'T'] }, { name: 'jp', classes: ['J', 'P'] }]

    it('makes every combination in itertools.product order, and finds the joined label and the product of confidences', () => {
      const t = table(ensembleClasses('join', null, '', letters))
      expect(t.classes.length).to.equal(16)
      expect(t.classes.slice(0, 3)).to.deep.equal(['ENFJ', 'ENFP', 'ENTJ'])
      const r = join([answer(1, 0.9), answer(0, 0.8), answer(1, 0.7), answer(0, 0.6)], t.strides)
      expect(t.classes[r.classIndex]).to.equal('INTJ')
      expect(r.confidence).to.equal(0.9 * 0.8 * 0.7 * 0.6)
    })

    it('puts the separator between labels, and refuses a join that gives one label twice', () => {
      expect(table(ensembleClasses('join', null, '-', letters.slice(0, 2))).classes).to.deep.equal(['E-N', 'E-S', 'I-N', 'I-S'])
      expect(ensembleClasses('join', null, '', [{ name: 'a', classes: ['a', 'ab'] }, { name: 'b', classes: ['b', 'bb'] }]))
        .to.equal('a join of these members gives the label "abb" twice (from different member labels): choose a "separator"')
    })
  })
})
