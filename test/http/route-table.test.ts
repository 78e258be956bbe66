/**
 * The route table (src/http/route-table.ts) is the one declaration of the HTTP routes: the app
 * registers exactly its routes, answers another method on a spec path with 405 and the
 * table's Allow, checks each route's scope, and the OpenAPI document lists exactly its
 * operations with that scope.
 */
import { expect } from 'chai'
import request from 'supertest'
import { allowedMethods, expressPath, ROUTES, scopeOf } from '../../src/http/route-table.js'
import { openApiDocument } from '../../src/http/openapi.js'
import { parseConfig } from '../../src/config.js'
import { writeKeyFile } from '../helpers/keys.js'
import { startService, type Service } from '../helpers/service.js'

type Json = Record<string, unknown>

describe('the route table', function () {
  this.timeout(60000)
  let service: Service

  before(async () => {
    const keys = writeKeyFile([{ id: 'k', scopes: ['predict'] }])
    service = await startService({ API_KEYS_FILE: keys.file })
  })
  after(async () => { await service.close() })

  it('is what the OpenAPI document lists, operation for operation, with each scope', () => {
    for (const metricsRequireKey of [false, true]) {
      const config = { ...parseConfig({}), apiKeysFile: '/keys.json', metricsRequireKey }
      const doc = openApiDocument(config)
      const operations = Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) => Object.keys(item).filter(m => m !== 'options' && m !== 'parameters').map(m => `${m} ${path}`))
      expect(operations.sort()).to.deep.equal(ROUTES.map(r => `${r.method} ${r.path}`).sort())
      for (const route of ROUTES) {
        const operation = ((doc.paths as Record<string, Json>)[route.path]!)[route.method] as { security: unknown[] }
        expect(operation.security.length > 0, `${route.method} ${route.path}`).to.equal(scopeOf(route, config) !== null)
      }
    }
  })

  it('gives every spec path a 405 with its Allow, and V2 paths none', async () => {
    const allowed = allowedMethods()
    expect([...allowed.keys()].some(p => p.startsWith('/v2'))).to.equal(false)
    for (const [path, allow] of allowed) {
      const concrete = path.replace(/\{[^}]+\}/g, 'x')
      const other = allow.includes('POST') ? 'put' : 'delete'
      const res = await request(service.app)[other](concrete)
      expect([res.status, res.headers.allow], path).to.deep.equal([405, allow])
    }
  })

  it('asks for each route\'s scope before it reads the body, and leaves the open routes open', async () => {
    for (const route of ROUTES) {
      const concrete = expressPath(route.path).replace(/:[a-z]+/g, route.path.includes('{asset}') ? 'init.js' : 'default')
      const res = await request(service.app)[route.method](concrete)
      const scope = scopeOf(route, service.config)
      if (scope === null) expect(res.status, `${route.method} ${route.path}`).to.not.equal(401)
      else expect(res.status, `${route.method} ${route.path}`).to.equal(401)
    }
  })
})
