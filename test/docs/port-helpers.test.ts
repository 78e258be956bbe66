/**
 * Every example of docs/ensembles-and-sharing.md's "Port helpers" runs, as a port would run
 * it: each `js` block written to a module of its own, its `tfidf-serve/...` imports pointed at
 * this build, and imported; its `assert` lines are what the page says each helper returns.
 */
import { expect } from 'chai'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { ROOT } from '../helpers/paths.js'

const PAGE = path.join(ROOT, 'docs', 'ensembles-and-sharing.md')

/** The `js` blocks of the page's "Port helpers" section, each with the heading it sits under. */
function examples (): Array<{ heading: string, code: string }> {
  const text = readFileSync(PAGE, 'utf8')
  const section = text.slice(text.indexOf('\n## Port helpers'))
  const out: Array<{ heading: string, code: string }> = []
  let heading = ''
  for (const m of section.matchAll(/^### (.*)$|^```js\n([\s\S]*?)^```$/gm)) {
    if (m[1] !== undefined) heading = m[1]
    else out.push({ heading, code: m[2]! })
  }
  return out
}

describe('the port helpers\' examples (docs/ensembles-and-sharing.md)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tfidf-port-helpers-'))
  after(() => { rmSync(dir, { recursive: true, force: true }) })
  const found = examples()

  it('has an example for each helper the page documents', () => {
    expect(found.map(e => e.heading.match(/`(\w+)\(/)?.[1])).to.deep.equal(['createPorterStemmer', 'createSnowballStemmer', 'createLancasterStemmer', 'createWordNetLemmatizer', 'createSastrawiStemmer', 'pyLower', 'pyIsAlpha'])
  })

  for (const [i, { heading, code }] of found.entries()) {
    it(`runs the example of ${heading.split(':')[0]!.replace(/`/g, '')}, every assertion holding`, async () => {
      expect(code).to.include("from 'tfidf-serve/dist/src/")
      const file = path.join(dir, `example-${i}.mjs`)
      writeFileSync(file, code.replaceAll("from 'tfidf-serve/", `from '${pathToFileURL(ROOT).href}/`))
      await import(pathToFileURL(file).href)
    })
  }
})
