/**
 * A results file names no folder of the machine that wrote it: a path inside the repository is
 * written relative to its root, any other absolute path as its last folder's name.
 */
import path from 'node:path'
import { ROOT } from './corpus.js'

/** `value` as a results file writes it (a JSON.stringify replacer). */
export function portablePath (_key: string, value: unknown): unknown {
  if (typeof value !== 'string' || !path.isAbsolute(value)) return value
  const inside = path.relative(ROOT, value)
  return inside === '' ? '.' : inside.startsWith('..') ? path.basename(value) : inside
}

/** How a results table names another build (an earlier checkout): its folder's name, not its path. */
export const buildLabel = (root: string): string => `before (${path.basename(root)})`
