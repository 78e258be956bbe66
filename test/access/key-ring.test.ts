/**
 * The key ring's watch with real files and links on disk: a key file that is a link to
 * another file of its folder is re-read when that file is written through the link (what
 * `vi keys.json` does), when it is replaced by rename, and after the link is re-pointed; and
 * a mounted Kubernetes Secret, whose `..data` link is swapped to a new folder.
 */
import { expect } from 'chai'
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { KeyRing } from '../../src/access/key-ring.js'
import { hashSecret, newSecret } from '../../src/access/secret.js'
import { waitFor } from '../helpers/keys.js'

const SECRETS = { a: newSecret(), b: newSecret() }

/** The key file's text holding the keys named. */
function keysOf (...ids: Array<keyof typeof SECRETS>): string {
  return JSON.stringify({ keys: ids.map(id => ({ id, sha256: hashSecret(SECRETS[id]).toString('hex'), scopes: ['predict'] })) }, null, 2)
}

/** The ids of the keys the ring serves now. */
function served (ring: KeyRing): string[] {
  return (Object.keys(SECRETS) as Array<keyof typeof SECRETS>).filter(id => ring.find(SECRETS[id])?.id === id)
}

describe('the key ring\'s watch', function () {
  this.timeout(20000)
  let ring: KeyRing | undefined
  let reloads = 0
  afterEach(() => { ring?.close(); ring = undefined })

  context('keys.json is a link to keys-v1.json in the same folder', () => {
    let dir: string
    let link: string
    beforeEach(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'tfidf-ring-'))
      writeFileSync(path.join(dir, 'keys-v1.json'), keysOf('a', 'b'))
      link = path.join(dir, 'keys.json')
      symlinkSync('keys-v1.json', link)
      reloads = 0
      ring = new KeyRing(link, { onReload: () => { reloads++ } })
      ring.watch()
      expect(served(ring)).to.deep.equal(['a', 'b'])
    })

    it('re-reads the file written in place through the link, within 2 s', async () => {
      writeFileSync(link, keysOf('a'))
      await waitFor(() => served(ring!).length === 1, 2000)
      expect(served(ring!)).to.deep.equal(['a'])
      expect(ring!.size).to.equal(1)
    })

    it('re-reads the link\'s target replaced by rename, within 2 s', async () => {
      writeFileSync(path.join(dir, 'keys-v1.json.tmp'), keysOf('b'))
      renameSync(path.join(dir, 'keys-v1.json.tmp'), path.join(dir, 'keys-v1.json'))
      await waitFor(() => served(ring!).length === 1, 2000)
      expect(served(ring!)).to.deep.equal(['b'])
    })

    it('follows the link re-pointed to keys-v2.json, then re-reads keys-v2.json written through it', async () => {
      writeFileSync(path.join(dir, 'keys-v2.json'), keysOf('b'))
      symlinkSync('keys-v2.json', path.join(dir, 'keys.json.new'))
      renameSync(path.join(dir, 'keys.json.new'), link)
      await waitFor(() => served(ring!).length === 1, 2000)
      expect(served(ring!)).to.deep.equal(['b'])
      writeFileSync(link, keysOf('a', 'b'))
      await waitFor(() => served(ring!).length === 2, 2000)
      // The old target is no longer what the key file is: writing it is no reason to read again.
      await new Promise(resolve => setTimeout(resolve, 200))
      const settled = reloads
      writeFileSync(path.join(dir, 'keys-v1.json'), keysOf())
      await new Promise(resolve => setTimeout(resolve, 300))
      expect(reloads).to.equal(settled)
      expect(served(ring!)).to.deep.equal(['a', 'b'])
    })
  })

  it('follows a chain of links within the folder: keys.json -> current.json -> keys-v1.json', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tfidf-ring-'))
    writeFileSync(path.join(dir, 'keys-v1.json'), keysOf('a', 'b'))
    symlinkSync('keys-v1.json', path.join(dir, 'current.json'))
    symlinkSync(path.join(dir, 'current.json'), path.join(dir, 'keys.json'))
    ring = new KeyRing(path.join(dir, 'keys.json'))
    ring.watch()
    writeFileSync(path.join(dir, 'keys.json'), keysOf('b'))
    await waitFor(() => served(ring!).length === 1, 2000)
    expect(served(ring!)).to.deep.equal(['b'])
  })

  it('re-reads a Kubernetes Secret\'s key file when its ..data link is swapped to a new folder', async () => {
    // The kubelet's layout (AtomicWriter): keys.json -> ..data/keys.json, ..data -> ..<timestamp>/.
    const dir = mkdtempSync(path.join(tmpdir(), 'tfidf-secret-'))
    const version = (name: string, text: string): void => {
      mkdirSync(path.join(dir, name))
      writeFileSync(path.join(dir, name, 'keys.json'), text)
    }
    version('..2024_01_01_00_00_00.1', keysOf('a', 'b'))
    symlinkSync('..2024_01_01_00_00_00.1', path.join(dir, '..data'))
    symlinkSync('..data/keys.json', path.join(dir, 'keys.json'))
    ring = new KeyRing(path.join(dir, 'keys.json'))
    ring.watch()
    expect(served(ring)).to.deep.equal(['a', 'b'])
    version('..2024_01_01_00_01_00.2', keysOf('a'))
    symlinkSync('..2024_01_01_00_01_00.2', path.join(dir, '..data_tmp'))
    renameSync(path.join(dir, '..data_tmp'), path.join(dir, '..data'))
    rmSync(path.join(dir, '..2024_01_01_00_00_00.1'), { recursive: true })
    await waitFor(() => served(ring!).length === 1, 2000)
    expect(served(ring!)).to.deep.equal(['a'])
  })
})
