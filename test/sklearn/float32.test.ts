import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { expitFloat32, numpyExpFloat32, numpyLogFloat32 } from '../../src/sklearn/float32.js'
import { FIXTURES } from '../helpers/paths.js'

const KERNELS = JSON.parse(readFileSync(path.join(FIXTURES, 'float32', 'kernels.json'), 'utf8')) as Record<'exp' | 'expit' | 'log', { x: string[], y: string[] }>

const bits = new Uint32Array(1)
const float = new Float32Array(bits.buffer)
const fromHex = (h: string): number => { bits[0] = Number.parseInt(h, 16); return float[0]! }
const toHex = (x: number): string => { float[0] = x; return bits[0]!.toString(16).padStart(8, '0') }

describe('float32 kernels, bit for bit against numpy 2.4 and scipy 1.17 on this machine kind', () => {
  const cases = [
    ['np.exp', KERNELS.exp, numpyExpFloat32],
    ['scipy.special.expit (glibc expf)', KERNELS.expit, expitFloat32],
    ['np.log', KERNELS.log, numpyLogFloat32]
  ] as const
  for (const [name, { x, y }, fn] of cases) {
    it(`${name} on ${x.length} inputs`, () => {
      expect(x.length).to.be.at.least(5000)
      const wrong = x.map((h, i) => ({ h, want: y[i]!, got: toHex(fn(fromHex(h))) })).filter(r => r.got !== r.want)
      expect(wrong.slice(0, 5)).to.deep.equal([])
    })
  }

  it('Math.exp rounded to float32 is not good enough (the reason for these kernels)', () => {
    const differs = KERNELS.expit.x.filter((h, i) => toHex(Math.fround(1 / Math.fround(1 + Math.fround(Math.exp(-fromHex(h)))))) !== KERNELS.expit.y[i])
    const numpyDiffers = KERNELS.exp.x.filter((h, i) => toHex(Math.fround(Math.exp(fromHex(h)))) !== KERNELS.exp.y[i])
    expect(numpyDiffers.length).to.be.greaterThan(100)
    expect(differs.length).to.be.greaterThan(0)
  })
})
