/**
 * CodePointSet (src/python/code-point-set.ts) fills whole 32-bit words inside a range: the
 * same membership as setting each code point's bit, for every range table the service builds
 * sets from and for ranges that start and end anywhere in a word.
 */
import { expect } from 'chai'
import { CodePointSet } from '../../src/python/code-point-set.js'
import * as tables from '../../src/python/unicode-tables.js'

function differences (ranges: readonly number[]): number[] {
  const naive = new Set<number>()
  for (let i = 0; i < ranges.length; i += 2) for (let cp = ranges[i]!; cp <= ranges[i + 1]!; cp++) naive.add(cp)
  const set = new CodePointSet(ranges)
  const wrong: number[] = []
  for (let cp = 0; cp < 0x110000; cp++) if (set.has(cp) !== naive.has(cp)) wrong.push(cp)
  return wrong
}

describe('CodePointSet', () => {
  it('holds exactly the code points of each of the Unicode range tables', () => {
    const named = Object.entries(tables).filter(([name]) => name.endsWith('_RANGES')) as Array<[string, number[]]>
    expect(named.length).to.be.greaterThan(3)
    for (const [name, ranges] of named) expect(differences(ranges), name).to.deep.equal([])
  })

  it('holds exactly the code points of ranges that start and end anywhere in a word', () => {
    const ranges: number[] = []
    for (const [first, last] of [[0, 0], [1, 30], [31, 32], [33, 95], [96, 127], [200, 263], [300, 300], [1000, 1031], [0x10ffe0, 0x10ffff]]) ranges.push(first!, last!)
    expect(differences(ranges)).to.deep.equal([])
    expect(differences([5, 6])).to.deep.equal([])
    expect(differences([0, 0x10ffff])).to.deep.equal([])
  })
})
