import { mkdtempSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { hashSecret, newSecret } from '../../src/access/secret.js'

export interface KeySpec {
  readonly id: string
  readonly scopes: readonly string[]
  readonly limits?: Record<string, number | null>
}

export interface KeyFile {
  readonly file: string
  /** Each key's secret, by id. */
  readonly secrets: Readonly<Record<string, string>>
  /** Writes the file again (by rename, as editors and Kubernetes do) with `keys`, reusing known secrets. */
  rewrite: (keys: readonly KeySpec[], defaults?: Record<string, number | null>) => void
}

/** A key file in a fresh folder, with a fresh secret for each key. */
export function writeKeyFile (keys: readonly KeySpec[], defaults?: Record<string, number | null>): KeyFile {
  const dir = mkdtempSync(path.join(tmpdir(), 'tfidf-keys-'))
  const file = path.join(dir, 'keys.json')
  const secrets: Record<string, string> = {}
  const write = (list: readonly KeySpec[], defaultLimits?: Record<string, number | null>): void => {
    const entries = list.map(k => {
      secrets[k.id] ??= newSecret()
      return { id: k.id, sha256: hashSecret(secrets[k.id]!).toString('hex'), scopes: k.scopes, ...(k.limits === undefined ? {} : { limits: k.limits }) }
    })
    const tmp = `${file}.tmp`
    writeFileSync(tmp, JSON.stringify({ ...(defaultLimits === undefined ? {} : { default_limits: defaultLimits }), keys: entries }, null, 2))
    renameSync(tmp, file)
  }
  write(keys, defaults)
  return { file, secrets, rewrite: write }
}

export async function waitFor (check: () => boolean | Promise<boolean>, ms = 10000): Promise<void> {
  const until = Date.now() + ms
  while (!await check()) {
    if (Date.now() > until) throw new Error('condition not met in time')
    await new Promise(resolve => setTimeout(resolve, 20))
  }
}
