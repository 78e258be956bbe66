/**
 * A compiled model carries what its steps read (NLTK's stop words here): compiled where the
 * data was found, it serves where none is installed, as the pickles did; the pickles there
 * refuse in one line. `inspect` names each file read with its SHA-256, and the compiled
 * file's checks refuse a damaged copy of the data.
 */
import { expect } from 'chai'
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { checkStepData } from '../../src/compiled/check-step-data.js'
import { runCli } from '../helpers/cli.js'
import { FIXTURES } from '../helpers/paths.js'
import { sharedNltkData, sharedStepData } from '../helpers/word-data.js'

describe('a compiled model carries the data its steps read', function () {
  this.timeout(120_000)
  const dir = mkdtempSync(path.join(tmpdir(), 'tfsc-data-'))
  const app = path.join(dir, 'sms-porter')
  const out = path.join(dir, 'sms-porter.tfsc')
  const nowhere = mkdtempSync(path.join(tmpdir(), 'tfsc-no-nltk-'))
  /** An environment where NLTK finds nothing: NLTK_DATA and the home folder empty. */
  const bare = { ...process.env, NLTK_DATA: nowhere, HOME: nowhere }
  let texts = ''
  let sources: string[][] = []
  after(() => { rmSync(dir, { recursive: true, force: true }); rmSync(nowhere, { recursive: true, force: true }) })

  before(async () => {
    cpSync(path.join(FIXTURES, 'apps', '1.9.1', 'sms-porter'), app, { recursive: true })
    texts = readFileSync(path.join(app, 'expected.jsonl'), 'utf8').split('\n').filter(l => l !== '').slice(0, 30).map(l => (JSON.parse(l) as { text: string }).text.replace(/\n/g, ' ')).join('\n') + '\n'
    const compile = await runCli(['compile', '--settings', path.join(app, 'model-settings.json'), '--out', out], '', [], undefined, { ...process.env, NLTK_DATA: sharedNltkData() })
    expect(compile.stderr).to.equal('')
    expect(compile.code).to.equal(0)
    sources = (JSON.parse(compile.stdout) as { sources: Array<{ role: string, file: string }> }).sources.map(s => [s.role, s.file])
  })

  it('records the data files among its sources (so MODEL_CACHE_DIR compiles again when the data changes)', () => {
    expect(sources.filter(([role]) => role === 'data')).to.deep.equal([['data', path.join(sharedNltkData(), 'corpora', 'stopwords', 'english')]])
  })

  it('serves with no NLTK data installed, answering as the pickles did where the data was', async () => {
    const fromPickles = await runCli(['predict', '--settings', path.join(app, 'model-settings.json')], texts, [], undefined, { ...process.env, NLTK_DATA: sharedNltkData() })
    expect(fromPickles.code).to.equal(0)
    const fromCompiled = await runCli(['predict', '--model', out], texts, [], undefined, bare)
    expect(fromCompiled.stderr).to.equal('')
    expect(fromCompiled.stdout).to.equal(fromPickles.stdout)
    expect(fromCompiled.stdout.split('\n').filter(l => l !== '').length).to.be.at.least(30)
    const verified = await runCli(['verify', '--model', out, path.join(app, 'expected.jsonl')], '', [], undefined, bare)
    expect(verified.stderr).to.equal('')
    expect(verified.code).to.equal(0)
  })

  it('the same model from its pickles, there, refuses in one line naming the package, the folders searched and the fix', async () => {
    const run = await runCli(['predict', '--settings', path.join(app, 'model-settings.json')], texts, [], undefined, bare)
    expect(run.code).to.equal(1)
    expect(run.stdout).to.equal('')
    const lines = run.stderr.split('\n').filter(l => l !== '')
    expect(lines).to.have.length(1)
    expect(lines[0]).to.match(/^tfidf-serve: invalid model settings: preprocess step \d+ \(words\): NLTK's stopwords data is not installed: no corpora\/stopwords in /)
    expect(lines[0]).to.include(`${nowhere}, ${path.join(nowhere, 'nltk_data')}, `)
    expect(lines[0]).to.include('python -m nltk.downloader stopwords')
    expect(lines[0]).to.include(path.join(app, 'model-settings.json'))
  })

  it('inspect names the folder and file each step read, with its SHA-256, from the compiled file as from the pickles', async () => {
    const english = sharedStepData([{ op: 'words', steps: [{ op: 'stopwords', nltk: 'english' }] }]).stopwords.english!.read
    const expected = { what: 'NLTK stopwords (english)', folder: sharedNltkData(), file: path.join('corpora', 'stopwords', 'english'), sha256: english.sha256 }
    const compiled = JSON.parse((await runCli(['inspect', '--model', out], '', [], undefined, bare)).stdout) as { preprocess_data: { files: unknown[] } }
    expect(compiled.preprocess_data.files).to.deep.equal([expected])
    const pickles = JSON.parse((await runCli(['inspect', '--settings', path.join(app, 'model-settings.json')], '', [], undefined, { ...process.env, NLTK_DATA: sharedNltkData() })).stdout) as { preprocess_data: { nltk_folders_searched: string[], files: unknown[] } }
    expect(pickles.preprocess_data.files).to.deep.equal([expected])
    expect(pickles.preprocess_data.nltk_folders_searched[0]).to.equal(sharedNltkData())
  })

  it('the compiled file\'s checks refuse damaged step data, naming where', () => {
    const good = JSON.parse(JSON.stringify(sharedStepData([{ op: 'words', split: { 'nltk.word_tokenize': { language: 'english', nltk: '3.10' } }, steps: [{ op: 'stopwords', nltk: 'english' }] }]))) as Record<string, any>
    expect(checkStepData(good, 'app.data')).to.equal(good)
    const damaged = (change: (d: Record<string, any>) => void): string => {
      const d = JSON.parse(JSON.stringify(good)) as Record<string, any>
      change(d)
      try {
        checkStepData(d, 'app.data')
        return 'accepted'
      } catch (err) {
        return (err as Error).message
      }
    }
    expect(damaged(d => { d.stopwords.english.words = [1] })).to.match(/app\.data\.stopwords\.english\.words/)
    expect(damaged(d => { d.stopwords.english.read.sha256 = 'x' })).to.match(/app\.data\.stopwords\.english\.read\.sha256 is not a SHA-256/)
    expect(damaged(d => { d.punkt['3.10/english'].tables.collocations = ['no-tab'] })).to.match(/collocations are not all pairs/)
    expect(damaged(d => { d.punkt['3.10/english'].tables.orthoContext = [['a', -1]] })).to.match(/orthoContext\[0\] is not a \[type, flags\] pair/)
    expect(damaged(d => { d.punkt['3.10/english'].layout = 'zip' })).to.match(/layout/)
    expect(damaged(d => { d.punkt['3.10/german'] = d.punkt['3.10/english'] })).to.match(/is not the tables of "3\.10\/german"/)
    expect(damaged(d => { delete d.sastrawiDictionary })).to.match(/sastrawiDictionary/)
  })
})
