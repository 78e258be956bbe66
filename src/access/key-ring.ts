/**
 * The keys in force: looked up by the SHA-256 of the secret a request carries, the digests
 * then compared in constant time; re-read on SIGHUP (by main) and whenever the key file's
 * folder changes (an editor's rename, a Kubernetes Secret's symlink swap, a write through a
 * link to another file of the folder). A file that does not parse leaves the previous keys in
 * force and is reported in one line.
 */
import { timingSafeEqual } from 'node:crypto'
import { watch, type FSWatcher } from 'node:fs'
import path from 'node:path'
import { readKeyFile, type ApiKey, type KeyTable } from './key-file.js'
import { linkNamesInFolder } from './link-names.js'
import { hashSecret } from './secret.js'

/** How long a burst of file events is let settle before the file is read again. */
const SETTLE_MS = 50

export interface KeyRingEvents {
  /** The file was read again: how many keys are now in force. */
  readonly onReload?: (keys: number) => void
  /** The file changed but could not be used; the previous keys stay in force. */
  readonly onReloadFailed?: (err: Error) => void
}

export class KeyRing {
  readonly file: string
  #table: KeyTable
  /** The names in the key file's folder whose change is a change of the key file (it, and the links it resolves through there). */
  #names: ReadonlySet<string>
  #watcher: FSWatcher | undefined
  #settle: NodeJS.Timeout | undefined
  readonly #events: KeyRingEvents

  /** @throws ServiceError ERR_CONFIG_INVALID when the file cannot be used (at start-up, a bad setting). */
  constructor (file: string, events: KeyRingEvents = {}) {
    this.file = file
    this.#events = events
    this.#table = readKeyFile(file)
    this.#names = new Set(linkNamesInFolder(file))
  }

  get size (): number {
    return this.#table.keys.length
  }

  /** The key whose secret this is, or undefined. */
  find (secret: string): ApiKey | undefined {
    const digest = hashSecret(secret)
    const key = this.#table.byHash.get(digest.toString('hex'))
    // The map finds a candidate by digest; the digests are then compared without early exit.
    return key !== undefined && timingSafeEqual(key.hash, digest) ? key : undefined
  }

  /** Reads the file again; on failure the previous keys stay in force. Resolves true when the new keys are in force. */
  reload (): boolean {
    // The link may have been re-pointed since: the watch follows what the file now resolves to.
    this.#names = new Set(linkNamesInFolder(this.file))
    try {
      this.#table = readKeyFile(this.file)
      this.#events.onReload?.(this.#table.keys.length)
      return true
    } catch (err) {
      this.#events.onReloadFailed?.(err as Error)
      return false
    }
  }

  /** Re-reads the file whenever its folder changes. */
  watch (): void {
    if (this.#watcher !== undefined) return
    this.#watcher = watch(path.dirname(this.file), { persistent: false }, (_event, changed) => {
      // The file itself, a file of this folder it links to (written through the link), or
      // Kubernetes's `..data` link to a mounted Secret's new contents.
      if (changed !== null && !this.#names.has(changed) && !changed.startsWith('..')) return
      clearTimeout(this.#settle)
      this.#settle = setTimeout(() => this.reload(), SETTLE_MS)
    })
    this.#watcher.on('error', () => {})
  }

  close (): void {
    clearTimeout(this.#settle)
    this.#watcher?.close()
    this.#watcher = undefined
  }
}
