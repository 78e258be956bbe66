import { expect } from 'chai'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { ROOT } from './helpers/paths.js'

/** The npm packages a fresh process has loaded after importing `modules` (dist paths). */
function packagesLoadedBy (modules: readonly string[]): string[] {
  const urls = modules.map(m => JSON.stringify(new URL(`file://${path.join(ROOT, 'dist', m)}`).href))
  const script = `for (const u of [${urls.join(',')}]) await import(u)
const { createRequire } = await import('node:module')
const cache = createRequire(import.meta.url).cache
console.log(JSON.stringify([...new Set(Object.keys(cache).map(k => /node_modules\\/((@[^/]+\\/)?[^/]+)/.exec(k)?.[1]).filter(Boolean))]))`
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as string[]
}

/** The files of ours `entry` imports statically, directly or not (dist paths from the root). */
function staticGraph (entry: string): string[] {
  const seen = new Set<string>()
  const visit = (file: string): void => {
    if (seen.has(file)) return
    seen.add(file)
    for (const m of readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'|^import\s+'(\.[^']+)'/gm)) visit(path.resolve(path.dirname(file), m[1] ?? m[2]!))
  }
  visit(path.join(ROOT, 'dist', entry))
  return [...seen].map(f => path.relative(path.join(ROOT, 'dist'), f))
}

describe('start-up loads only what the default service uses', function () {
  this.timeout(60000)

  it('the front thread loads no Redis client, rate limiter or YAML parser until API keys or Redis are configured', () => {
    const loaded = packagesLoadedBy(['src/http/app.js', 'src/http/server.js', 'src/service/create-service.js', 'src/repository/open.js', 'src/config.js', 'src/logger.js'])
    expect(loaded).to.include.members(['express', 'ajv'])
    expect(loaded).to.not.include.members(['ioredis'])
    expect(loaded).to.not.include.members(['rate-limiter-flexible'])
    expect(loaded).to.not.include.members(['yaml'])
  })

  it('the decoding thread and the workers load no npm package (ajv only for a model with a settings file)', () => {
    expect(packagesLoadedBy(['src/model/served-model.js', 'src/sklearn/shared-state.js', 'src/pool/model-channel.js', 'src/prediction-lines.js'])).to.deep.equal([])
  })

  it('the decoding thread and the workers load the preprocessing steps (stemmers, tokenizers, NLTK objects) only for a model with a settings file', () => {
    for (const entry of ['workers/decode.js', 'workers/classify.js']) {
      // The data readers (word-data/: files, hashes, the Punkt pickle through the unpickler the
      // thread has anyway) run where the settings are read; no step's code comes with them.
      const preprocess = staticGraph(entry).filter(f => f.startsWith('src/preprocess/') && !f.startsWith('src/preprocess/word-data/'))
      expect(preprocess, entry).to.deep.equal(['src/preprocess/user-functions.js'])
      const readers = staticGraph(entry).filter(f => f.startsWith('src/preprocess/word-data/'))
      expect(readers.every(f => /^src\/preprocess\/word-data\/(step-data|nltk-punkt|nltk-stopwords|punkt-pickle|punkt-tables|read-files|missing-data|sastrawi-lists|search-path)\.js$/.test(f)), entry).to.equal(true)
    }
  })
})
