import { expect } from 'chai'

/** Same length and every value within `tolerance` (absolute). */
export function expectClose (actual: ArrayLike<number>, expected: ArrayLike<number>, tolerance: number, where: string): void {
  expect(actual.length, where).to.equal(expected.length)
  for (let k = 0; k < expected.length; k++) {
    const diff = Math.abs(actual[k]! - expected[k]!)
    if (!(diff <= tolerance)) expect.fail(`${where}: item ${k} is ${actual[k]!}, scikit-learn says ${expected[k]!} (off by ${diff})`)
  }
}
