/**
 * A bad settings file or functions module stops every entry point with one line naming the
 * file, the step and the problem; the app's function failing on one text fails that request
 * (a 500 whose logged error names the function, or a 503 when it never returns) and never
 * the pool.
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import request from 'supertest'
import { parseConfig } from '../../src/config.js'
import { createApp } from '../../src/http/app.js'
import { createPino, loggerOf } from '../../src/logger.js'
import { ClassifierPool } from '../../src/pool/classifier-pool.js'
import { runCli } from '../helpers/cli.js'
import { FIXTURES, ROOT } from '../helpers/paths.js'

const DIR = mkdtempSync(path.join(tmpdir(), 'tfidf-settings-'))
const MODEL = path.join(ROOT, 'models', 'final_best_model.pkl')
const VECTORIZER = path.join(ROOT, 'models', 'tfidf_vectorizer.pkl')
const TOKENIZER_APP = path.join(FIXTURES, 'apps', '1.2.1', 'tokenizer-main')
copyFileSync(path.join(FIXTURES, 'settings', 'throws-on-import.mjs'), path.join(DIR, 'throws-on-import.mjs'))
writeFileSync(path.join(DIR, 'empty-functions.mjs'), 'export const functions = {}\n')

/** A settings file in the temp folder holding `extra` as tfidf-serve's settings (or `raw` as the whole text). */
function settingsFile (name: string, extra: unknown, raw?: string): string {
  const file = path.join(DIR, `${name}.json`)
  writeFileSync(file, raw ?? JSON.stringify({ name, parameters: { extra: { tfidf_serve: { model: MODEL, vectorizer: VECTORIZER, ...extra as object } } } }))
  return file
}

const CASES: Array<[string, string, RegExp, string?]> = [
  ['a file that is not JSON', settingsFile('not-json', {}, '{ "name": '), /^invalid model settings: not JSON: .* in .*not-json\.json$/],
  ['an unknown step', settingsFile('unknown-step', { preprocess: [{ op: 'str.lower' }, { op: 'str.titlecase' }] }), /^invalid model settings: preprocess step 2 \(str\.titlecase\): unknown op; known: str\.lower, .* in .*unknown-step\.json$/],
  ['a step with a wrong field', settingsFile('wrong-field', { preprocess: [{ op: 're.sub', pattern: 'x', replacement: '' }] }), /^invalid model settings: preprocess step 1 \(re\.sub\): .*'repl'.* in .*wrong-field\.json$/],
  ['a word step of an unknown language', settingsFile('language', { preprocess: [{ op: 'words', steps: [{ op: 'nltk.SnowballStemmer', language: 'klingon' }] }] }), /^invalid model settings: preprocess step 1 \(words\): word step 1 \(nltk\.SnowballStemmer\): .*klingon.* in .*language\.json$/],
  ['a regex that cannot be reproduced', settingsFile('regex', { preprocess: [{ op: 're.sub', pattern: '(?P<q>a)(?(q)b|c)', repl: '' }] }), /^invalid model settings: preprocess step 1 \(re\.sub\): .* in .*regex\.json$/],
  ['a functions module that fails to import', settingsFile('import', { functions: 'throws-on-import.mjs', preprocess: [{ op: 'function', name: '__main__.clean' }] }), /^the functions module failed to import: this module cannot load in .*throws-on-import\.mjs$/],
  ['a step naming a function the module lacks', settingsFile('missing', { functions: 'empty-functions.mjs', preprocess: [{ op: 'function', name: '__main__.clean' }] }), /^invalid model settings: preprocess step 1 \(function\): a preprocess step is the Python function __main__\.clean, which the functions module does not export in .*missing\.json$/],
  ['a pickle naming a function the module lacks', settingsFile('pickle-missing', { model: path.join(TOKENIZER_APP, 'final_best_model.pkl'), vectorizer: path.join(TOKENIZER_APP, 'tfidf_vectorizer.pkl'), functions: 'empty-functions.mjs' }), /^unsupported object '__main__\.tokenize' \(the app's own code: .*\) in .*tokenizer-main\/tfidf_vectorizer\.pkl \(byte \d+\)$/]
]

describe('bad model settings', function () {
  this.timeout(120000)

  for (const [what, file, line] of CASES) {
    it(`stop start-up, predict, inspect and verify on ${what}, in one line naming the file`, async () => {
      const expected = path.join(DIR, 'expected.jsonl')
      writeFileSync(expected, '{"text": "a film", "label": "positive"}\n')
      const runs = await Promise.all([
        runCli(['predict', '--workers', '1', '--settings', file], 'a film\n'),
        runCli(['inspect', '--settings', file]),
        runCli(['verify', '--settings', file, expected]),
        (async () => {
          const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'main.js')], { env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', WORKERS: '1', MODEL_SETTINGS: file }, stdio: ['ignore', 'ignore', 'pipe'] })
          let stderr = ''
          child.stderr.on('data', (d: Buffer) => { stderr += d.toString() })
          const [code] = await once(child, 'close') as [number]
          return { code, stderr, stdout: '' }
        })()
      ])
      for (const [i, run] of runs.entries()) {
        const name = ['predict', 'inspect', 'verify', 'start-up'][i]!
        expect(run.code, `${name}: ${run.stderr}`).to.equal(1)
        const lines = run.stderr.split('\n')
        expect(lines.length, `${name}: ${run.stderr}`).to.equal(2)
        expect(lines[0]!.replace(/^tfidf-serve: /, ''), name).to.match(line)
      }
    })
  }
})

describe("the app's function failing on a text", function () {
  this.timeout(60000)
  type Line = Record<string, unknown>
  const lines: Line[] = []
  let pool: ClassifierPool
  let app: ReturnType<typeof createApp>

  before(async () => {
    const config = parseConfig({ MODEL_SETTINGS: path.join(FIXTURES, 'settings', 'failing.json'), WORKERS: '2', CACHE_SIZE: '0', PREDICTION_TIMEOUT_MS: '500' })
    pool = await ClassifierPool.start(config)
    app = createApp({ config, pool, logger: loggerOf(createPino('info', { write: (line: string) => { lines.push(JSON.parse(line) as Line) } })) })
  })
  after(async () => { await pool.close() })

  it('answers the texts it cleans', async () => {
    const res = await request(app).post('/predict').send({ text: 'A WONDERFUL FILM' }).expect(200)
    expect((res.body as { sentiment: string }).sentiment).to.equal('positive')
  })

  for (const [text, problem] of [['boom', /user function __main__\.clean threw: cannot clean this/], ['number', /user function __main__\.clean returned number, not a string/]] as const) {
    it(`fails the request with "${text}" with a 500 whose logged error names the function, and keeps serving`, async () => {
      const res = await request(app).post('/predict').send({ texts: ['fine', `a ${text} here`] }).expect(500)
      const body = res.body as { detail: string, error_id: string }
      expect(body.detail).to.equal('Internal server error')
      const logged = lines.find(l => l.error_id === body.error_id && l.msg === 'internal server error')
      expect(logged, 'the 500 is logged').not.to.equal(undefined)
      expect(`${String(logged!.stack)} ${String(logged!.cause)}`).to.match(problem)
      await request(app).post('/predict').send({ text: 'a dull film' }).expect(200)
    })
  }

  it('cuts a function that never returns with the prediction timeout (503), replaces its worker, and keeps serving', async () => {
    const restartsBefore = pool.workerRestarts
    await request(app).post('/predict').send({ text: 'an endless loop' }).expect(503)
    expect((await request(app).post('/predict').send({ text: 'a fine film' }).expect(200)).body).to.have.property('sentiment')
    // The replacement reports itself when it starts.
    for (let i = 0; i < 200 && pool.workerRestarts === restartsBefore; i++) await new Promise(resolve => setTimeout(resolve, 25))
    expect(pool.workerRestarts).to.equal(restartsBefore + 1)
  })
})
