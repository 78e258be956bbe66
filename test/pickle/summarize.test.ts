import { expect } from 'chai'
import { DType, MaskedArray, NdArray } from '../../src/pickle/numpy.js'
import { SparseMatrix } from '../../src/pickle/scipy-sparse.js'
import { summarize } from '../../src/pickle/summarize.js'
import { PyGlobal, PyObject, PyTuple } from '../../src/pickle/values.js'

describe('summarize', () => {
  context('numpy and scipy values, which describe themselves (summarize imports neither module)', () => {
    it('describes an array, a masked array and a sparse matrix by shape or format', () => {
      const array = new NdArray(new DType('f8'), [2, 3], new Float64Array(6))
      const masked = new MaskedArray(new DType('i8'), [4], new BigInt64Array(4))
      expect([summarize(array), summarize(masked), summarize(new SparseMatrix('csr', false)), summarize(new SparseMatrix('dia', true))])
        .to.deep.equal(['an array of shape (2, 3)', 'an array of shape (4)', 'a sparse csr matrix', 'a sparse dia matrix'])
    })
  })

  context('plain values', () => {
    it('prints scalars as Python does, strings quoted and cut, containers by kind and size', () => {
      const long = 'é'.repeat(50)
      expect([
        summarize(null), summarize(true), summarize(7), summarize(2n ** 70n), summarize("it's"), summarize('a\nb'), summarize(long),
        summarize(new Uint8Array(3)), summarize([1]), summarize(new PyTuple([1, 2])), summarize(new Map()), summarize(new Set([1, 2])),
        summarize(new PyObject('sklearn.svm._classes', 'SVC')), summarize(new PyGlobal('builtins', 'eval'))
      ]).to.deep.equal([
        'None', 'True', '7', '1180591620717411303424', '"it\'s"', "'a\\nb'", `'${'é'.repeat(40)}'... (50 UTF-16 units)`,
        'bytes of length 3', 'a list of 1 item', 'a tuple of 2 items', 'a dict of 0 items', 'a set of 2 items',
        'sklearn.svm._classes.SVC', 'builtins.eval'
      ])
    })
  })
})
