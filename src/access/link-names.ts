/**
 * Which names in a file's folder stand for that file: its own, and those of the links it leads
 * through while they stay in that folder. A folder watch reports a change under the name written,
 * and writing `keys.json -> keys-v1.json` through the link (an editor saving in place) is a change
 * to keys-v1.json; without that name, the watch could not tell the event was about the key file.
 */
import { lstatSync, readlinkSync } from 'node:fs'
import path from 'node:path'

/** Linux's own limit on links followed in one path (MAXSYMLINKS); a cycle ends there too. */
const MAX_HOPS = 40

/**
 * The names, in `file`'s folder, of `file` and of each link target it resolves through that lies
 * in the same folder, in order. The walk stops at the first target elsewhere (a folder not
 * watched; Kubernetes's `..data` links are told apart by their own names) or that cannot be read.
 */
export function linkNamesInFolder (file: string): string[] {
  let current = path.resolve(file)
  const folder = path.dirname(current)
  const names = [path.basename(current)]
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    let target: string
    try {
      if (!lstatSync(current).isSymbolicLink()) break
      target = path.resolve(path.dirname(current), readlinkSync(current))
    } catch {
      break
    }
    if (path.dirname(target) !== folder || names.includes(path.basename(target))) break
    names.push(path.basename(target))
    current = target
  }
  return names
}
