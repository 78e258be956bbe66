/**
 * Damaged and hostile compiled files: each is refused with one ServiceError line naming the
 * file, never a crash, a hang or a read outside the file. Most keep a valid checksum (it is
 * recomputed after the change), so the checks behind it are what refuses them.
 */
import { expect } from 'chai'
import { rmSync } from 'node:fs'
import path from 'node:path'
import { loadCompiledModel } from '../../src/compiled/load-compiled.js'
import { ServiceError } from '../../src/errors.js'
import { FIXTURES } from '../helpers/paths.js'
import { DEFAULT_PATHS, compileInProcess, joinCompiled, readBytes, splitCompiled, tempDir, withChecksum, writeBytes, type CompiledParts } from '../helpers/compiled-files.js'

type Tree = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

/** The [dtype, offset, length] entry of the array at `ref` ({"$a": i}). */
function entryOf (parts: CompiledParts, ref: { $a: number }): [string, number, number] {
  return parts.body.arrays[ref.$a]!
}

/** A DataView over the blob bytes of the array at `ref`. */
function arrayBytes (parts: CompiledParts, ref: { $a: number }): DataView {
  const [, offset] = entryOf(parts, ref)
  return new DataView(parts.blob.buffer, parts.blob.byteOffset + offset)
}

describe('hostile compiled model files', function () {
  this.timeout(120_000)
  const dir = tempDir('tfsc-hostile-')
  let linear: Uint8Array
  let tree: Uint8Array
  const families = new Map<string, Uint8Array>()
  const fixture = async (name: string, model: string, vectorizers: string[]): Promise<void> => {
    families.set(name, readBytes(await compileInProcess({ paths: { model: path.join(FIXTURES, model), vectorizers: vectorizers.map(v => path.join(FIXTURES, v)) }, settingsFile: null }, path.join(dir, `${name}.tfsc`))))
  }
  before(async () => {
    await fixture('xgboost', 'xgboost/3.2.0/multi-softprob/final_best_model.pkl', ['xgboost/3.2.0/multi-softprob/tfidf_vectorizer.pkl'])
    await fixture('lightgbm', 'lightgbm/booster-binary/booster.pkl', ['lightgbm/booster-binary/tfidf_vectorizer.pkl'])
    await fixture('svc', 'estimators/1.9.1/svc-rbf-ovr/final_best_model.pkl', ['estimators/1.9.1/_vectorizers/poem.pkl'])
    await fixture('knn', 'knn/1.9.1/a-cosine-distance-k3/model.pkl', ['knn/1.9.1/_vectorizers/a.pkl'])
    await fixture('gb', 'estimators/1.9.1/gb-multi/final_best_model.pkl', ['estimators/1.9.1/_vectorizers/poem.pkl'])
    await fixture('mlp', 'estimators/1.9.1/mlp-relu/final_best_model.pkl', ['estimators/1.9.1/_vectorizers/poem.pkl'])
    linear = readBytes(await compileInProcess({ paths: DEFAULT_PATHS, settingsFile: null }, path.join(dir, 'linear.tfsc')))
    const treeDir = path.join(FIXTURES, 'estimators', '1.9.1', 'tree-gini')
    tree = readBytes(await compileInProcess({ paths: { model: path.join(treeDir, 'final_best_model.pkl'), vectorizers: [path.join(FIXTURES, 'estimators', '1.9.1', '_vectorizers', 'poem.pkl')] }, settingsFile: null }, path.join(dir, 'tree.tfsc')))
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  /** `change` applied to a copy of `base`'s parts, put back together with a fresh checksum. */
  const changed = (base: () => Uint8Array, change: (p: CompiledParts, state: Tree) => void) => (): Uint8Array => {
    const parts = splitCompiled(base())
    change(parts, parts.body.tree as Tree)
    return joinCompiled(parts)
  }
  const raw = (base: () => Uint8Array, change: (b: Uint8Array, view: DataView) => Uint8Array | undefined, checksum = true) => (): Uint8Array => {
    const b = base().slice()
    const out = change(b, new DataView(b.buffer)) ?? b
    return checksum ? withChecksum(out) : out
  }
  /** The linear model's file with its tree JSON replaced by `text` as it is. */
  const rawTree = (text: string): Uint8Array => {
    const parts = splitCompiled(linear)
    const header = Buffer.from(JSON.stringify(parts.header))
    const body = Buffer.from(`{"tree":{"state":${text},"notes":[]},"arrays":[]}`)
    const blobAt = Math.ceil((64 + header.length + body.length) / 8) * 8
    const out = new Uint8Array(blobAt)
    out.set(parts.preamble)
    const view = new DataView(out.buffer)
    view.setUint32(12, header.length, true)
    view.setUint32(16, body.length, true)
    view.setBigUint64(24, 0n, true)
    out.set(header, 64)
    out.set(body, 64 + header.length)
    return withChecksum(out)
  }
  const F = (name: string) => (): Uint8Array => families.get(name)!
  const L = (): Uint8Array => linear
  const T = (): Uint8Array => tree

  const CASES: ReadonlyArray<readonly [string, () => Uint8Array, RegExp]> = [
    ['an empty file', () => new Uint8Array(0), /fewer than the 64/],
    ['a file cut inside the preamble', raw(L, b => b.subarray(0, 40), false), /fewer than the 64/],
    ['a file cut in half', raw(L, b => b.subarray(0, b.length >> 1), false), /add up to/],
    ['a file one byte short', raw(L, b => b.subarray(0, b.length - 1), false), /add up to/],
    ['a file with a byte more', raw(L, b => Uint8Array.from([...b, 0]), false), /add up to/],
    ['a pickle', () => readBytes(DEFAULT_PATHS.model), /wrong magic/],
    ['the wrong magic', raw(L, b => { b[1] = 0x55; return b }), /wrong magic/],
    ['another format version', raw(L, (b, v) => { v.setUint32(8, 1, true); return b }), /format 1/],
    ['a reserved field set', raw(L, (b, v) => { v.setUint32(20, 1, true); return b }), /reserved/],
    ['a header of 4 GiB', raw(L, (b, v) => { v.setUint32(12, 0xffffffff, true); return b }), /header of/],
    ['a tree of 4 GiB', raw(L, (b, v) => { v.setUint32(16, 0xffffffff, true); return b }), /tree of/],
    ['arrays of 2^63 bytes', raw(L, (b, v) => { v.setBigUint64(24, 2n ** 63n, true); return b }), /arrays of/],
    ['arrays a few bytes longer than the file', raw(L, (b, v) => { v.setBigUint64(24, v.getBigUint64(24, true) + 8n, true); return b }), /add up to/],
    ['a flipped byte in the arrays, checksum kept', raw(L, b => { b[b.length - 3]! ^= 0x10; return b }, false), /checksum/],
    ['a flipped byte in the tree, checksum kept', raw(L, b => { b[200]! ^= 0x01; return b }, false), /checksum/],
    ['a header that is not JSON', raw(L, b => { b[64] = 0x7b + 1; return b }), /header is not JSON/],
    ['a header without a product', changed(L, p => { p.header = { sources: [] } }), /header is not one/],
    ['a source hash that is not one', changed(L, p => { p.header = { product: 'x', sources: [{ role: 'model', file: 'm', sha256: 'zz' }] } }), /header is not one/],
    ['an array table that is not a list', changed(L, p => { (p.body as Tree).arrays = { length: 3 } }), /array table/],
    ['an array of an unknown dtype', changed(L, p => { p.body.arrays[0]![0] = 'f16' }), /dtype "f16"/],
    ['an array dtype named __proto__', changed(L, p => { p.body.arrays[0]![0] = '__proto__' }), /dtype "__proto__"/],
    ['an array past the end of the blob', changed(L, p => { p.body.arrays[0]![1] = p.blob.length }), /ends at byte/],
    ['an array of 2^40 values', changed(L, p => { p.body.arrays[0]![2] = 2 ** 40 }), /ends at byte/],
    ['a negative array length', changed(L, p => { p.body.arrays[0]![2] = -1 }), /offset .* and length -1/],
    ['an unaligned array offset', changed(L, p => { p.body.arrays[1]![1] = 4 }), /offset 4/],
    ['a fractional array offset', changed(L, p => { p.body.arrays[1]![1] = 8.5 }), /offset 8.5/],
    ['an array index past the table', changed(L, (_p, t) => { t.state.classifier.coefT = { $a: 10_000 } }), /names array 10000/],
    ['a negative array index', changed(L, (_p, t) => { t.state.classifier.coefT = { $a: -1 } }), /names array -1/],
    ['an unknown tag', changed(L, (_p, t) => { t.state.classifier.coefT = { $x: 1 } }), /tag "\$x"/],
    ['a tag beside other keys', changed(L, (_p, t) => { t.state.classifier.coefT = { $a: 0, b: 1 } }), /among other keys/],
    ['a number tag of another value', changed(L, (_p, t) => { t.state.classifier.nFeatures = { $n: 'pi' } }), /tag "\$n"/],
    ['a tree nested 3,000 deep', changed(L, (_p, t) => { let v: unknown = 1; for (let i = 0; i < 3000; i++) v = [v]; t.state.textSteps = v }), /nests deeper/],
    ['a tree text nested 1,000,000 deep', () => rawTree('['.repeat(1_000_000) + ']'.repeat(1_000_000)), /nests deeper|not JSON/],
    ['no state', changed(L, (_p, t) => { delete t.state }), /no model state/],
    ['an estimator of an unknown type', changed(L, (_p, t) => { t.state.classifier.type = 'evil' }), /evil state/],
    ['a vectorizer where the classifier goes', changed(L, (_p, t) => { t.state.classifier = t.state.vectorizer }), /not a classifier/],
    ['coefficients one short', changed(L, (p, t) => { entryOf(p, t.state.classifier.coefT)[2]-- }), /coefT has/],
    ['a feature count that does not fit the coefficients', changed(L, (_p, t) => { t.state.classifier.nFeatures = 2 ** 31 - 1 }), /coefT has/],
    ['a fractional feature count', changed(L, (_p, t) => { t.state.classifier.nFeatures = 1.5 }), /nFeatures is 1.5/],
    ['classes that are not strings', changed(L, (_p, t) => { t.state.classifier.classes = [1, 2] }), /classes/],
    ['labels for too few classes', changed(L, (_p, t) => { t.state.labels = ['only'] }), /labels name 1/],
    ['vocabulary ends that go back', changed(L, (p, t) => { arrayBytes(p, t.state.vectorizer.vocabulary.ends).setInt32(4, 0, true); arrayBytes(p, t.state.vectorizer.vocabulary.ends).setInt32(0, 5, true) }), /ends/],
    ['a term count larger than its ends', changed(L, (_p, t) => { t.state.vectorizer.vocabulary.count += 1 }), /ends has/],
    ['a token table with no empty slot', changed(L, (p, t) => { const [, off, len] = entryOf(p, t.state.vectorizer.words.tokens.slots); new Int32Array(p.blob.buffer, p.blob.byteOffset + off, len).fill(0) }), /no empty slot|slot/],
    ['a token table of 3 slots', changed(L, (p, t) => { entryOf(p, t.state.vectorizer.words.tokens.slots)[2] = 6 }), /power of two/],
    ['a unigram feature past the vocabulary', changed(L, (p, t) => { arrayBytes(p, t.state.vectorizer.words.unigram).setInt32(0, 10_000_000, true) }), /unigram/],
    ['a bigram table full', changed(L, (p, t) => { const [, off, len] = entryOf(p, t.state.vectorizer.words.bigrams.slots); new Int32Array(p.blob.buffer, p.blob.byteOffset + off, len).fill(0) }), /no empty slot/],
    ['idf of another width', changed(L, (p, t) => { entryOf(p, t.state.vectorizer.tfidf.idf)[2]-- }), /idf has/],
    ['an untranslatable token pattern', changed(L, (_p, t) => { t.state.vectorizer.analyzer.tokenPattern = '(?<=a+)b'; delete t.state.vectorizer.words }), /pattern|lookbehind|translat/i],
    ['an n-gram range backwards', changed(L, (_p, t) => { t.state.vectorizer.analyzer.ngramRange = [3, 1] }), /ngram_range/],
    ['an analyzer callable with no functions module', changed(L, (_p, t) => { t.state.vectorizer.analyzer.callables = { preprocessor: '__main__.clean', tokenizer: null, analyzer: null } }), /clean|function/],
    ['notes that are not lines', changed(L, (_p, t) => { t.notes = [{}] }), /notes/],
    ['step data whose stop words are not strings', changed(L, (_p, t) => { t.app = { settings: { file: '/x/model-settings.json', name: 'x', functions: null, preprocess: [], columns: [] }, functions: null, data: { nltkFolders: [], stopwords: { english: { language: 'english', read: { folder: '/x', file: 'corpora/stopwords/english', sha256: 'a'.repeat(64) }, words: [7] } }, punkt: {}, sastrawiDictionary: null, sastrawiStopWords: null } } }), /app\.data\.stopwords\.english\.words/],
    ['a functions module the serving settings do not name', changed(L, (_p, t) => { t.app = { settings: { file: '/x/model-settings.json', name: 'x', functions: '/x/f.mjs', preprocess: [], columns: [] }, functions: { file: '/x/f.mjs', source: 'process.exit(7)', sha256: 'a'.repeat(64) }, data: { nltkFolders: [], stopwords: {}, punkt: {}, sastrawiDictionary: null, sastrawiStopWords: null } } }), /carries no code/],
    ['a preprocessing step of an unknown op', changed(L, (_p, t) => { t.app = { settings: { file: '/x/model-settings.json', name: 'x', functions: null, preprocess: [{ op: 'eval' }], columns: [] }, functions: null, data: { nltkFolders: [], stopwords: {}, punkt: {}, sastrawiDictionary: null, sastrawiStopWords: null } } }), /unknown op/],
    ['a tree whose node is its own child', changed(T, (p, t) => { arrayBytes(p, t.state.classifier.tree.left).setInt32(0, 0, true) }), /child 0/],
    ['a tree whose child lies past its nodes', changed(T, (p, t) => { arrayBytes(p, t.state.classifier.tree.right).setInt32(0, 1_000_000, true) }), /child 1000000/],
    ['a tree splitting on a feature past the row', changed(T, (p, t) => { arrayBytes(p, t.state.classifier.tree.feature).setInt32(0, 2 ** 30, true) }), /splits on feature/],
    ['a tree of more nodes than its arrays', changed(T, (_p, t) => { t.state.classifier.tree.nodeCount += 5 }), /has \d+ values/],
    ['a tree of zero-width values', changed(T, (_p, t) => { t.state.classifier.tree.width = 0 }), /width is 0/],
    ['an xgboost split that points back at itself', changed(F('xgboost'), (p, t) => { arrayBytes(p, t.state.classifier.booster.left).setInt32(0, 0, true) }), /not two nodes after it/],
    ['an xgboost missing-value child elsewhere', changed(F('xgboost'), (p, t) => { arrayBytes(p, t.state.classifier.booster.defaultChild).setInt32(0, 7, true) }), /neither child/],
    ['an xgboost tree group past the classes', changed(F('xgboost'), (p, t) => { arrayBytes(p, t.state.classifier.booster.treeGroup).setInt32(0, 9, true) }), /treeGroup/],
    ['a LightGBM split whose child comes before it', changed(F('lightgbm'), (p, t) => { arrayBytes(p, t.state.classifier.model.left).setInt32(4, 0, true) }), /child 0|reaches/],
    ['a LightGBM categorical split', changed(F('lightgbm'), (p, t) => { arrayBytes(p, t.state.classifier.model.decisionType).setUint8(0, 1) }), /decisionType/],
    ['SVC row pointers that go back', changed(F('svc'), (p, t) => { arrayBytes(p, t.state.classifier.svIndptr).setInt32(4, -5, true) }), /svIndptr/],
    ['SVC support counts that do not add up', changed(F('svc'), (p, t) => { const v = arrayBytes(p, t.state.classifier.nSupport); v.setInt32(0, v.getInt32(0, true) + 1, true) }), /nSupport/],
    ['a neighbour label past the classes', changed(F('knn'), (p, t) => { arrayBytes(p, t.state.classifier.y).setInt32(0, 99, true) }), /\.y/],
    ['more neighbours than training rows', changed(F('knn'), (_p, t) => { t.state.classifier.nNeighbors = 1e6 }), /nNeighbors/],
    ['training columns past the row', changed(F('knn'), (p, t) => { arrayBytes(p, t.state.classifier.fit.indices).setInt32(0, 2 ** 30, true) }), /fit\.indices/],
    ['boosting stages that are not whole', changed(F('gb'), (_p, t) => { t.state.classifier.trees.pop() }), /not stages of/],
    ['an MLP layer of the wrong size', changed(F('mlp'), (_p, t) => { t.state.classifier.sizes[1] += 1 }), /coefs\[0\] has/]
  ]

  for (const [name, make, expected] of CASES) {
    it(`refuses ${name} in one line`, async () => {
      const file = writeBytes(path.join(dir, 'hostile.tfsc'), make())
      const started = performance.now()
      const err = await loadCompiledModel(file, null).then(() => undefined, (e: unknown) => e)
      expect(performance.now() - started).to.be.below(5000)
      expect(err, 'refused').to.be.instanceOf(ServiceError)
      const message = (err as ServiceError).message
      expect(message).to.not.include('\n')
      expect(message).to.include(file)
      expect(message).to.match(expected)
    })
  }

  it('still loads the untouched files after all that', async () => {
    const loaded = await loadCompiledModel(writeBytes(path.join(dir, 'again.tfsc'), linear), null)
    expect(loaded.predictor.predict('a fine film').label).to.be.a('string')
  })
})
