import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { pyRound, pyRoundNearHalf } from '../../src/http/rounding.js'
import { ROOT } from '../helpers/paths.js'

/** [x, round(x, 2), round(x, 4)] as Python's repr writes them (test/fixtures/rounding/generate.py). */
const ROWS = (JSON.parse(readFileSync(path.join(ROOT, 'test', 'fixtures', 'rounding', 'python-round.json'), 'utf8')) as { rows: Array<[string, string, string]> }).rows

describe("pyRound: Python's round(x, digits)", () => {
  it('gives what Python gives for 5,912 doubles: random ones, exact ties of 2 and 4 digits and their neighbours', () => {
    const wrong = ROWS.filter(([x, two, four]) => !Object.is(pyRound(Number(x), 2), Number(two)) || !Object.is(pyRound(Number(x), 4), Number(four)))
    expect(wrong).to.deep.equal([])
    expect(ROWS.length).to.equal(5912)
  })

  it('rounds a double that only prints as a half by its exact value, as Python does, and an exact half to the even digit', () => {
    // 0.175 is 0.17499999999999998889...; 2.675 is 2.67499999999999982236...; 0.00005 is 0.0000500000000000000024.
    expect([pyRound(0.175, 2), pyRound(2.675, 2), pyRound(-0.175, 2), pyRound(0.00005, 4)]).to.deep.equal([0.17, 2.67, -0.17, 0.0001])
    expect([pyRound(0.125, 2), pyRound(0.375, 2), pyRound(-0.125, 2), pyRound(0.5, 0), pyRound(1.5, 0), pyRound(2.5, 0)]).to.deep.equal([0.12, 0.38, -0.12, 0, 2, 2])
    expect([pyRound(NaN, 2), pyRound(Infinity, 4)]).to.deep.equal([NaN, Infinity])
  })

  it('the arithmetic path for values far from a half and the decimal path agree on every double of the fixture', () => {
    for (const [x] of ROWS) for (const d of [2, 4]) expect(pyRound(Number(x), d), `${x} ${d}`).to.equal(pyRoundNearHalf(Number(x), d))
  })
})
