/**
 * LightGBM's model text (what `Booster.model_to_string()` writes and a pickled Booster keeps)
 * read into plain data: the header, then every tree's node arrays, all trees side by side in
 * one set of typed arrays. Read as LightGBM 4.x reads it (`GBDT::LoadModelFromString`,
 * `Tree::Tree(const char*)`; checked against lightgbm 4.7.0):
 *
 * - thresholds and leaf values are written with 17 significant digits and read correctly
 *   rounded (`AtofPrecise`), as `Number()` reads them; `inf`, `nan` are strtod's words;
 * - the objective line is read by the objective's own constructor, whose numbers go through
 *   LightGBM's inexact `Common::Atof` (`sigmoid:0.7`), reproduced here digit for digit;
 * - `decision_type` bit 0 is a categorical split, bit 1 default-left, bits 2-3 the missing
 *   type (0 none, 1 zero, 2 NaN).
 *
 * Only the trees prediction uses are kept: the first `best_iteration` iterations when the
 * Booster has one (its `predict` stops there), else all. Categorical splits, linear trees and
 * objectives that are not classification are refused, naming them.
 */
import { shapeError, unsupported } from '../record.js'
import { type Fields, MAX_FEATURES, shapeProblem } from '../state-fields.js'

/** The output transform of a classification objective (`ObjectiveFunction::ConvertOutput`). */
export type LightGbmObjective = 'binary' | 'cross_entropy' | 'multiclass' | 'multiclassova'

const OBJECTIVES: readonly string[] = ['binary', 'cross_entropy', 'multiclass', 'multiclassova']

/** A LightGBM model as plain data. Trees are stored one after another, iteration by iteration. */
export interface LightGbmModel {
  /** `max_feature_idx + 1`: the width of the rows the model reads. */
  readonly nFeatures: number
  readonly objective: LightGbmObjective
  /** `sigmoid:` of binary and multiclassova (as LightGBM's Atof reads it); 1 otherwise. */
  readonly sigmoid: number
  /** Raw scores per row: `num_tree_per_iteration` (1 for binary, K for multiclass). */
  readonly outputs: number
  /** Iterations predicted with (each `outputs` trees). */
  readonly iterations: number
  /** Iterations in the text (more than `iterations` when the Booster stopped early). */
  readonly storedIterations: number
  /** `average_output` (boosting 'rf'): transformed scores are the mean over iterations. */
  readonly averageOutput: boolean
  /**
   * Written by lightgbm 4.7 or later, as far as the text tells: its parameters section lists
   * `gpu_device_id_list` (new in 4.7.0). LGBMClassifier has `decision_function` from 4.7.0.
   */
  readonly since47: boolean
  /** Per tree, where its nodes and leaves start: trees+1 entries each. */
  readonly nodeStart: Int32Array
  readonly leafStart: Int32Array
  /** Per node (tree-local child ids: >= 0 a node, < 0 the leaf ~id). */
  readonly splitFeature: Int32Array
  readonly threshold: Float64Array
  readonly decisionType: Uint8Array
  readonly left: Int32Array
  readonly right: Int32Array
  readonly leafValue: Float64Array
  /**
   * `internal_count` per node and `leaf_count` per leaf: the training rows through each, the
   * covers LightGBM's TreeSHAP splits paths by. Empty when the text has none.
   */
  readonly internalCount: Float64Array
  readonly leafCount: Float64Array
}

/** LightGBM's `Common::Pow`: integer powers by repeated squaring and cubing. */
function lightgbmPow (base: number, power: number): number {
  if (power < 0) return 1 / lightgbmPow(base, -power)
  if (power === 0) return 1
  if (power % 2 === 0) return lightgbmPow(base * base, power / 2)
  if (power % 3 === 0) return lightgbmPow(base * base * base, power / 3)
  return base * lightgbmPow(base, power - 1)
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9'

/**
 * LightGBM's `Common::Atof` (include/LightGBM/utils/common.h), which reads objective
 * parameters: digits accumulated in doubles, the fraction divided by `Pow(10, n)`, the
 * exponent applied as powers of 1e50, 1e8 and 10. Not correctly rounded, so not `Number()`.
 */
export function lightgbmAtof (text: string, what: string): number {
  let p = 0
  while (text[p] === ' ') p++
  let sign = 1
  if (text[p] === '-') {
    sign = -1
    p++
  } else if (text[p] === '+') {
    p++
  }
  const c = text[p]
  if (isDigit(c) || c === '.' || c === 'e' || c === 'E') {
    let value = 0
    for (; isDigit(text[p]); p++) value = value * 10 + (text.charCodeAt(p) - 48)
    if (text[p] === '.') {
      let right = 0
      let nn = 0
      for (p++; isDigit(text[p]); p++, nn++) right = (text.charCodeAt(p) - 48) + right * 10
      value += right / lightgbmPow(10, nn)
    }
    let frac = false
    let scale = 1
    if (text[p] === 'e' || text[p] === 'E') {
      p++
      if (text[p] === '-') {
        frac = true
        p++
      } else if (text[p] === '+') {
        p++
      }
      let expon = 0
      // uint32_t arithmetic, as in C++.
      for (; isDigit(text[p]); p++) expon = (expon * 10 + (text.charCodeAt(p) - 48)) >>> 0
      if (expon > 308) expon = 308
      while (expon >= 50) { scale *= 1e50; expon -= 50 }
      while (expon >= 8) { scale *= 1e8; expon -= 8 }
      while (expon > 0) { scale *= 10; expon -= 1 }
    }
    return sign * (frac ? value / scale : value * scale)
  }
  const word = text.slice(p).toLowerCase()
  if (word === 'na' || word === 'nan' || word === 'null') return Number.NaN
  if (word === 'inf' || word === 'infinity') return sign * 1e308
  return unsupported(`${what} is '${text.slice(0, 40)}', not a number`)
}

/** `ParseObjectiveAlias` (include/LightGBM/config.h), applied to the whole objective line as LightGBM does. */
function objectiveAlias (line: string): string {
  switch (line) {
    case 'softmax': return 'multiclass'
    case 'multiclass_ova': case 'ova': case 'ovr': return 'multiclassova'
    case 'xentropy': return 'cross_entropy'
    case 'xentlambda': return 'cross_entropy_lambda'
    case 'none': case 'null': case 'na': return 'custom'
    default: return line
  }
}

/** A C++ `Common::Atoi`-style integer field, checked against [min, max]. */
function integer (text: string | undefined, what: string, min: number, max: number): number {
  if (text === undefined) return shapeError(`${what} is missing`)
  const v = /^\s*[-+]?\d+\s*$/.test(text) ? Number(text) : Number.NaN
  if (!(v >= min && v <= max)) shapeError(`${what} is '${text.slice(0, 40)}', not an integer in ${min}..${max}`)
  return v
}

/** A double as `AtofPrecise` reads it: correctly rounded, or strtod's inf / nan words; undefined if neither. */
function precise (token: string): number | undefined {
  if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(token)) return Number(token)
  const m = /^([-+]?)(inf|infinity|nan)$/i.exec(token)
  if (m === null) return undefined
  if (m[2]!.toLowerCase() === 'nan') return Number.NaN
  return m[1] === '-' ? -Infinity : Infinity
}

/** `n` space-separated values of one tree field, each read by `read` (undefined: unreadable). */
function fieldValues (fields: ReadonlyMap<string, string>, key: string, n: number, what: string, read: (token: string) => number | undefined): number[] {
  const text = fields.get(key)
  if (text === undefined) return shapeError(`${what} has no ${key}`)
  const tokens = text.split(' ')
  if (tokens.length !== n) shapeError(`${what}.${key} has ${tokens.length} values, expected ${n}`)
  return tokens.map((t, i) => {
    const v = read(t)
    return v === undefined ? shapeError(`${what}.${key}[${i}] is '${t.slice(0, 40)}'`) : v
  })
}

const intToken = (min: number, max: number) => (t: string): number | undefined => {
  const v = /^[-+]?\d+$/.test(t) ? Number(t) : Number.NaN
  return v >= min && v <= max ? v : undefined
}


interface ParsedTree {
  readonly leafValue: readonly number[]
  readonly leafCount: readonly number[] | undefined
  readonly internalCount: readonly number[] | undefined
  readonly splitFeature: readonly number[]
  readonly threshold: readonly number[]
  readonly decisionType: readonly number[]
  readonly left: readonly number[]
  readonly right: readonly number[]
}

/**
 * One tree's fields into arrays, checked: children within the tree, each node and leaf
 * reached from exactly one parent that comes before it (so every walk ends at a leaf),
 * split features below `nFeatures`.
 */
function readTree (fields: ReadonlyMap<string, string>, what: string, nFeatures: number): ParsedTree {
  const numLeaves = integer(fields.get('num_leaves'), `${what}.num_leaves`, 1, 2 ** 30)
  if (integer(fields.get('num_cat'), `${what}.num_cat`, 0, 2 ** 30) > 0) unsupported(`${what} has categorical splits: LightGBM models with categorical features are not supported`)
  if (fields.has('is_linear') && integer(fields.get('is_linear'), `${what}.is_linear`, 0, 1) === 1) unsupported(`${what} is a linear tree (linear_tree=True): not supported`)
  const leafValue = fieldValues(fields, 'leaf_value', numLeaves, what, precise)
  const count = intToken(0, 2 ** 53)
  const leafCount = fields.has('leaf_count') ? fieldValues(fields, 'leaf_count', numLeaves, what, count) : undefined
  // A one-leaf tree's expected value is its leaf, whatever its count.
  if (numLeaves === 1) return { leafValue, leafCount: leafCount ?? [0], internalCount: [], splitFeature: [], threshold: [], decisionType: [], left: [], right: [] }
  const n = numLeaves - 1
  const internalCount = fields.has('internal_count') ? fieldValues(fields, 'internal_count', n, what, count) : undefined
  const child = intToken(-numLeaves, n - 1)
  const left = fieldValues(fields, 'left_child', n, what, child)
  const right = fieldValues(fields, 'right_child', n, what, child)
  const splitFeature = fieldValues(fields, 'split_feature', n, what, intToken(0, nFeatures - 1))
  const threshold = fieldValues(fields, 'threshold', n, what, precise)
  const decisionType = fields.has('decision_type') ? fieldValues(fields, 'decision_type', n, what, intToken(0, 15)) : new Array<number>(n).fill(0)
  const categorical = decisionType.findIndex(d => (d & 1) !== 0)
  if (categorical >= 0) unsupported(`${what} node ${categorical} is a categorical split: LightGBM models with categorical features are not supported`)
  const nodeParents = new Uint8Array(n)
  const leafParents = new Uint8Array(numLeaves)
  for (let node = 0; node < n; node++) {
    for (const c of [left[node]!, right[node]!]) {
      if (c >= 0 && c <= node) shapeError(`${what} node ${node} has child node ${c}, which does not come after it`)
      const parents = c >= 0 ? nodeParents : leafParents
      const id = c >= 0 ? c : ~c
      if (parents[id] !== 0) shapeError(`${what} ${c >= 0 ? 'node' : 'leaf'} ${id} has two parents`)
      parents[id] = 1
    }
  }
  // n - 1 child nodes and numLeaves leaves, each with one parent: every id is reached once.
  return { leafValue, leafCount, internalCount, splitFeature, threshold, decisionType, left, right }
}

/** Lines of `key=value` until a blank line (a tree) or the first `Tree=` line (the header). */
function readFields (lines: readonly string[], start: number, stopAtTree: boolean): { fields: Map<string, string>, next: number } {
  const fields = new Map<string, string>()
  let i = start
  for (; i < lines.length; i++) {
    const line = lines[i]!
    if (stopAtTree ? line.startsWith('Tree=') : line === '') break
    if (line === '') continue
    const eq = line.indexOf('=')
    fields.set(eq < 0 ? line : line.slice(0, eq), eq < 0 ? '' : line.slice(eq + 1))
  }
  return { fields, next: i }
}

function readObjective (line: string | undefined, what: string): { objective: LightGbmObjective, sigmoid: number, numClass: number } {
  if (line === undefined) return unsupported(`${what} has no objective (a custom objective?): LightGBM answers raw scores, not probabilities`)
  const tokens = objectiveAlias(line).split(' ').filter(t => t !== '')
  const type = tokens[0] ?? ''
  if (type === 'custom') unsupported(`${what} has a custom objective: LightGBM answers raw scores, not probabilities`)
  if (!OBJECTIVES.includes(type)) unsupported(`${what} has the objective '${type.slice(0, 40)}', not a classification objective tfidf-serve serves (${OBJECTIVES.join(', ')})`)
  const params = new Map<string, string>()
  for (const t of tokens.slice(1)) {
    const parts = t.split(':')
    if (parts.length === 2) params.set(parts[0]!, parts[1]!)
  }
  let sigmoid = 1
  if (type === 'binary' || type === 'multiclassova') {
    const text = params.get('sigmoid')
    sigmoid = text === undefined ? -1 : lightgbmAtof(text, `${what} objective sigmoid`)
    if (!(sigmoid > 0)) unsupported(`${what} objective '${line.slice(0, 60)}' needs a sigmoid parameter above 0`)
  }
  const numClass = type === 'multiclass' || type === 'multiclassova' ? integer(params.get('num_class'), `${what} objective num_class`, 2, 2 ** 20) : 1
  return { objective: type as LightGbmObjective, sigmoid, numClass }
}

/**
 * A LightGBM model text into a LightGbmModel.
 * @param bestIteration the Booster's `best_iteration` (<= 0: none): prediction stops there.
 * @param what names the model in messages, e.g. 'LGBMClassifier._Booster'.
 * @throws ServiceError ERR_MODEL_UNSUPPORTED for categorical splits, linear trees and objectives
 * that are not served; ERR_MODEL_SHAPE for a text whose fields do not fit together.
 */
export function parseModelText (text: string, bestIteration: number, what: string): LightGbmModel {
  const lines = text.split('\n').map(l => l.endsWith('\r') ? l.slice(0, -1) : l)
  if (lines[0] !== 'tree') shapeError(`${what} does not hold a LightGBM model text (it starts '${(lines[0] ?? '').slice(0, 40)}')`)
  const header = readFields(lines, 1, true)
  const h = header.fields
  const numClass = integer(h.get('num_class'), `${what} num_class`, 1, 2 ** 20)
  const outputs = h.has('num_tree_per_iteration') ? integer(h.get('num_tree_per_iteration'), `${what} num_tree_per_iteration`, 1, 2 ** 20) : numClass
  const nFeatures = integer(h.get('max_feature_idx'), `${what} max_feature_idx`, 0, 2 ** 31 - 2) + 1
  const { objective, sigmoid, numClass: objectiveClasses } = readObjective(h.get('objective'), what)
  if (outputs !== numClass || objectiveClasses !== numClass) {
    shapeError(`${what} has num_class ${numClass}, num_tree_per_iteration ${outputs} and objective ${objective} for ${objectiveClasses}`)
  }
  const trees: ParsedTree[] = []
  let i = header.next
  while (i < lines.length && lines[i]!.startsWith('Tree=')) {
    const block = readFields(lines, i + 1, false)
    trees.push(readTree(block.fields, `${what} tree ${trees.length}`, nFeatures))
    i = block.next
    while (i < lines.length && lines[i] === '') i++
  }
  if (trees.length === 0) shapeError(`${what} holds no trees`)
  if (h.has('tree_sizes') && h.get('tree_sizes')!.split(' ').length !== trees.length) shapeError(`${what} tree_sizes lists ${h.get('tree_sizes')!.split(' ').length} trees, the text holds ${trees.length}`)
  if (trees.length % outputs !== 0) shapeError(`${what} holds ${trees.length} trees, not a multiple of ${outputs} per iteration`)
  const storedIterations = trees.length / outputs
  const iterations = bestIteration > 0 ? Math.min(bestIteration, storedIterations) : storedIterations
  const used = trees.slice(0, iterations * outputs)
  const nodeStart = new Int32Array(used.length + 1)
  const leafStart = new Int32Array(used.length + 1)
  used.forEach((t, k) => {
    nodeStart[k + 1] = nodeStart[k]! + t.left.length
    leafStart[k + 1] = leafStart[k]! + t.leafValue.length
  })
  const join = <A extends Int32Array | Float64Array | Uint8Array>(out: A, pick: (t: ParsedTree) => readonly number[], starts: Int32Array): A => {
    used.forEach((t, k) => out.set(pick(t), starts[k]))
    return out
  }
  const nodes = nodeStart[used.length]!
  const counted = used.every(t => t.leafCount !== undefined && t.internalCount !== undefined)
  return {
    nFeatures,
    objective,
    sigmoid,
    outputs,
    iterations,
    storedIterations,
    averageOutput: h.has('average_output'),
    since47: lines.includes('parameters:') && lines.some(l => l.startsWith('[gpu_device_id_list: ')),
    nodeStart,
    leafStart,
    splitFeature: join(new Int32Array(nodes), t => t.splitFeature, nodeStart),
    threshold: join(new Float64Array(nodes), t => t.threshold, nodeStart),
    decisionType: join(new Uint8Array(nodes), t => t.decisionType, nodeStart),
    left: join(new Int32Array(nodes), t => t.left, nodeStart),
    right: join(new Int32Array(nodes), t => t.right, nodeStart),
    leafValue: join(new Float64Array(leafStart[used.length]!), t => t.leafValue, leafStart),
    internalCount: counted ? join(new Float64Array(nodes), t => t.internalCount!, nodeStart) : new Float64Array(0),
    leafCount: counted ? join(new Float64Array(leafStart[used.length]!), t => t.leafCount!, leafStart) : new Float64Array(0)
  }
}

/**
 * A LightGBM model's trees side by side: per tree, splits whose children are later splits of
 * the tree or its leaves, each reached once (so a walk ends at a leaf), split features inside
 * the row, and no categorical split (bit 0 of decision_type), as the model text reader requires.
 */
export function checkLightGbmModel (f: Fields, nClasses: number): void {
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
