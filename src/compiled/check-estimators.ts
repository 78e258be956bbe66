/**
 * The estimator states a compiled file may carry, each with the checks that make its
 * `create` and its scoring safe on what the file says: the same invariants the pickle path
 * establishes when it builds that state (array lengths that fit the counts, indices inside
 * their arrays, trees that are trees). A state type missing here is refused: a compiled
 * file carries only what has been checked this way.
 */
import { checkStructure, type TreeState } from '../sklearn/classifiers/tree.js'
import type { Role } from '../sklearn/estimator.js'
import { Fields, checkRange, shapeProblem, typedArray } from '../sklearn/state-fields.js'
import { checkAnalyzerOptions, checkTermList, checkTermTable, checkTfidf, checkWordIndex } from '../sklearn/vectorizers/text-state-checks.js'
import { planWordRuns } from '../sklearn/text/analyzer.js'
import { countCast } from '../sklearn/vectorizers/count-dtype.js'

/** Checks one state of its type; `inner` checks the states it holds. */
type Checker = (f: Fields, inner: (role: Role, value: unknown, where: string) => void) => void

const MAX_FEATURES = 2 ** 31 - 1

function classes (f: Fields, min = 2): readonly string[] {
  return f.strings('classes', min)
}

function plainParams (f: Fields, name = 'params'): void {
  f.object(name)
}

function checkTree (value: unknown, where: string, nFeatures: number, nClasses: number): void {
  const f = new Fields(value, where)
  const nodeCount = f.int('nodeCount', 1)
  const width = f.int('width', nClasses)
  const tree: TreeState = {
    nodeCount,
    left: f.array('left', Int32Array, nodeCount),
    right: f.array('right', Int32Array, nodeCount),
    feature: f.array('feature', Int32Array, nodeCount),
    threshold: f.array('threshold', Float64Array, nodeCount),
    missingGoLeft: f.array('missingGoLeft', Uint8Array),
    values: f.array('values', Float64Array, nodeCount * width),
    width,
    cover: f.array('cover', Float64Array)
  }
  if (tree.missingGoLeft.length !== 0 && tree.missingGoLeft.length !== nodeCount) throw shapeProblem(`${where}.missingGoLeft`, `has ${tree.missingGoLeft.length} values for ${nodeCount} nodes`)
  checkStructure(tree, where, nFeatures, -1)
}

/** A meta-estimator's inner classifiers, each checked. */
function members (f: Fields, name: string, inner: (role: Role, value: unknown, where: string) => void): readonly unknown[] {
  const list = f.list(name, 1)
  list.forEach((s, i) => inner('classifier', s, `${f.where}.${name}[${i}]`))
  return list
}

/** A multiclass wrapper's inner classifiers: as many as `expected` gives for its classes (one per class, or per pair). */
function countedMembers (f: Fields, inner: (role: Role, value: unknown, where: string) => void, expected: (k: number) => number): void {
  const k = classes(f).length
  const n = members(f, 'estimators', inner).length
  if (n !== expected(k)) throw shapeProblem(`${f.where}.estimators`, `are ${n} for ${k} classes`)
  plainParams(f)
}

/** A calibrator of `method`: sigmoid's a and b, temperature's beta, isotonic thresholds strictly increasing. */
function checkCalibrator (c: Fields, method: string): void {
  c.oneOf('kind', [method])
  if (method === 'sigmoid') { c.number('a'); c.number('b'); return }
  if (method === 'temperature') { c.number('beta'); return }
  const x = c.array('x', Float64Array)
  c.array('y', Float64Array, x.length)
  if (x.length === 0) throw shapeProblem(`${c.where}.x`, 'is empty')
  for (let i = 1; i < x.length; i++) if (!(x[i]! > x[i - 1]!)) throw shapeProblem(`${c.where}.x`, `is not strictly increasing at ${i}`)
  c.number('min')
  c.number('max')
  c.bool('clip')
}

/** Compressed rows (or columns): pointers from 0 to the entries, never going back; each major's minor indices inside `minor`, increasing when `strict`. */
function checkCompressed (f: Fields, pointers: string, indices: string, major: number, minor: number, strict: boolean): number {
  const ptr = f.array(pointers, Int32Array, major + 1)
  const idx = f.indices(indices, 0, minor - 1)
  if (ptr[0] !== 0 || ptr[major] !== idx.length) throw shapeProblem(`${f.where}.${pointers}`, `does not run from 0 to ${idx.length}`)
  for (let r = 0; r < major; r++) {
    if (ptr[r + 1]! < ptr[r]!) throw shapeProblem(`${f.where}.${pointers}`, `goes back at ${r + 1}`)
    if (strict) for (let p = ptr[r]! + 1; p < ptr[r + 1]!; p++) if (idx[p]! <= idx[p - 1]!) throw shapeProblem(`${f.where}.${indices}`, `do not increase in row ${r}`)
  }
  return idx.length
}

/** A KNeighborsClassifier's training rows, by row and by feature, with their norms. */
function checkTrainingRows (f: Fields): { nSamples: number, nFeatures: number } {
  const nSamples = f.int('nSamples', 1)
  const nFeatures = f.int('nFeatures', 1, MAX_FEATURES)
  // A training row's columns may come unsorted (scikit-learn keeps them as fitted); by feature, we built them sorted.
  const nnz = checkCompressed(f, 'indptr', 'indices', nSamples, nFeatures, false)
  f.array('data', Float64Array, nnz)
  f.bool('float32')
  if (checkCompressed(f, 'cscIndptr', 'cscRows', nFeatures, nSamples, true) !== nnz) throw shapeProblem(`${f.where}.cscRows`, `do not hold the ${nnz} entries`)
  f.array('cscData', Float64Array, nnz)
  f.array('sqNorms', Float64Array, nSamples)
  f.array('cscUnit', Float64Array, nnz)
  return { nSamples, nFeatures }
}

/**
 * An xgboost booster's trees side by side (with each node's cover): each tree's nodes within its range, each split's
 * children two adjacent nodes after it in the same tree reached once from the root (so a walk
 * ends at a leaf), its missing-value child one of them, its feature inside the row.
 */
function checkBooster (f: Fields, nGroups: number): void {
  const nFeatures = f.int('nFeatures', 1, MAX_FEATURES)
  if (f.int('nGroups', 1) !== nGroups) throw shapeProblem(`${f.where}.nGroups`, `is not ${nGroups}`)
  const treeGroup = f.indices('treeGroup', 0, nGroups - 1)
  const trees = treeGroup.length
  const left = f.array('left', Int32Array)
  const nodes = left.length
  const start = f.array('treeStart', Int32Array, trees + 1)
  const defaultChild = f.array('defaultChild', Int32Array, nodes)
  const feature = f.array('feature', Int32Array, nodes)
  f.array('value', Float32Array, nodes)
  // Each node's cover (sum_hessian), which TreeSHAP divides by: any float32, as xgboost's divisions take any.
  f.array('cover', Float32Array, nodes)
  f.array('baseMargins', Float32Array, nGroups)
  f.number('missing')
  if (start[0] !== 0 || start[trees]! > nodes) throw shapeProblem(`${f.where}.treeStart`, `does not run from 0 to at most ${nodes}`)
  const seen = new Uint8Array(nodes)
  for (let t = 0; t < trees; t++) {
    const base = start[t]!
    const end = start[t + 1]!
    if (!(end > base)) throw shapeProblem(`${f.where}.treeStart`, `gives tree ${t} no nodes`)
    const stack = [base]
    while (stack.length > 0) {
      const node = stack.pop()!
      const l = left[node]!
      if (l === -1) continue
      if (!(l > node && l + 1 < end)) throw shapeProblem(`${f.where}.left`, `[${node}] is ${l}, not two nodes after it in tree ${t}`)
      if (defaultChild[node] !== l && defaultChild[node] !== l + 1) throw shapeProblem(`${f.where}.defaultChild`, `[${node}] is neither child`)
      if (!(feature[node]! >= 0 && feature[node]! < nFeatures)) throw shapeProblem(`${f.where}.feature`, `[${node}] is ${feature[node]!}, outside 0..${nFeatures - 1}`)
      for (const child of [l, l + 1]) {
        if (seen[child] === 1) throw shapeProblem(`${f.where}.left`, `reaches node ${child} twice`)
        seen[child] = 1
        stack.push(child)
      }
    }
  }
}

/**
 * A LightGBM model's trees side by side: per tree, splits whose children are later splits of
 * the tree or its leaves, each reached once (so a walk ends at a leaf), split features inside
 * the row, and no categorical split (bit 0 of decision_type), as the model text reader requires.
 */
function checkLightGbmModel (f: Fields, nClasses: number): void {
  const nFeatures = f.int('nFeatures', 1, MAX_FEATURES)
  const objective = f.oneOf('objective', ['binary', 'cross_entropy', 'multiclass', 'multiclassova'])
  f.number('sigmoid')
  const outputs = f.int('outputs', 1)
  if (outputs !== (objective === 'binary' || objective === 'cross_entropy' ? 1 : nClasses) || (outputs === 1 && nClasses !== 2)) throw shapeProblem(`${f.where}.outputs`, `is ${outputs} for ${nClasses} classes and objective ${objective}`)
  const stored = f.int('storedIterations', 1)
  // Only the iterations predicted with are kept.
  const trees = f.int('iterations', 1, stored) * outputs
  f.bool('averageOutput')
  f.bool('since47')
  const nodeStart = f.array('nodeStart', Int32Array, trees + 1)
  const leafStart = f.array('leafStart', Int32Array, trees + 1)
  const splitFeature = f.indices('splitFeature', 0, nFeatures - 1)
  const nodes = splitFeature.length
  f.array('threshold', Float64Array, nodes)
  const decisionType = f.array('decisionType', Uint8Array, nodes)
  const left = f.array('left', Int32Array, nodes)
  const right = f.array('right', Int32Array, nodes)
  const leafValue = f.array('leafValue', Float64Array)
  const internalCount = f.array('internalCount', Float64Array)
  const leafCount = f.array('leafCount', Float64Array)
  if (!(internalCount.length === 0 && leafCount.length === 0) && !(internalCount.length === nodes && leafCount.length === leafValue.length)) throw shapeProblem(f.where, 'has node and leaf counts that do not cover its nodes and leaves')
  for (const c of [internalCount, leafCount]) if (c.some(v => !(v >= 0 && v <= 2 ** 53))) throw shapeProblem(f.where, 'has a node or leaf count that is not a count')
  if (nodeStart[0] !== 0 || nodeStart[trees] !== nodes || leafStart[0] !== 0 || leafStart[trees] !== leafValue.length) throw shapeProblem(f.where, 'has tree ranges that do not cover its nodes and leaves')
  decisionType.forEach((d, i) => { if ((d & 1) !== 0 || d > 15) throw shapeProblem(`${f.where}.decisionType`, `[${i}] is ${d}`) })
  for (let t = 0; t < trees; t++) {
    const n = nodeStart[t + 1]! - nodeStart[t]!
    const leaves = leafStart[t + 1]! - leafStart[t]!
    if (n < 0 || leaves !== n + 1) throw shapeProblem(f.where, `tree ${t} has ${n} splits and ${leaves} leaves`)
    const parents = new Uint8Array(2 * n + 1)
    for (let node = 0; node < n; node++) {
      for (const c of [left[nodeStart[t]! + node]!, right[nodeStart[t]! + node]!]) {
        if (!(c >= -leaves && c < n) || (c >= 0 && c <= node)) throw shapeProblem(f.where, `tree ${t} node ${node} has the child ${c}`)
        const id = c >= 0 ? c : n + ~c
        if (parents[id] !== 0) throw shapeProblem(f.where, `tree ${t} reaches ${c} twice`)
        parents[id] = 1
      }
    }
  }
}

function checkMask (f: Fields): void {
  const mask = f.array('mask', Uint8Array)
  checkRange(mask, `${f.where}.mask`, 0, 1)
  if (!mask.includes(1)) throw shapeProblem(`${f.where}.mask`, 'selects no feature')
}

const CHECKERS: ReadonlyMap<string, { readonly role: Role, readonly check: Checker }> = new Map<string, { role: Role, check: Checker }>([
  ['vocabulary-vectorizer', {
    role: 'vectorizer',
    check: f => {
      const analyzer = checkAnalyzerOptions(f.value('analyzer'), `${f.where}.analyzer`)
      const vocabulary = checkTermList(f.value('vocabulary'), `${f.where}.vocabulary`)
      const n = vocabulary.count
      // The vectorizer scans by token ids when the analyzer allows it, else looks terms up.
      if (planWordRuns(analyzer) !== undefined) checkWordIndex(f.value('words'), `${f.where}.words`, n)
      else checkTermTable(f.value('terms'), `${f.where}.terms`, 0, n - 1)
      f.bool('binary')
      f.bool('float32')
      const dtype = f.nullable('integerDtype', name => f.string(name))
      if (dtype !== null && countCast(dtype) === null) throw shapeProblem(`${f.where}.integerDtype`, `is ${JSON.stringify(dtype.slice(0, 40))}, not an integer dtype`)
      f.nullable('tfidf', name => checkTfidf(f.value(name), `${f.where}.${name}`, n))
    }
  }],
  ['hashing-vectorizer', {
    role: 'vectorizer',
    check: f => {
      checkAnalyzerOptions(f.value('analyzer'), `${f.where}.analyzer`)
      f.int('nFeatures', 1, MAX_FEATURES)
      f.bool('alternateSign')
      f.bool('binary')
      f.oneOf('norm', ['l1', 'l2', null])
      f.bool('float32')
    }
  }],
  ['tfidf-transformer', {
    role: 'step',
    check: f => {
      const n = f.int('nFeatures', -1, MAX_FEATURES)
      const tfidf = checkTfidf(f.value('tfidf'), `${f.where}.tfidf`, n)
      if ((tfidf.idf === null) !== (n === -1)) throw shapeProblem(`${f.where}.nFeatures`, `is ${n} for ${tfidf.idf === null ? 'no idf' : `an idf of ${tfidf.idf.length}`}`)
    }
  }],
  ['feature-union', {
    role: 'vectorizer',
    check: (f, inner) => {
      f.list('members', 1).forEach((m, i) => {
        const member = new Fields(m, `${f.where}.members[${i}]`)
        member.string('name')
        member.nullable('weight', name => member.number(name))
        inner('vectorizer', member.value('state'), `${member.where}.state`)
      })
    }
  }],
  ['text-pipeline', {
    role: 'vectorizer',
    check: (f, inner) => {
      inner('vectorizer', f.value('vectorizer'), `${f.where}.vectorizer`)
      f.list('steps').forEach((s, i) => inner('step', s, `${f.where}.steps[${i}]`))
    }
  }],
  ['column-scale', {
    role: 'step',
    check: f => {
      const n = f.int('nFeatures', -1, MAX_FEATURES)
      const reciprocal = f.array('reciprocal', Float64Array)
      if (reciprocal.length !== 0 && reciprocal.length !== n) throw shapeProblem(`${f.where}.reciprocal`, `has ${reciprocal.length} values for ${n} features`)
      f.bool('clip')
    }
  }],
  ['normalizer', { role: 'step', check: f => { f.oneOf('norm', ['l1', 'l2', 'max']); f.int('nFeatures', -1, MAX_FEATURES) } }],
  ['select-from-model', { role: 'step', check: f => { checkMask(f); f.number('threshold') } }],
  ['univariate-selection', { role: 'step', check: f => { checkMask(f); plainParams(f) } }],
  ['truncated-svd', {
    role: 'step',
    check: f => {
      const n = f.int('nFeatures', 0, MAX_FEATURES)
      const k = f.int('nComponents', 1, MAX_FEATURES)
      f.array('componentsT', Float64Array, n * k)
      f.bool('float32')
    }
  }],
  ['linear', {
    role: 'classifier',
    check: f => {
      const k = classes(f).length
      const outputs = k === 2 ? 1 : k
      const n = f.int('nFeatures', 0, MAX_FEATURES)
      f.array('coefT', Float64Array, n * outputs)
      f.array('intercept', Float64Array, outputs)
      f.oneOf('proba', ['ovr', 'multinomial', 'modified_huber', 'none'])
      f.bool('coefFloat32')
      f.bool('interceptFloat32')
      f.bool('zeroRowUniform')
      plainParams(f)
    }
  }],
  ['naive-bayes', {
    role: 'classifier',
    check: f => {
      const k = classes(f, 1).length
      const n = f.int('nFeatures', 0, MAX_FEATURES)
      f.array('weightT', Float64Array, n * k)
      f.array('offset', Float64Array, k)
      f.nullable('binarize', name => f.number(name))
      plainParams(f)
    }
  }],
  ['decision-tree', {
    role: 'classifier',
    check: f => {
      const k = classes(f).length
      checkTree(f.value('tree'), `${f.where}.tree`, f.int('nFeatures', 1, MAX_FEATURES), k)
      f.bool('normalize')
    }
  }],
  ['forest', {
    role: 'classifier',
    check: f => {
      const k = classes(f).length
      const n = f.int('nFeatures', 1, MAX_FEATURES)
      f.list('trees', 1).forEach((t, i) => checkTree(t, `${f.where}.trees[${i}]`, n, k))
      f.bool('normalize')
    }
  }],
  ['dummy', {
    role: 'classifier',
    check: f => {
      const k = classes(f, 1).length
      f.int('nFeatures', -1, MAX_FEATURES)
      f.array('proba', Float64Array, k)
      f.int('classIndex', 0, k - 1)
    }
  }],
  ['voting', {
    role: 'classifier',
    check: (f, inner) => {
      classes(f)
      const voting = f.oneOf('voting', ['hard', 'soft'])
      const n = members(f, 'estimators', inner).length
      const weights = f.nullable('weights', name => f.array(name, Float64Array, n))
      if (voting === 'soft' && weights !== null && weights.reduce((a, b) => a + b, 0) === 0) throw shapeProblem(`${f.where}.weights`, 'sum to zero')
      plainParams(f)
    }
  }],
  ['one-vs-rest', {
    role: 'classifier',
    check: (f, inner) => {
      countedMembers(f, inner, k => k === 2 ? 1 : k)
      f.bool('tiesToFirst')
      f.bool('zeroRowStaysZero')
    }
  }],
  ['one-vs-one', { role: 'classifier', check: (f, inner) => { countedMembers(f, inner, k => (k * (k - 1)) / 2) } }],
  ['bagging', {
    role: 'classifier',
    check: (f, inner) => {
      classes(f)
      const nFeatures = f.int('nFeatures', 1, MAX_FEATURES)
      const n = members(f, 'estimators', inner).length
      const features = f.list('features')
      if (features.length !== n) throw shapeProblem(`${f.where}.features`, `are ${features.length} lists for ${n} estimators`)
      features.forEach((c, i) => checkRange(typedArray(c, `${f.where}.features[${i}]`, Int32Array), `${f.where}.features[${i}]`, 0, nFeatures - 1))
      f.int('nEstimators', 1)
    }
  }],
  ['adaboost', {
    role: 'classifier',
    check: (f, inner) => {
      classes(f)
      const n = members(f, 'estimators', inner).length
      f.array('weights', Float64Array, n)
      f.number('weightSum')
      f.bool('real')
      f.bool('symmetric')
    }
  }],
  ['stacking', {
    role: 'classifier',
    check: (f, inner) => {
      classes(f)
      const n = members(f, 'estimators', inner).length
      const methods = f.list('stackMethods')
      if (methods.length !== n || !methods.every(m => m === 'predict_proba' || m === 'decision_function' || m === 'predict')) throw shapeProblem(`${f.where}.stackMethods`, `are not ${n} stack methods`)
      inner('classifier', f.value('finalEstimator'), `${f.where}.finalEstimator`)
      f.bool('passthrough')
      f.nullable('featureOuts', name => f.numbers(name))
      plainParams(f)
    }
  }],
  ['calibrated', {
    role: 'classifier',
    check: (f, inner) => {
      const k = classes(f).length
      f.list('members', 1).forEach((m, i) => {
        const member = new Fields(m, `${f.where}.members[${i}]`)
        inner('classifier', member.value('estimator'), `${member.where}.estimator`)
        const method = member.oneOf('method', ['sigmoid', 'isotonic', 'temperature'])
        const calibrators = member.list('calibrators', 1)
        if (calibrators.length > k || ((method === 'temperature' || k === 2) && calibrators.length !== 1)) throw shapeProblem(`${member.where}.calibrators`, `are ${calibrators.length} for ${k} classes`)
        calibrators.forEach((c, j) => checkCalibrator(new Fields(c, `${member.where}.calibrators[${j}]`), method))
      })
      plainParams(f)
    }
  }],
  ['mlp', {
    role: 'classifier',
    check: f => {
      const k = classes(f).length
      const sizes = f.numbers('sizes')
      if (sizes.length < 2 || !sizes.every(n => Number.isInteger(n) && n >= 1 && n <= MAX_FEATURES)) throw shapeProblem(`${f.where}.sizes`, 'are not two or more layer widths')
      if (sizes[sizes.length - 1] !== (k === 2 ? 1 : k)) throw shapeProblem(`${f.where}.sizes`, `end in ${sizes[sizes.length - 1]!} outputs for ${k} classes`)
      const coefs = f.list('coefs', sizes.length - 1)
      const intercepts = f.list('intercepts', sizes.length - 1)
      if (coefs.length !== sizes.length - 1 || intercepts.length !== sizes.length - 1) throw shapeProblem(f.where, `has ${coefs.length} layers of weights for ${sizes.length} widths`)
      coefs.forEach((c, i) => typedArray(c, `${f.where}.coefs[${i}]`, Float64Array, sizes[i]! * sizes[i + 1]!))
      intercepts.forEach((b, i) => typedArray(b, `${f.where}.intercepts[${i}]`, Float64Array, sizes[i + 1]!))
      f.oneOf('activation', ['identity', 'relu', 'tanh', 'logistic'])
      f.oneOf('outActivation', [k === 2 ? 'logistic' : 'softmax'])
      plainParams(f)
    }
  }],
  ['gradient-boosting', {
    role: 'classifier',
    check: (f, inner) => {
      const nClasses = classes(f).length
      const nFeatures = f.int('nFeatures', 1, MAX_FEATURES)
      const k = f.int('k', 1)
      if (k !== (nClasses === 2 ? 1 : nClasses)) throw shapeProblem(`${f.where}.k`, `is ${k} for ${nClasses} classes`)
      const trees = f.list('trees', k)
      if (trees.length % k !== 0) throw shapeProblem(`${f.where}.trees`, `are ${trees.length}, not stages of ${k}`)
      // Regression trees: one value per node, read at the leaf.
      trees.forEach((t, i) => { checkTree(t, `${f.where}.trees[${i}]`, nFeatures, 1); if (new Fields(t, '').int('width', 1, 1) !== 1) throw shapeProblem(`${f.where}.trees[${i}]`, 'is not a regression tree') })
      f.number('learningRate')
      f.bool('exponential')
      f.bool('since14')
      f.number('eps')
      f.nullable('initRaw', name => f.array(name, Float64Array, k))
      f.nullable('init', name => {
        inner('classifier', f.value(name), `${f.where}.${name}`)
        const own = f.object(name).strings('classes', 1).length
        if (own !== nClasses) throw shapeProblem(`${f.where}.init`, `has ${own} classes for ${nClasses}`)
      })
    }
  }],
  ['hist-gradient-boosting', {
    role: 'classifier',
    check: f => {
      const nClasses = classes(f).length
      const nFeatures = f.int('nFeatures', 1, MAX_FEATURES)
      const k = f.int('k', 1)
      if (k !== (nClasses === 2 ? 1 : nClasses)) throw shapeProblem(`${f.where}.k`, `is ${k} for ${nClasses} classes`)
      f.array('baseline', Float64Array, k)
      const trees = f.list('trees', k)
      if (trees.length % k !== 0) throw shapeProblem(`${f.where}.trees`, `are ${trees.length}, not iterations of ${k}`)
      // Regression trees whose every node has its value and its count (TreeSHAP's cover).
      trees.forEach((t, i) => {
        checkTree(t, `${f.where}.trees[${i}]`, nFeatures, 1)
        const tree = new Fields(t, `${f.where}.trees[${i}]`)
        const nodeCount = tree.int('nodeCount', 1)
        if (tree.int('width', 1, 1) !== 1) throw shapeProblem(tree.where, 'is not a regression tree')
        tree.array('cover', Float64Array, nodeCount)
        tree.array('missingGoLeft', Uint8Array, nodeCount)
      })
      const loss = f.oneOf('loss', ['binomial', 'multinomial', 'binary_crossentropy', 'categorical_crossentropy'])
      if ((loss === 'binomial' || loss === 'binary_crossentropy') !== (k === 1)) throw shapeProblem(`${f.where}.loss`, `is ${loss} for ${k} trees per iteration`)
      f.bool('since14')
    }
  }],
  ['svc', {
    role: 'classifier',
    check: f => {
      const k = classes(f).length
      const pairs = (k * (k - 1)) / 2
      f.oneOf('kernel', ['linear', 'poly', 'rbf', 'sigmoid'])
      f.number('gamma')
      f.number('coef0')
      f.int('degree', -(2 ** 31))
      const nFeatures = f.int('nFeatures', 1, MAX_FEATURES)
      // Support vectors as CSR: row pointers from 0 to the entries, never going back, columns inside the row.
      const ptr = f.array('svIndptr', Int32Array)
      const l = ptr.length - 1
      if (l < 0) throw shapeProblem(`${f.where}.svIndptr`, 'is empty')
      const idx = f.indices('svIndices', 0, nFeatures - 1)
      f.array('svValues', Float64Array, idx.length)
      if (ptr[0] !== 0 || ptr[l] !== idx.length) throw shapeProblem(`${f.where}.svIndptr`, `does not run from 0 to ${idx.length}`)
      for (let s = 0; s < l; s++) if (ptr[s + 1]! < ptr[s]!) throw shapeProblem(`${f.where}.svIndptr`, `goes back at ${s + 1}`)
      f.bool('svSorted')
      const nSupport = f.indices('nSupport', 0, l, k)
      if (nSupport.reduce((a, b) => a + b, 0) !== l) throw shapeProblem(`${f.where}.nSupport`, `does not sum to the ${l} support vectors`)
      f.array('dualCoef', Float64Array, (k - 1) * l)
      f.array('intercept', Float64Array, pairs)
      const probA = f.nullable('probA', name => f.array(name, Float64Array, pairs))
      const probB = f.nullable('probB', name => f.array(name, Float64Array, pairs))
      if ((probA === null) !== (probB === null)) throw shapeProblem(f.where, 'has one of probA and probB')
      f.bool('ovr')
      f.bool('breakTies')
      plainParams(f)
    }
  }],
  ['k-neighbors', {
    role: 'classifier',
    check: f => {
      const k = classes(f, 1).length
      const fit = checkTrainingRows(f.object('fit'))
      if (f.int('nFeatures', 1, MAX_FEATURES) !== fit.nFeatures) throw shapeProblem(`${f.where}.nFeatures`, `is not the ${fit.nFeatures} of the training rows`)
      f.int('nNeighbors', 1, fit.nSamples)
      f.oneOf('weights', ['uniform', 'distance'])
      f.oneOf('metric', ['euclidean', 'l2', 'manhattan', 'cosine'])
      f.oneOf('classModeMetric', ['l2', 'manhattan', 'minkowski', null])
      f.oneOf('sort', ['quicksort', 'introsort'])
      f.int('threads', 1, 1024)
      f.bool('float32Metric')
      f.bool('euclideanReduction')
      f.bool('fitReducible')
      f.indices('y', 0, k - 1, fit.nSamples)
      plainParams(f)
    }
  }],
  ['xgboost', {
    role: 'classifier',
    check: f => {
      const k = classes(f).length
      const objective = f.oneOf('objective', ['binary:logistic', 'multi:softprob', 'multi:softmax'])
      checkBooster(f.object('booster'), objective === 'binary:logistic' ? 1 : k)
      f.object('params')
    }
  }],
  ['lightgbm', {
    role: 'classifier',
    check: f => {
      const k = classes(f).length
      checkLightGbmModel(f.object('model'), k)
      f.bool('decisionFunction')
    }
  }]
])

/** The estimator types a compiled file may carry. */
export const COMPILABLE_TYPES: ReadonlySet<string> = new Set(CHECKERS.keys())

/**
 * Checks an estimator state read from a compiled file, and the states inside it.
 * @throws ServiceError ERR_MODEL_SHAPE naming the path of the first thing wrong, or
 * ERR_MODEL_UNSUPPORTED for a type compiled files do not carry.
 */
export function checkEstimatorState (role: Role, value: unknown, where: string): void {
  const f = new Fields(value, where)
  const type = f.string('type')
  f.string('kind')
  const entry = CHECKERS.get(type)
  if (entry === undefined || entry.role !== role) throw shapeProblem(where, `is a ${type.slice(0, 40)} state, which is not a ${role} a compiled file may carry`)
  entry.check(f, checkEstimatorState)
}
