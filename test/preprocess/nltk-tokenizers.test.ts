import { expect } from 'chai'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { NltkSplitSpec } from '../../src/settings/step-schema.js'
import { compileNltkSplit } from '../../src/preprocess/tokenizers/nltk-split.js'
import { PUNKT_DATA_PATH } from '../../src/preprocess/tokenizers/punkt-parameters.js'
import { FIXTURES } from '../helpers/paths.js'

interface Fixture {
  nltk: string
  regex: string
  texts: number
  calls: Array<{ split: NltkSplitSpec, hashes: string }>
}

const TEXTS = JSON.parse(readFileSync(path.join(FIXTURES, 'preprocess', 'nltk-tokenizers-texts.json'), 'utf8')) as string[]
/** Both written by test/fixtures/preprocess/nltk-tokenizers.py, under NLTK 3.8 and 3.10.3. */
const FIXTURES_BY_VERSION: ReadonlyArray<readonly [string, Fixture]> = ['3.8', '3.10'].map(v =>
  [v, JSON.parse(readFileSync(path.join(FIXTURES, 'preprocess', `nltk-tokenizers-${v}.json`), 'utf8')) as Fixture] as const)

/** As the generator hashes: `json.dumps(tokens)` (ASCII-escaped, ", " between items), SHA-256, 8 hex digits. */
function digest (tokens: readonly string[]): string {
  const json = '[' + tokens.map(t => JSON.stringify(t).replace(/[\u007f-\uffff]/g, c => c === '\u007f' ? c : '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))).join(', ') + ']'
  return createHash('sha256').update(json, 'utf8').digest('hex').slice(0, 8)
}

const describeCall = (split: NltkSplitSpec): string => JSON.stringify(split)

describe('NLTK tokenizers as word splitters', () => {
  it('read the English Punkt parameters NLTK ships (src/preprocess/data/punkt-english.txt, byte for byte)', () => {
    const sha = createHash('sha256').update(readFileSync(PUNKT_DATA_PATH)).digest('hex')
    expect(sha).to.equal('cf5e398db258cee3be9eb3a624dd8d42e8fdc24ff491bc82023b6ad7f0fae5cf')
  })

  for (const [version, fixture] of FIXTURES_BY_VERSION) {
    context(`against NLTK ${fixture.nltk} (regex ${fixture.regex}) on ${TEXTS.length} texts (test/fixtures/preprocess/nltk-tokenizers-${version}.json)`, () => {
      it('has thousands of texts for each call', () => {
        expect(fixture.texts).to.equal(TEXTS.length)
        expect(TEXTS.length).to.be.at.least(2000)
        for (const call of fixture.calls) expect(call.hashes).to.have.length(8 * TEXTS.length)
      })

      for (const call of fixture.calls) {
        it(`gives NLTK's tokens for ${describeCall(call.split)}`, () => {
          const split = compileNltkSplit(call.split)
          const mismatches: Array<{ text: string, actual: string[] }> = []
          TEXTS.forEach((text, i) => {
            const expected = call.hashes.slice(8 * i, 8 * i + 8)
            let actual: string[]
            try {
              actual = split(text)
            } catch (err) {
              actual = [`threw ${String(err)}`]
            }
            if (digest(actual) !== expected) mismatches.push({ text, actual })
          })
          expect({ count: mismatches.length, first: mismatches.slice(0, 4) }).to.deep.equal({ count: 0, first: [] })
        })
      }
    })
  }
})
