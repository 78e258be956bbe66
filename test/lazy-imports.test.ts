import { expect } from 'chai'
import { execFileSync } from 'node:child_process'
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
})
