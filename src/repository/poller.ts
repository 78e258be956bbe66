/**
 * MODEL_POLL_SECONDS: the repository looked at every so often, and a model folder whose files
 * changed (added, removed, a size or modification time changed) reloaded, a new folder
 * loaded. A folder half written when looked at may fail to load; the old version then keeps
 * serving, and the next look tries again (Triton warns the same of its polling mode).
 */
import { readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import type { ModelRepository } from './model-repository.js'

/** A folder's files as one string: names, sizes and modification times, two levels deep (version folders). */
function signatureOf (folder: string, depth = 0): string {
  let out = ''
  for (const name of readdirSync(folder).sort()) {
    const full = path.join(folder, name)
    const info = statSync(full)
    out += `${name}:${info.size}:${info.mtimeMs};`
    if (info.isDirectory() && depth < 1) out += `[${signatureOf(full, depth + 1)}]`
  }
  return out
}

/** Starts looking at `root` every `seconds`; returns the function that stops it. */
export function pollRepository (repository: ModelRepository, root: string, seconds: number, onError: (err: unknown) => void = () => {}): () => void {
  const seen = new Map<string, string>()
  const look = (): Map<string, string> => {
    const now = new Map<string, string>()
    for (const name of readdirSync(root)) {
      const full = path.join(root, name)
      try {
        if (!name.startsWith('.') && statSync(full).isDirectory()) now.set(full, signatureOf(full))
      } catch {}
    }
    return now
  }
  for (const [folder, signature] of look()) seen.set(folder, signature)
  let busy = false
  const timer = setInterval(() => {
    if (busy) return
    busy = true
    const changed: string[] = []
    try {
      for (const [folder, signature] of look()) {
        if (seen.get(folder) !== signature) changed.push(folder)
        seen.set(folder, signature)
      }
    } catch (err) {
      onError(err)
    }
    Promise.all(changed.map(async folder => await repository.loadFolder(folder).catch(onError))).finally(() => { busy = false })
  }, seconds * 1000)
  timer.unref()
  return () => clearInterval(timer)
}
