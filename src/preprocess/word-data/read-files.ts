/**
 * The files a step reads, each kept with where it was found and its SHA-256, so `inspect` can
 * say what a model read and a compiled model can carry it (docs/preprocessing.md, "Where the
 * data comes from").
 */
import { createHash } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import path from 'node:path'

/** One file read: its folder (the data folder searched), its path inside it, its SHA-256. */
export interface FileRead {
  readonly folder: string
  readonly file: string
  readonly sha256: string
}

/** No data file is this large; a larger one is not what its name says. */
const MAX_FILE_BYTES = 64 * 1024 * 1024

export function isFile (p: string): boolean {
  try {
    return statSync(p).isFile()
  } catch {
    return false
  }
}

export function isFolder (p: string): boolean {
  try {
    return statSync(p).isDirectory()
  } catch {
    return false
  }
}

/** A file's bytes with its record; `relative` is its path inside `folder`. */
export function readDataFile (folder: string, relative: string): { bytes: Buffer, read: FileRead } {
  const full = path.join(folder, relative)
  const size = statSync(full).size
  if (size > MAX_FILE_BYTES) throw new Error(`${full} is ${size} bytes, more than any word list or Punkt table (${MAX_FILE_BYTES})`)
  const bytes = readFileSync(full)
  return { bytes, read: { folder, file: relative, sha256: createHash('sha256').update(bytes).digest('hex') } }
}

/** UTF-8 text, refusing bytes that are not UTF-8 (Python would fail on them too). */
export function utf8Text (bytes: Buffer, where: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new Error(`${where} is not UTF-8 text`)
  }
}
