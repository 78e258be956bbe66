/**
 * Tests on data a clone does not hold: ../shared beside it (README.md, "Tests"). Every test that
 * reads ../shared finds its folder or file here, inside its describe and never at import time, so
 * that on a clone without it each such describe fails once, with one line naming what it needs,
 * and every other test still runs.
 *
 *   describe('...', () => {
 *     const dir = needShared('wild/15-some-app')       // the absolute path
 *     it('...', () => { readFileSync(path.join(dir, 'model.pkl')) })
 *   })
 *
 * A describe that makes its tests from the data's contents lists them only when it is there:
 * `hasShared('data/udhr-langid') ? readFileSync(...) : ...`. A single test among others that need
 * no data takes its path with `requireShared`, which throws that one line.
 */
import { existsSync } from 'node:fs'
import path from 'node:path'
import { SHARED } from './paths.js'

export { SHARED }

/** The absolute path of ../shared/<relative> (a `/`-separated path inside ../shared). */
export function sharedPath (relative: string): string {
  return path.join(SHARED, ...relative.split('/'))
}

/** Whether ../shared/<relative> is there. */
export function hasShared (relative: string): boolean {
  return existsSync(sharedPath(relative))
}

/** The one line a test that needs ../shared/<relative> fails with when it is absent. */
export function missingShared (relative: string): Error {
  const error = new Error(`needs ../shared/${relative} beside the clone, which is not there (README.md, "Tests")`)
  error.stack = error.message
  return error
}

/**
 * Called in a describe's body: the absolute path of ../shared/<relative>. When it is absent the
 * describe fails once with one line naming it (a before hook, and a test so that the describe
 * runs even when it lists no tests of its own), and its other tests do not run.
 */
export function needShared (relative: string): string {
  const full = sharedPath(relative)
  if (!existsSync(full)) {
    before(() => { throw missingShared(relative) })
    it(`reads ../shared/${relative}`, () => { throw missingShared(relative) })
  }
  return full
}

/** Inside a test: the absolute path of ../shared/<relative>, or the one line it fails with. */
export function requireShared (relative: string): string {
  if (!hasShared(relative)) throw missingShared(relative)
  return sharedPath(relative)
}
