/**
 * Keys in the service process: a bad key file stops start-up in one line (file, line,
 * problem); SIGHUP re-reads the file (here a symlink whose target changes, which no folder
 * watch sees); `tfidf-serve keys new` mints a key the service takes.
 */
import { expect } from 'chai'
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { hashSecret } from '../../src/access/secret.js'
import { runCli } from '../helpers/cli.js'
import { waitFor } from '../helpers/keys.js'
import { logLines, readyPort, start, type Run } from '../helpers/processes.js'

const BODY = JSON.stringify({ text: 'a wonderful, moving film' })

describe('keys in the service process', function () {
  this.timeout(60000)
  let run: Run | undefined
  afterEach(async () => {
    if (run !== undefined && run.child.exitCode === null) {
      run.child.kill('SIGTERM')
      await run.exit
    }
    run = undefined
  })

  it('stops start-up with one line naming the key file, the line and the problem', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'tfidf-badkeys-')), 'keys.json')
    writeFileSync(file, '{\n  "keys": [\n    {"id": "a", "sha256": "abc", "scopes": ["predict"]}\n  ]\n}\n')
    run = start({ API_KEYS_FILE: file })
    expect(await run.exit).to.equal(1)
    expect(run.stderr()).to.equal(`tfidf-serve: invalid key file ${file}: line 3: keys.0.sha256 must match pattern "^[0-9a-fA-F]{64}$"\n`)
    run = start({ API_KEYS_FILE: '/nonexistent/keys.json' })
    expect(await run.exit).to.equal(1)
    expect(run.stderr()).to.equal('tfidf-serve: invalid key file /nonexistent/keys.json: cannot be read (ENOENT)\n')
  })

  it('serves a key minted by `keys new`, and re-reads the file on SIGHUP', async () => {
    const minted = await runCli(['keys', 'new', '--id', 'team-a', '--scopes', 'predict,metrics'])
    expect(minted.code).to.equal(0)
    const [secret, entryLine] = minted.stdout.trim().split('\n') as [string, string]
    expect(secret).to.match(/^tfs_[A-Za-z0-9_-]{43}$/)
    const entry = JSON.parse(entryLine) as { id: string, sha256: string, scopes: string[] }
    expect(entry).to.deep.equal({ id: 'team-a', sha256: hashSecret(secret).toString('hex'), scopes: ['predict', 'metrics'] })
    // The service reads keys.json, a link to a file elsewhere: changing that file is no event in keys.json's folder.
    const real = path.join(mkdtempSync(path.join(tmpdir(), 'tfidf-real-')), 'real.json')
    const link = path.join(mkdtempSync(path.join(tmpdir(), 'tfidf-link-')), 'keys.json')
    writeFileSync(real, JSON.stringify({ keys: [entry] }))
    symlinkSync(real, link)
    run = start({ API_KEYS_FILE: link, WORKERS: '1' })
    const base = `http://127.0.0.1:${await readyPort(run)}`
    const post = async (): Promise<number> => (await fetch(`${base}/predict`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` }, body: BODY })).status
    expect(await post()).to.equal(200)
    writeFileSync(real, JSON.stringify({ keys: [] }))
    await new Promise(resolve => setTimeout(resolve, 300))
    expect(await post()).to.equal(200)
    run.child.kill('SIGHUP')
    await waitFor(async () => await post() === 401)
    // The log goes to stdout asynchronously (pino's sonic-boom): it may land just after the 401 does.
    const reloaded = (): boolean => logLines(run!).some(l => l.msg === 'api keys reloaded' && l.keys === 0)
    await waitFor(reloaded, 5000).catch(() => {})
    expect(reloaded()).to.equal(true)
    expect(run.stdout()).to.not.include(secret)
  })
})
