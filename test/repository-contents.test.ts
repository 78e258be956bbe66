/**
 * The repository holds only what this project wrote (docs/preprocessing.md, "Where the data
 * comes from"): no absolute path of one machine, no other project's licence header, no recipe
 * that builds a third-party library, no copied protocol definition and no third-party data
 * file. Read from `git ls-files`, so it checks what a clone gets.
 */
import { expect } from 'chai'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { ROOT } from './helpers/paths.js'

/** This file names every pattern it looks for. */
const SELF = 'test/repository-contents.test.ts'

/**
 * Folders of one machine: its work folder, its temp and home folders, a package index on its
 * disk. A container's own paths (the Node image's /home/node) and system paths (/usr/bin/python3)
 * are the same everywhere and allowed. A slash after a word character (a URL's host) is no path.
 */
const MACHINE_FOLDERS = ['work', 'tmp', 'root'].map(name => `\\/${name}\\/`)
const MACHINE_PATH = new RegExp(`(?<![\\w.~-])(${[...MACHINE_FOLDERS, '\\/opt\\/pypi', '\\/Users\\/\\w', '\\/home\\/(?!node\\b)\\w', 'file:\\/\\/\\/'].join('|')})`)

/** Licence headers and licence texts, which mark another project's file. */
const LICENCE_TEXT = [
  /Licensed under the Apache License/,
  /SPDX-License-Identifier/,
  /^\W{0,4}Copyright (\(c\)|©|\d{4})/m,
  /Redistribution and use in source and binary forms/,
  /Permission is hereby granted, free of charge/,
  /THE SOFTWARE IS PROVIDED "AS IS"/
]
/** WordNet's lists stay (made from Debian's wordnet-base), and its licence with them. */
const LICENCE_ALLOWED = new Set(['src/preprocess/data/WORDNET-LICENSE'])

/** Steps of a recipe that builds a library from its source. */
const BUILD_RECIPE = [/\bcmake\s+(-S|--build)\b/, /--no-build-isolation/, /SETUPTOOLS_SCM_PRETEND_VERSION/, /\bmake\s+install\b/]

/** What src/preprocess/data/ may hold: WordNet's lists, their licence and how they were made. */
const PREPROCESS_DATA = ['src/preprocess/data/SOURCES.md', 'src/preprocess/data/WORDNET-LICENSE', 'src/preprocess/data/wordnet-morphy.txt']

interface Tracked { readonly file: string, readonly text: string }

/** Every tracked text file (a file with a NUL byte in its first 8 KB is binary and skipped). */
function trackedTexts (): Tracked[] {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).split('\0').filter(f => f !== '')
  const out: Tracked[] = []
  for (const file of files) {
    if (file === SELF) continue
    let bytes: Buffer
    try {
      bytes = readFileSync(path.join(ROOT, file))
    } catch {
      continue // deleted in the work tree, not yet committed
    }
    if (bytes.subarray(0, 8192).includes(0)) continue
    out.push({ file, text: bytes.toString('utf8') })
  }
  return out
}

/** `file:line: text` for each line of the tracked files that `pattern` matches. */
function lines (tracked: readonly Tracked[], pattern: RegExp): string[] {
  const found: string[] = []
  for (const { file, text } of tracked) {
    if (!pattern.test(text)) continue
    text.split('\n').forEach((line, i) => { if (pattern.test(line)) found.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`) })
  }
  return found
}

describe('repository contents', () => {
  let tracked: Tracked[]
  before(() => { tracked = trackedTexts() })

  it('reads the tracked files (git ls-files), this one among them', () => {
    const files = execFileSync('git', ['ls-files', SELF], { cwd: ROOT, encoding: 'utf8' }).trim()
    expect(files).to.equal(SELF)
    expect(tracked.map(t => t.file)).to.include('package.json')
  })

  it('names no absolute path of one machine', () => {
    expect(lines(tracked, MACHINE_PATH)).to.deep.equal([])
  })

  it('the pattern finds machine paths and passes URLs, system paths and the container\'s', () => {
    // Each made from its folder's name, so this file names no machine path of its own.
    const at = (folder: string, rest: string): string => `/${folder}/${rest}`
    for (const bad of [`cd ${at('work', 'main')}`, `"dir": "${at('tmp', 'snap/models')}"`, `PY=${at('root', '.pyenv')}`, `--index-url file://${at('opt', 'pypi/simple')}`, at('home', 'alice/x')]) expect(MACHINE_PATH.test(bad), bad).to.equal(true)
    for (const good of [`https://example.com${at('work', 'x')}`, '/usr/bin/python3', 'COPY x /home/node/model/', 'os.tmpdir()', '../shared/data/x']) expect(MACHINE_PATH.test(good), good).to.equal(false)
  })

  it('holds no other project\'s licence header outside ../shared', () => {
    const found = LICENCE_TEXT.flatMap(p => lines(tracked.filter(t => !LICENCE_ALLOWED.has(t.file)), p))
    expect(found).to.deep.equal([])
  })

  it('holds no recipe that builds a third-party library', () => {
    expect(BUILD_RECIPE.flatMap(p => lines(tracked, p))).to.deep.equal([])
    expect(tracked.map(t => t.file).filter(f => /(^|\/)build-[^/]*\.sh$/.test(f))).to.deep.equal([])
  })

  it('holds only its own protocol definitions (src/grpc/*.proto); tests read the reference ones from ../shared', () => {
    expect(tracked.map(t => t.file).filter(f => f.endsWith('.proto')).sort()).to.deep.equal(['src/grpc/grpc_service.proto', 'src/grpc/health.proto'])
  })

  it('ships no third-party data in src/preprocess/data (only WordNet\'s lists)', () => {
    expect(tracked.map(t => t.file).filter(f => f.startsWith('src/preprocess/data/')).sort()).to.deep.equal(PREPROCESS_DATA)
  })
})
