/**
 * Another commit's build, for comparing against: its tree exported into a temporary folder
 * (once per commit; later runs reuse it), installed and built there by its own `npm ci`, and
 * started as its own `npm start` starts it (its node flags and environment, not ours).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { ROOT } from './corpus.js'

export interface Checkout {
  /** The commit, abbreviated, and the ref it was named by. */
  readonly label: string
  readonly root: string
}

/** Builds `ref` (a commit, tag or branch of this repository) in a temporary folder, or reuses the one built before. */
export function buildCheckout (ref: string, progress: (m: string) => void): Checkout {
  const sha = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim()
  const root = path.join(tmpdir(), `tfidf-serve-${sha.slice(0, 12)}`)
  const label = `${sha.slice(0, 7)}${ref.startsWith(sha.slice(0, 7)) ? '' : ` (${ref})`}`
  if (existsSync(path.join(root, 'dist', 'src'))) return { label, root }
  progress(`building ${label} in ${root} (git archive, npm ci)`)
  rmSync(root, { recursive: true, force: true })
  mkdirSync(root, { recursive: true })
  const tar = execFileSync('git', ['archive', '--format=tar', sha], { cwd: ROOT, maxBuffer: 1 << 30 })
  execFileSync('tar', ['-x', '-C', root], { input: tar })
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })
  return { label, root }
}

export interface StartCommand {
  readonly env: Record<string, string>
  readonly nodeFlags: string[]
  /** The script node runs, absolute. */
  readonly entry: string
}

/**
 * What `npm start` runs in the checkout at `root`, read from its package.json:
 * `[NAME=value ...] node [--flag ...] script`.
 */
export function startCommand (root: string): StartCommand {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  const words = pkg.scripts.start!.trim().split(/\s+/)
  const env: Record<string, string> = {}
  let i = 0
  for (; i < words.length && /^[A-Z_][A-Z0-9_]*=/.test(words[i]!); i++) {
    const eq = words[i]!.indexOf('=')
    env[words[i]!.slice(0, eq)] = words[i]!.slice(eq + 1)
  }
  if (words[i] !== 'node') throw new Error(`${root}: npm start does not run node: ${pkg.scripts.start!}`)
  const rest = words.slice(i + 1)
  const script = rest.findIndex(w => !w.startsWith('-'))
  if (script < 0) throw new Error(`${root}: npm start names no script: ${pkg.scripts.start!}`)
  return { env, nodeFlags: rest.slice(0, script), entry: path.join(root, rest[script]!) }
}
