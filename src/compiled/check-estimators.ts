/**
 * The estimator states a compiled file may carry, each with the checks that make its
 * `create` and its scoring safe on what the file says: the same invariants the pickle path
 * establishes when it builds that state (array lengths that fit the counts, indices inside
 * their arrays, trees that are trees). A state type missing here is refused: a compiled
 * file carries only what has been checked this way.
 */
import { checkStructure, type TreeState } from '../sklearn/classifiers/tree.js'
import type { Role } from '../sklearn/estimator.js'
import { Fields, checkRange, shapeProblem } from './check-fields.js'
import { checkAnalyzerOptions, checkTermList, checkTermTable, checkTfidf, checkWordIndex } from './check-text.js'
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
    width
  }
  if (tree.missingGoLeft.length !== 0 && tree.missingGoLeft.length !== nodeCount) throw shapeProblem(`${where}.missingGoLeft`, `has ${tree.missingGoLeft.length} values for ${nodeCount} nodes`)
  checkStructure(tree, where, nFeatures, -1)
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
