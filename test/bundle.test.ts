/**
 * The bundles `npm run build` makes (scripts/bundle.mjs) and `npm start`, the image and every
 * service-process test run: each thread loads a few files of ours rather than ~100, and what
 * the service loads only when configured stays out of its start.
 */
import { expect } from 'chai'
import { readFileSync, readdirSync } from 'node:fs'
import { builtinModules } from 'node:module'
import path from 'node:path'
import { ROOT } from './helpers/paths.js'
import { MAIN } from './helpers/processes.js'

const DIST_SRC = path.join(ROOT, 'dist', 'src')
const read = (file: string): string => readFileSync(path.join(DIST_SRC, file), 'utf8')
const builtins = new Set(builtinModules)

/** What a bundle file imports statically: its chunks (./...) and packages, Node's own modules left out. */
function staticImports (text: string): string[] {
  const specifiers = [...text.matchAll(/^import [^;]*? from "([^"]+)"|^import "([^"]+)"/gm)].map(m => m[1] ?? m[2]!)
  return [...new Set(specifiers)].filter(s => !s.startsWith('node:') && !builtins.has(s)).sort()
}

/** The files a bundle loads before its first line runs (itself and its chunks, transitively), and the packages they import. */
function loadedAtStart (entry: string): { files: string[], packages: string[] } {
  const files = new Set<string>()
  const packages = new Set<string>()
  const visit = (file: string): void => {
    if (files.has(file)) return
    files.add(file)
    for (const s of staticImports(read(file))) {
      if (s.startsWith('./')) visit(s.slice(2))
      else packages.add(s)
    }
  }
  visit(entry)
  return { files: [...files], packages: [...packages].sort() }
}

describe('the bundles npm start runs', () => {
  it('are what the service processes of this suite start', () => {
    expect(path.relative(ROOT, MAIN)).to.equal(path.join('dist', 'src', 'main.bundle.js'))
  })

  it('the front thread imports gRPC and the tracing SDK only in chunks it loads when they are configured, and no package but those; piscina is required', () => {
    const chunks = readdirSync(DIST_SRC).filter(f => /^main[.]bundle.*[.]js$/.test(f))
    expect(chunks.length).to.be.within(2, 60)
    expect([...new Set(chunks.flatMap(f => staticImports(read(f)).filter(s => !s.startsWith('./'))))].sort()).to.deep.equal(['@grpc/grpc-js', '@grpc/proto-loader', '@opentelemetry/core', '@opentelemetry/sdk-trace', '@opentelemetry/semantic-conventions'])
    // CommonJS, so required (src/pool/piscina.ts): the same module its ES wrapper would give, without the wrapper's cost.
    expect(chunks.map(read).join('\n')).to.match(/createRequire[(]import[.]meta[.]url[)][(]"piscina"[)]/)
    // What runs before main.ts's first line: no package at all (the pool's chunk, with piscina, is imported by main()).
    expect(loadedAtStart('main.bundle.js').packages).to.deep.equal([])
  })

  it('leave the Redis client, the rate limiter and the YAML parser out until API keys or Redis are configured', () => {
    const text = readdirSync(DIST_SRC).filter(f => /^main[.]bundle.*[.]js$/.test(f)).map(read).join('\n')
    for (const pkg of ['ioredis', 'rate-limiter-flexible', 'yaml']) {
      expect(text, pkg).to.not.include(`node_modules/${pkg}/`)
      expect(text, pkg).to.match(new RegExp(`[(]import[.]meta[.]url[)][(]"${pkg}"[)]`))
    }
  })

  it('the worker, decoding and span-export threads each load one file, importing no file of ours and no package', () => {
    for (const name of ['classify-worker', 'decode-worker', 'export-thread']) expect(loadedAtStart(`${name}.bundle.js`), name).to.deep.equal({ files: [`${name}.bundle.js`], packages: [] })
  })
})
