import { expect } from 'chai'
import path from 'node:path'
import { runCli, type CliRun } from './helpers/cli.js'
import { FIXTURES, ROOT } from './helpers/paths.js'

const cli = async (args: string[], input = ''): Promise<CliRun> => await runCli(args, input, ['--import', NO_LZMA])
const NO_LZMA = path.join(ROOT, 'dist', 'test', 'helpers', 'no-lzma-native.js')


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
