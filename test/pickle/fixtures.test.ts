import { expect } from 'chai'
import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { readPickleFile } from '../../src/pickle/read-pickle-file.js'
import { serviceErrorOf } from '../helpers/errors.js'
import { FIXTURES } from '../helpers/paths.js'
import { normalisePython, toTagged } from '../helpers/tagged.js'

const DIR = path.join(FIXTURES, 'pickle')

interface Fixture { file: string, note: string, value?: unknown, error?: string, refused?: string | null }

const fixtures: Fixture[] = readdirSync(DIR)
  .filter(name => name.endsWith('.json') && name !== 'VERSIONS.json')
  .sort()
  .map(name => JSON.parse(readFileSync(path.join(DIR, name), 'utf8')) as Fixture)

describe('reading fixtures written by real Python', () => {
  it('has fixtures for every format', () => {
    expect(fixtures.length).to.be.greaterThan(35)
  })

  for (const fixture of fixtures.filter(f => f.error === undefined)) {
    it(`reads ${fixture.file} value for value (${fixture.note})`, async () => {
      const file = path.join(DIR, fixture.file)
      const before = readFileSync(file)
      const value = await readPickleFile(file)
      expect(toTagged(value)).to.deep.equal(normalisePython(fixture.value))
      expect(readFileSync(file).equals(before)).to.equal(true)
    })
  }

  for (const fixture of fixtures.filter(f => f.error !== undefined)) {
    it(`refuses ${fixture.file} with ${fixture.error ?? ''} (${fixture.note})`, async () => {
      const file = path.join(DIR, fixture.file)
      const err = await serviceErrorOf(async () => await readPickleFile(file))
      expect(err.code).to.equal(fixture.error)
      expect(err.file).to.equal(file)
      expect(err.message).to.contain(file)
      if (typeof fixture.refused === 'string') expect(err.message).to.contain(`unsupported object '${fixture.refused}' in ${file}`)
    })
  }
})
