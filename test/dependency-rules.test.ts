import { expect } from 'chai'
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { ROOT } from './helpers/paths.js'

const run = promisify(execFile)

interface Violation {
  readonly rule: { readonly name: string }
  readonly from: string
  readonly to: string
}

/**
 * A small tree laid out like ours, where each file breaks one rule of .dependency-cruiser.cjs
 * (and a few imports that every rule allows), so a rule weakened by mistake shows here.
 */
const TREE: Readonly<Record<string, string>> = {
  'src/pickle/reader.ts': "import express from 'express'\nexport const x = express\n",
  'src/pickle/estimator-user.ts': "import { y } from '../sklearn/est.js'\nexport const z = y\n",
  'src/sklearn/est.ts': "import { Worker } from 'node:worker_threads'\nexport const y = Worker\n",
  'src/sklearn/pool-user.ts': "import { p } from '../pool/p.js'\nexport const q = p\n",
  'src/sklearn/uses-python.ts': "import { a } from '../python/a.js'\nexport const u = a\n",
  'src/pool/p.ts': 'export const p = 1\n',
  'src/python/a.ts': "import { b } from './b.js'\nexport const a = 1 + b\n",
  'src/python/b.ts': "import { a } from './a.js'\nexport const b = () => a\n",
  'src/python/c.ts': "import { d } from '../preprocess/d.js'\nexport const c = d\n",
  'src/preprocess/d.ts': "import { y } from '../sklearn/est.js'\nexport const d = y\n",
  'src/http/body.ts': 'export const BODY_LIMIT = 1\n',
  'src/http/explain.ts': "import { y } from '../sklearn/est.js'\nexport const e = y\n",
  'src/grpc/server.ts': "import { BODY_LIMIT } from '../http/body.js'\nexport const s = BODY_LIMIT\n",
  'src/protocol/v2/infer.ts': "import { y } from '../../sklearn/est.js'\nexport const i = y\n",
  'src/labels.ts': "import { y } from './sklearn/est.js'\nimport { a } from './python/a.js'\nexport const l = [y, a]\n",
  'src/repository/r.ts': "import { BODY_LIMIT } from '../http/body.js'\nexport const r = BODY_LIMIT\n",
  'src/service/s.ts': "import { r } from '../repository/r.js'\nexport const s = r\n",
  'src/model/m.ts': "import { s } from '../service/s.js'\nexport const m = s\n",
  'src/main.ts': "import { s } from './grpc/server.js'\nimport { BODY_LIMIT } from './http/body.js'\nexport const main = [s, BODY_LIMIT]\n",
  'workers/w.ts': "import { s } from '../src/grpc/server.js'\nimport { d } from '../src/preprocess/d.js'\nexport const w = [s, d]\n",
  'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } })
}

describe('the import rules (.dependency-cruiser.cjs)', function () {
  this.timeout(60000)
  let dir = ''

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dependency-rules-'))
    for (const [file, text] of Object.entries(TREE)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
      writeFileSync(path.join(dir, file), text)
    }
    // The tree's imports of express resolve like ours.
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'))
  })

  after(() => { rmSync(dir, { recursive: true, force: true }) })

  it('names each forbidden import by its rule, and lets the allowed ones through', async () => {
    const cli = path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs')
    const config = path.join(ROOT, '.dependency-cruiser.cjs')
    // depcruise exits with the number of errors; the JSON report is on stdout either way.
    const { stdout } = await run(process.execPath, [cli, 'src', 'workers', '--config', config, '--output-type', 'json'], { cwd: dir, maxBuffer: 16 << 20 })
      .catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }))
    const violations = (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations
    const found = violations
      .map(v => `${v.rule.name}: ${v.from} -> ${v.to.replace(/^.*node_modules\/([^/]+)\/.*$/, '$1')}`)
      .sort()
    expect(found).to.deep.equal([
      'grpc-not-to-http: src/grpc/server.ts -> src/http/body.ts',
      'http-not-to-sklearn: src/http/explain.ts -> src/sklearn/est.ts',
      'labels-not-to-sklearn: src/labels.ts -> src/sklearn/est.ts',
      'maths-not-to-front: src/sklearn/pool-user.ts -> src/pool/p.ts',
      'maths-not-to-servers-or-threads: src/pickle/reader.ts -> express',
      'maths-not-to-servers-or-threads: src/sklearn/est.ts -> worker_threads',
      'model-rooms-not-to-front: src/model/m.ts -> src/service/s.ts',
      'no-circular: src/python/a.ts -> src/python/b.ts',
      'pickle-not-to-sklearn: src/pickle/estimator-user.ts -> src/sklearn/est.ts',
      'protocol-not-to-sklearn: src/protocol/v2/infer.ts -> src/sklearn/est.ts',
      'python-not-to-sklearn-or-preprocess: src/python/c.ts -> src/preprocess/d.ts',
      'service-only-from-transports: src/model/m.ts -> src/service/s.ts',
      'transports-only-from-transports: src/repository/r.ts -> src/http/body.ts',
      'transports-only-from-transports: workers/w.ts -> src/grpc/server.ts',
      'workers-not-to-front: workers/w.ts -> src/grpc/server.ts'
    ])
  })
})
