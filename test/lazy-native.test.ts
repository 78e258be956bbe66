import { expect } from 'chai'
import { spawn } from 'node:child_process'
import path from 'node:path'
import { FIXTURES, ROOT } from './helpers/paths.js'

const CLI = path.join(ROOT, 'dist', 'src', 'cli.js')
const NO_LZMA = path.join(ROOT, 'dist', 'test', 'helpers', 'no-lzma-native.js')

async function cli (args: string[], input = ''): Promise<{ stdout: string, stderr: string, code: number }> {
  return await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', NO_LZMA, CLI, ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString() })
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString() })
    child.on('error', reject)
    child.on('close', code => resolve({ stdout, stderr, code: code ?? -1 }))
    child.stdin.end(input)
  })
}

describe('a native dependency that cannot load (lzma-native on another libc)', function () {
  this.timeout(60000)

  it('costs only the .xz and .lzma files it reads: everything else still works', async () => {
    const gzip = await cli(['inspect', '--model', path.join(FIXTURES, 'pickle', 'model-gzip.joblib')])
    expect(gzip.code).to.equal(0)
    expect(JSON.parse(gzip.stdout)).to.include({ classifier: 'LogisticRegression' })
    const predicted = await cli(['predict', '--workers', '1'], 'a wonderful, moving film\n')
    expect(predicted.code).to.equal(0)
    expect(JSON.parse(predicted.stdout)).to.include({ label: 'positive' })
  })

  it('refuses a .lzma model with one line naming the format, the module and the file', async () => {
    const file = path.join(FIXTURES, 'pickle', 'model-lzma.joblib')
    const { code, stdout, stderr } = await cli(['inspect', '--model', file])
    expect([code, stdout]).to.deep.equal([1, ''])
    expect(stderr.trimEnd().split('\n')).to.have.length(1)
    expect(stderr).to.match(/^tfidf-serve: lzma files cannot be read here: lzma-native does not load \(.*symbol not found\) in .*model-lzma\.joblib/)
  })
})
