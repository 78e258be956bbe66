/**
 * A clone without ../shared beside it still runs every test: those that need it fail each in one
 * line naming the folder, the others run, and mocha's summary ends the run (README.md, "Tests").
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { ROOT } from './helpers/paths.js'

const MOCHA = path.join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js')
/** A folder that is not there, standing for the absent ../shared. */
const ABSENT = path.join(tmpdir(), `tfidf-no-shared-${process.pid}`, 'shared')

async function mocha (args: string[]): Promise<{ code: number, out: string }> {
  return await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MOCHA, ...args], { cwd: ROOT, env: { ...process.env, TFIDF_TEST_SHARED: ABSENT }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (d: Buffer) => { out += d.toString() })
    child.stderr.on('data', (d: Buffer) => { out += d.toString() })
    child.on('error', reject)
    child.on('close', code => resolve({ code: code ?? -1, out }))
  })
}

/** The files under `dir` whose names end in one of `ends` (test fixtures left out). */
function sources (dir: string, ends: readonly string[]): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(e => {
    const full = path.join(dir, e.name)
    if (e.isDirectory()) return e.name === 'fixtures' ? [] : sources(full, ends)
    return ends.some(end => e.name.endsWith(end)) ? [full] : []
  })
}
const testSources = (dir: string): string[] => sources(dir, ['.ts'])

/** A document of ../shared cited by name: the contract is stated in docs/, not there. */
const SHARED_DOCUMENT = /\.\.\/shared\/(SPEC|DECISIONS|STYLE|REFERENCE-DATA)\.md|\.\.\/shared\/reference\b|\b(SPEC|DECISIONS|STYLE)\.md\b|\boip-v2\.md\b/

describe('the suite on a clone with no ../shared beside it', function () {
  this.timeout(300000)

  it('finds ../shared only through test/helpers/shared-data.ts, never by a path of its own', () => {
    const own = new Set(['helpers/paths.ts', 'helpers/shared-data.ts'].map(f => path.join(ROOT, 'test', f)))
    const reaching = testSources(path.join(ROOT, 'test'))
      .filter(f => !own.has(f))
      .filter(f => /\bSHARED\b|'\.\.', 'shared'|\.\.\/shared\/[\w-]+['`]/.test(readFileSync(f, 'utf8').replace(/^\s*(\/\/|\*|\/\*).*$/gm, '')))
    expect(reaching.map(f => path.relative(ROOT, f))).to.deep.equal([])
  })

  it('loads every test module: none reads ../shared at import time', async () => {
    const { code, out } = await mocha(['--dry-run'])
    expect(out, out.slice(-2000)).to.match(/^\s+\d+ passing/m)
    expect(code).to.equal(0)
    for (const needed of ['wild', 'data/udhr-langid', 'data/sentiment-labelled-sentences']) expect(out).to.include(`reads ../shared/${needed}`)
  })

  it('fails each test that needs it once, in one line naming the folder, runs the others, and ends with the summary', async () => {
    const { code, out } = await mocha(['--no-config', '--timeout', '60000', '--reporter', 'spec', 'dist/test/pickle/wild.test.js', 'dist/test/pool/shared-model.test.js'])
    const failures = [...out.matchAll(/^ {5}(\S.*)$/gm)].map(m => m[1]).filter(l => !/^at /.test(l!))
    expect(failures).to.deep.equal([
      'needs ../shared/wild beside the clone, which is not there (README.md, "Tests")',
      'needs ../shared/wild/15-AchmadAjiePriyajie-hatespeech-detection beside the clone, which is not there (README.md, "Tests")',
      'needs ../shared/wild/15-AchmadAjiePriyajie-hatespeech-detection beside the clone, which is not there (README.md, "Tests")'
    ])
    // The one test of shared-model.test.ts that needs no data ran and passed.
    expect(out).to.match(/✔ decodes in the pool, not in a worker/)
    expect(out).to.match(/^ {2}1 passing .*\n {2}3 failing/m)
    expect(code).to.equal(3)
  })
})

describe('the code and docs cite nothing a clone does not hold', () => {
  const hits = (files: readonly string[], pattern: RegExp): string[] => files.flatMap(f =>
    readFileSync(f, 'utf8').split('\n').flatMap((line, i) => pattern.test(line) ? [`${path.relative(ROOT, f)}:${i + 1}`] : []))

  it('src/ and workers/ never name ../shared: comments cite docs/', () => {
    const code = ['src', 'workers'].flatMap(d => sources(path.join(ROOT, d), ['.ts', '.mjs', '.js'])).filter(f => !f.endsWith('config-validate.ts'))
    expect(code.length).to.be.above(100)
    expect(hits(code, /\.\.\/shared|\b(SPEC|DECISIONS|STYLE)\.md\b|\boip-v2\.md\b/)).to.deep.equal([])
  })

  it('README.md and docs/ cite none of its documents (what ../shared holds for the tests is said in README.md, "Tests")', () => {
    const docs = [path.join(ROOT, 'README.md'), ...sources(path.join(ROOT, 'docs'), ['.md'])]
    expect(hits(docs, SHARED_DOCUMENT)).to.deep.equal([])
  })
})
