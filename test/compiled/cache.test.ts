/**
 * MODEL_CACHE_DIR: the first start decodes the pickles and writes the compiled file beside
 * serving, a later start of the same files loads it, and an entry that is damaged, foreign or
 * of other files is ignored with one line and written again.
 */
import { expect } from 'chai'
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { cacheFile } from '../../src/compiled/cache.js'
import { decodeOrLoad } from '../../src/compiled/decode-or-load.js'
import { sourcesOf, type ModelSources } from '../../src/compiled/sources.js'
import { parseConfig } from '../../src/config.js'
import { ClassifierPool } from '../../src/pool/classifier-pool.js'
import type { RepositoryEvent } from '../../src/repository/model-repository.js'
import { openRepository } from '../../src/repository/open.js'
import { DEFAULT_PATHS, readBytes, tempDir, writeBytes } from '../helpers/compiled-files.js'
import { FIXTURES } from '../helpers/paths.js'

const POOL = { workers: 1, predictionTimeoutMs: 10_000, maxConcurrentRequests: 4, maxQueue: 0 }

describe('the compiled model cache', function () {
  this.timeout(120_000)
  const dir = tempDir('tfsc-cache-')
  const cache = path.join(dir, 'cache')
  const models = path.join(dir, 'models')
  let model: ModelSources
  after(() => rmSync(dir, { recursive: true, force: true }))

  beforeEach(() => {
    // The cache folder is left to the first write to make, as on a first start.
    rmSync(cache, { recursive: true, force: true })
    rmSync(models, { recursive: true, force: true })
    mkdirSync(models)
    copyFileSync(DEFAULT_PATHS.model, path.join(models, 'model.pkl'))
    copyFileSync(DEFAULT_PATHS.vectorizers[0]!, path.join(models, 'vectorizer.pkl'))
    model = { paths: { model: path.join(models, 'model.pkl'), vectorizers: [path.join(models, 'vectorizer.pkl')] }, settingsFile: null, labels: null, ensemble: null }
  })

  it('compiles on the first start, then loads the compiled file on the next', async () => {
    const first = await decodeOrLoad(model, cache)
    expect(first.notes.at(-1)).to.match(/^model cache: no entry for .*model\.pkl; compiling .*\.tfsc beside serving$/)
    expect(first.compile).to.not.equal(undefined)
    first.compile!.write()
    expect(readdirSync(cache)).to.deep.equal([path.basename(cacheFile(cache, sourcesOf(model)))])
    const second = await decodeOrLoad(model, cache)
    expect(second.notes.at(-1)).to.match(/^model cache: loaded .*model\.pkl from .*\.tfsc$/)
    expect(second.compile).to.equal(undefined)
    expect(second.info).to.deep.equal(first.info)
    expect(second.bytes).to.equal(first.bytes)
  })

  it('ignores a damaged entry in one line and compiles it again', async () => {
    const first = await decodeOrLoad(model, cache)
    first.compile!.write()
    const entry = cacheFile(cache, sourcesOf(model))
    const bytes = readBytes(entry)
    bytes[bytes.length - 5]! ^= 0xff
    writeBytes(entry, bytes)
    const damaged = await decodeOrLoad(model, cache)
    expect(damaged.notes.at(-1)).to.match(/^model cache: ignored .*\.tfsc \(damaged compiled model: the checksum does not match the contents\); decoding .*model\.pkl and compiling it again$/)
    expect(damaged.notes.at(-1)).to.not.include('\n')
    damaged.compile!.write()
    expect((await decodeOrLoad(model, cache)).notes.at(-1)).to.match(/^model cache: loaded /)
  })

  it('ignores an entry of other files put under the name of these', async () => {
    const first = await decodeOrLoad(model, cache)
    first.compile!.write()
    const entry = cacheFile(cache, sourcesOf(model))
    // Another model's entry copied over this one's name: its header names other sources.
    const other = path.join(FIXTURES, 'sklearn', 'logreg-binary')
    const foreign = await decodeOrLoad({ ...model, paths: { model: path.join(other, 'final_best_model.pkl'), vectorizers: [path.join(other, 'tfidf_vectorizer.pkl')] } }, path.join(dir, 'cache2'))
    foreign.compile?.write()
    const found = path.join(dir, 'cache2', readdirSync(path.join(dir, 'cache2'))[0]!)
    copyFileSync(found, entry)
    const again = await decodeOrLoad(model, cache)
    expect(again.notes.at(-1)).to.match(/^model cache: ignored .*\(compiled from other files\)/)
  })

  it('misses when a source file changes or is added', async () => {
    (await decodeOrLoad(model, cache)).compile!.write()
    const before = cacheFile(cache, sourcesOf(model))
    copyFileSync(path.join(FIXTURES, 'sklearn', 'logreg-binary', 'final_best_model.pkl'), model.paths.model)
    expect(cacheFile(cache, sourcesOf(model))).to.not.equal(before)
    copyFileSync(DEFAULT_PATHS.model, model.paths.model)
    expect(cacheFile(cache, sourcesOf(model))).to.equal(before)
    writeFileSync(path.join(models, 'model-settings.json'), '{}')
    const withSettings = { ...model, settingsFile: path.join(models, 'model-settings.json') }
    expect(cacheFile(cache, sourcesOf(withSettings))).to.not.equal(before)
    expect((await decodeOrLoad(withSettings, cache)).notes.at(-1)).to.match(/^model cache: no entry/)
  })

  it('serves through the pool: the second start loads from the cache, and the answers are the same', async () => {
    const start = async (): Promise<ClassifierPool> => await ClassifierPool.start({ ...POOL, modelPath: model.paths.model, vectorizerPaths: model.paths.vectorizers!, modelCacheDir: cache })
    const first = await start()
    const texts = ['a fine film', 'awful', '']
    const a = await first.classify(texts, 10, undefined, true)
    await first.close()
    expect(first.model.notes.at(-1)).to.match(/^model cache: no entry/)
    // The decoding thread writes the entry after handing the model over: wait for it.
    for (let i = 0; i < 200 && !existsSync(cacheFile(cache, sourcesOf(model))); i++) await new Promise(resolve => setTimeout(resolve, 50))
    const second = await start()
    const b = await second.classify(texts, 10, undefined, true)
    await second.close()
    expect(second.model.notes.at(-1)).to.match(/^model cache: loaded /)
    expect(Buffer.from(b.confidence.buffer).equals(Buffer.from(a.confidence.buffer))).to.equal(true)
    expect(Buffer.from(b.proba!.buffer).equals(Buffer.from(a.proba!.buffer))).to.equal(true)
    expect([...b.classIndex]).to.deep.equal([...a.classIndex])
  })

  it('logs each repository model\'s cache line with its load event, and loads it from the cache on the next start', async () => {
    const root = path.join(dir, 'repository')
    for (const name of ['a', 'b']) {
      mkdirSync(path.join(root, name), { recursive: true })
      copyFileSync(DEFAULT_PATHS.model, path.join(root, name, 'final_best_model.pkl'))
      copyFileSync(DEFAULT_PATHS.vectorizers[0]!, path.join(root, name, 'tfidf_vectorizer.pkl'))
    }
    const open = async (): Promise<RepositoryEvent[]> => {
      const events: RepositoryEvent[] = []
      const config = parseConfig({ MODEL_REPOSITORY: root, DEFAULT_MODEL: 'a', MODEL_CACHE_DIR: cache, WORKERS: '1', LOG_LEVEL: 'silent' })
      const { pool } = await openRepository(config, {}, { onEvent: e => events.push(e) })
      await pool.close()
      return events
    }
    const first = await open()
    expect(first.map(e => [e.model, e.kind])).to.deep.equal([['b', 'loaded']])
    // Both folders hold the same files: one entry, written by whichever load finished first.
    expect(first[0]!.notes?.at(-1)).to.match(/^model cache: (no entry|loaded)/)
    for (let i = 0; i < 200 && !(existsSync(cache) && readdirSync(cache).some(f => f.endsWith('.tfsc'))); i++) await new Promise(resolve => setTimeout(resolve, 50))
    const second = await open()
    expect(second[0]!.notes?.at(-1)).to.match(/^model cache: loaded .*final_best_model\.pkl from /)
  })
})
