/**
 * The product version a compiled file records and a cache entry is keyed by: package.json's
 * `version`. A build of the same version reads its own files; any other version compiles
 * again (a cache entry of another version is stale), since the state a version decodes may
 * differ from another's.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { PROJECT_ROOT } from '../layout.js'

let version: string | undefined

export function productVersion (): string {
  version ??= `tfidf-serve ${(JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version}`
  return version
}
