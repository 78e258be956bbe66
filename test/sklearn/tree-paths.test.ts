import { expect } from 'chai'
import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { RowLookup, applyTree, type TreeState } from '../../src/sklearn/classifiers/tree.js'
import { createPredictor, decodeModel } from '../../src/sklearn/load-model.js'
import { FIXTURES } from '../helpers/paths.js'
import { modelPathsOf, readExpected } from '../helpers/parity.js'

const DIR = path.join(FIXTURES, 'estimators')
const TEXTS = (JSON.parse(readFileSync(path.join(DIR, 'texts.json'), 'utf8')) as { texts: string[] }).texts
const VERSIONS = readdirSync(DIR).filter(name => /^\d+\.\d+\.\d+$/.test(name)).sort()

/** Every tree in a model's state, in the order scikit-learn's `apply` lists them. */
function treesIn (value: unknown): TreeState[] {
  if (value instanceof Int32Array || value instanceof Float64Array || value === null || typeof value !== 'object') return []
  const v = value as Partial<TreeState>
  if (v.left instanceof Int32Array && v.threshold instanceof Float64Array) return [value as TreeState]
  return (Array.isArray(value) ? value : Object.values(value)).flatMap(treesIn)
}

describe('tree models take the same path as in scikit-learn (leaf ids of apply())', () => {
  for (const version of VERSIONS) {
    for (const name of readdirSync(path.join(DIR, version)).filter(n => !n.startsWith('_')).sort()) {
      const dir = path.join(DIR, version, name)
      const expected = readExpected(dir)
      if (expected.apply == null) continue
      it(`${version} ${name}: ${expected.apply[0]!.length} tree(s) per text reach the same leaves`, async () => {
        const { state } = await decodeModel(modelPathsOf(dir, expected))
        const predictor = createPredictor(state)
        const trees = treesIn(state.classifier)
        expect(trees.length).to.equal(expected.apply![0]!.length)
        const lookup = new RowLookup(predictor.rowWidth)
        TEXTS.forEach((text, i) => {
          lookup.load(predictor.transform(text))
          expect(trees.map(t => applyTree(t, lookup.values)), `text ${i}`).to.deep.equal(expected.apply![i])
          lookup.clear()
        })
      })
    }
  }
})

describe("trees' missing-value field (scikit-learn 1.3+)", () => {
  it('is read when present and sends a NaN feature the way it says; absent before 1.3', async () => {
    const load = async (version: string): Promise<TreeState> => {
      const dir = path.join(DIR, version, 'tree-gini')
      const { state } = await decodeModel(modelPathsOf(dir, readExpected(dir)))
      return treesIn(state.classifier)[0]!
    }
    expect((await load('1.2.1')).missingGoLeft.length).to.equal(0)
    const tree = await load('1.9.1')
    expect(tree.missingGoLeft.length).to.equal(tree.nodeCount)
    const x = new Float32Array(400).fill(Number.NaN)
    // Follow the field by hand from the root: NaN fails every `<=`, so only the field decides.
    let node = 0
    while (tree.left[node] !== -1) node = tree.missingGoLeft[node] === 1 ? tree.left[node]! : tree.right[node]!
    expect(applyTree(tree, x)).to.equal(node)
    expect(applyTree({ ...tree, missingGoLeft: new Uint8Array(tree.nodeCount).fill(1) }, x)).to.not.equal(applyTree({ ...tree, missingGoLeft: new Uint8Array(tree.nodeCount) }, x))
  })
})
