import { expect } from 'chai'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { readPickleFile } from '../../src/pickle/read-pickle-file.js'
import { resolveGlobal } from '../../src/pickle/globals.js'
import { PyObject, PyTuple } from '../../src/pickle/values.js'
import { serviceErrorOf } from '../helpers/errors.js'
import { hasShared, needShared } from '../helpers/shared-data.js'

interface Scan { root_class: string, globals: string[], refused_names: string[], allowed: boolean }
interface Expected { static_scan: Record<string, Scan> }

function wildFiles (wild: string): Array<{ dir: string, file: string, scan: Scan }> {
  if (!hasShared('wild')) return []
  const out: Array<{ dir: string, file: string, scan: Scan }> = []
  for (const dir of readdirSync(wild).sort()) {
    const expectedPath = path.join(wild, dir, 'expected.json')
    if (!existsSync(expectedPath)) continue
    const expected = JSON.parse(readFileSync(expectedPath, 'utf8')) as Expected
    for (const [file, scan] of Object.entries(expected.static_scan)) out.push({ dir, file, scan })
  }
  return out
}

/** Whether the allow-list takes a global the wild scan recorded as refused (classes added since). */
function isServedLibraryGlobal (qualified: string): boolean {
  const dot = qualified.lastIndexOf('.')
  try {
    resolveGlobal(qualified.slice(0, dot), qualified.slice(dot + 1))
    return true
  } catch {
    return false
  }
}

/** 'sklearn.x.Y' or 'tuple[...]' / 'dict' etc., as the static scan names a file's root. */
function rootName (value: unknown): string {
  if (value instanceof PyObject) return value.qualifiedName
  if (value instanceof PyTuple) return 'tuple'
  if (Array.isArray(value)) return 'list'
  if (value instanceof Map) return 'dict'
  return typeof value
}

describe('real model files from public repositories (../shared/wild)', () => {
  const WILD = needShared('wild')
  const files = wildFiles(WILD)

  it('finds the wild files beside the clone', () => {
    expect(files.length).to.be.greaterThan(50)
  })

  for (const { dir, file, scan } of files) {
    const full = path.join(WILD, dir, file)
    if (scan.allowed) {
      it(`decodes ${dir}/${file} to its ${scan.root_class}`, async () => {
        const value = await readPickleFile(full)
        expect(scan.root_class.startsWith(rootName(value))).to.equal(true, `${rootName(value)} vs ${scan.root_class}`)
      })
    } else if (scan.refused_names.every(name => isServedLibraryGlobal(name))) {
      // Its only globals the scan found refused are ones the allow-list now takes (xgboost's, lightgbm's): it decodes.
      it(`decodes ${dir}/${file} now that ${scan.refused_names.join(', ')} is allowed`, async () => {
        const value = await readPickleFile(full)
        expect(scan.root_class.startsWith(rootName(value))).to.equal(true, `${rootName(value)} vs ${scan.root_class}`)
      })
    } else {
      it(`refuses ${dir}/${file}, naming a refused global`, async () => {
        const err = await serviceErrorOf(async () => await readPickleFile(full))
        expect(err.code).to.equal('ERR_PICKLE_GLOBAL_NOT_ALLOWED')
        expect(scan.refused_names.some(name => new RegExp(`^unsupported object '${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}'( \\(the app's own code: .*\\))? in `).test(err.message) && err.message.includes(` in ${full}`))).to.equal(true, err.message)
      })
    }
  }
})
