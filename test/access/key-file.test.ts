/**
 * The key file: what it holds once read (limits merged field by field over the defaults),
 * and every way it can be wrong, each one line naming the file, the line and the problem.
 */
import { expect } from 'chai'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { readKeyFile } from '../../src/access/key-file.js'
import { hashSecret, newSecret, SECRET_PREFIX } from '../../src/access/secret.js'
import { ServiceError } from '../../src/errors.js'

const HASH = 'a'.repeat(64)

function fileWith (text: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'tfidf-keyfile-')), 'keys.json')
  writeFileSync(file, text)
  return file
}

function problem (text: string): string {
  const file = fileWith(text)
  try {
    readKeyFile(file)
  } catch (err) {
    expect(err).to.be.instanceOf(ServiceError)
    expect((err as ServiceError).code).to.equal('ERR_CONFIG_INVALID')
    const message = (err as Error).message
    expect(message).to.not.include('\n')
    expect(message.startsWith(`invalid key file ${file}: `), message).to.equal(true)
    return message.slice(`invalid key file ${file}: `.length)
  }
  throw new Error('the file was accepted')
}

describe('the API key file', () => {
  it('mints secrets of 256 random bits behind tfs_, and stores only their SHA-256', () => {
    const a = newSecret()
    const b = newSecret()
    expect(a).to.match(/^tfs_[A-Za-z0-9_-]{43}$/)
    expect(a.startsWith(SECRET_PREFIX)).to.equal(true)
    expect(a).to.not.equal(b)
    expect(Buffer.from(a.slice(4), 'base64url').length).to.equal(32)
    expect(hashSecret('abc').toString('hex')).to.equal('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
  })

  it('merges each key\'s limits over default_limits field by field; null lifts one', () => {
    const table = readKeyFile(fileWith(JSON.stringify({
      default_limits: { requests_per_second: 10, texts_per_second: 100, texts_burst: 50, texts_per_day: 1000 },
      keys: [
        { id: 'plain', sha256: HASH, scopes: ['predict'] },
        { id: 'big', sha256: 'B'.repeat(64), scopes: ['predict', 'admin'], limits: { requests_per_second: 500, texts_per_day: null } }
      ]
    })))
    expect(table.keys.map(k => k.id)).to.deep.equal(['plain', 'big'])
    expect(table.byHash.get(HASH)!.limits).to.deep.equal({ requestsPerSecond: 10, requestsBurst: 0, textsPerSecond: 100, textsBurst: 50, textsPerDay: 1000 })
    const big = table.byHash.get('b'.repeat(64))!
    expect(big.limits).to.deep.equal({ requestsPerSecond: 500, requestsBurst: 0, textsPerSecond: 100, textsBurst: 50, textsPerDay: null })
    expect([...big.scopes]).to.deep.equal(['predict', 'admin'])
    expect(Object.isFrozen(table)).to.equal(true)
  })

  it('names the line and the problem of a bad file', () => {
    expect(problem('{\n  "keys": [\n    {"id": "a", "sha256": "x", "scopes": ["predict"]}\n  ]\n}')).to.equal('line 3: keys.0.sha256 must match pattern "^[0-9a-fA-F]{64}$"')
    expect(problem(`{\n  "keys": [\n    {"id": "a",\n     "sha256": "${HASH}",\n     "scopes": ["predict", "root"]}\n  ]\n}`)).to.equal('line 5: keys.0.scopes.1 must be equal to one of the allowed values (predict, admin, metrics)')
    expect(problem(`{"keys": [\n{"id": "a", "sha256": "${HASH}", "scopes": ["predict"]},\n{"id": "a", "sha256": "${'c'.repeat(64)}", "scopes": ["predict"]}]}`)).to.equal('line 3: keys.1.id "a" is used twice')
    expect(problem(`{"keys": [\n{"id": "a", "sha256": "${HASH}", "scopes": ["predict"]},\n{"id": "b", "sha256": "${HASH.toUpperCase()}", "scopes": ["predict"]}]}`)).to.equal('line 3: keys.1.sha256 is also key "a"\'s')
    expect(problem('{\n  "keys": [],\n  "secret": "x"\n}')).to.equal('line 1: the file must NOT have additional properties (secret)')
    expect(problem(`{"keys": [{"id": "a b", "sha256": "${HASH}", "scopes": ["predict"]}]}`)).to.match(/^line 1: keys\.0\.id must match pattern/)
    expect(problem(`{"keys": [{"id": "a", "sha256": "${HASH}", "scopes": []}]}`)).to.equal('line 1: keys.0.scopes must NOT have fewer than 1 items')
    expect(problem(`{"default_limits": {"requests_per_second": 0}, "keys": []}`)).to.equal('line 1: default_limits.requests_per_second must be >= 1')
    expect(problem('{\n  "keys": [\n    {"id": "a",}\n  ]\n}')).to.match(/^line 3: not valid JSON: /)
    expect(problem('')).to.match(/^not valid JSON: Unexpected end of JSON input/)
    expect(problem('{"nokeys": 1}')).to.equal('line 1: the file must have required property \'keys\'')
  })

  it('names a file that cannot be read', () => {
    expect(() => readKeyFile('/nonexistent/keys.json')).to.throw(ServiceError, 'invalid key file /nonexistent/keys.json: cannot be read (ENOENT)')
  })
})
