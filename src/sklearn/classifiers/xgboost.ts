/**
 * xgboost's XGBClassifier (`xgboost.sklearn`), as xgboost 1.7, 2.0, 2.1, 3.0 and 3.2 pickle
 * it and as their `predict` and `predict_proba` compute on a TF-IDF row. Checked against
 * Debian's xgboost 1.7.4 and against 2.0.3, 2.1.1, 3.0.0 and 3.2.0 built from their public
 * source (C++ at those tags: src/predictor/cpu_predictor.cc, predict_fn.h, src/common/math.h,
 * src/objective/regression_loss.h, multiclass_obj.cu, src/learner.cc); what differs between
 * releases is in xgboost-releases.ts.
 *
 * The pickle: the wrapper's `__dict__` (`n_classes_`, `objective`, `missing`, ...; 1.7 also
 * `classes_`, a property from 2.0 on) with `_Booster`, a `xgboost.core.Booster` whose state
 * holds `handle`, the C++ model serialized as UBJSON (`{"Config": ..., "Model": {"learner":
 * ..., "version": [3, 2, 0]}}`); 1.7 also keeps `best_iteration` as a Python attribute, 2.0+
 * only in the learner's `attributes`.
 *
 * Prediction, all in float32 as xgboost computes it:
 * - The wrapper hands xgboost the CSR row as it is, so an absent feature is *missing* (it
 *   follows the node's default direction), not 0; a present value is cast to float32 and
 *   goes left when `value < split_condition` (float32), right (the left child + 1) otherwise.
 *   Values equal to the wrapper's `missing` (NaN by default) count as absent.
 * - With the `dense_rows` setting (denseRowsState), the row is what `.toarray()` hands
 *   xgboost: a dense array, where only NaN and `missing` are missing (its ArrayAdapter), so
 *   an absent feature is the value 0.0f, compared like any other, unless `missing` is 0.
 * - Each margin starts at its base margin (ProbToMargin of the stored base_score:
 *   xgboost-releases.ts) and adds each tree's leaf value to its class's margin in tree
 *   order, every addition rounded to float32.
 * - Trees used: the first `best_iteration + 1` rounds (`_get_iteration_range`), every tree
 *   when the Booster has no `best_iteration`.
 * - binary:logistic: p = 1 / (1 + expf(min(-m, 88.7))) in float32 (glibc's expf),
 *   predict_proba [1 - p, p], label p > 0.5.
 * - multi:softprob: expf(m - max) per class, summed in double, each divided by the float32
 *   of the sum; label the first largest probability (numpy's argmax).
 * - multi:softmax: predict_proba is scipy's softmax of the float32 margins (numpy's float32
 *   exp and pairwise sum); label the first largest margin (xgboost's FindMaxIndex).
 * Labels are the class indices 0..K-1, as xgboost requires them and `predict` returns.
 * Explanations (`shapValues`): xgboost's own TreeSHAP, `pred_contribs`, which is what shap's
 * TreeExplainer returns for the model, reproduced in float32 in xgboost-tree-shap.ts over the
 * same trees, rows and base margins.
 * Categorical splits are refused: xgboost refuses to train them on TF-IDF values (fractions,
 * "Maximum category should not be lesser than the total number of categories"), so only a
 * vectorizer of whole counts told `feature_types="c"` could carry them.
 */
import { readUbjson, type UbjValue } from '../../pickle/ubjson.js'
import { PyByteArray, PyObject, type PyValue } from '../../pickle/values.js'
import { defineEstimator, probabilistic, type Classifier, type EstimatorState, type Scores } from '../estimator.js'
import { glibcExpf, softmaxFloat32InPlace } from '../float32.js'
import { attr, describe, readClasses, shapeError, unsupported } from '../record.js'
import { baseMarginsOf, releaseOf, type Release } from './xgboost-releases.js'
import type { SparseRow } from '../sparse-row.js'
import type { TreeAttribution } from '../tree-shap.js'
import { depthRefusal } from '../tree-shap.js'
import { boosterDepth, xgboostShap } from '../xgboost-tree-shap.js'
import { BoosterRow, boosterLeaf, boosterMargins, checkBooster, type BoosterState } from './xgboost-booster.js'
import { Fields } from '../state-fields.js'

export { BoosterRow, boosterLeaf, boosterMargins, type BoosterState } from './xgboost-booster.js'

const OBJECTIVES = ['binary:logistic', 'multi:softprob', 'multi:softmax'] as const
type Objective = typeof OBJECTIVES[number]

interface XgbState extends EstimatorState {
  readonly classes: readonly string[]
  readonly objective: Objective
  readonly booster: BoosterState
  readonly params: Readonly<Record<string, string | number>>
  /** The app feeds dense rows (the `dense_rows` setting): an absent feature is 0, not missing. */
  readonly denseRows?: boolean
}

type Json = UbjValue

function isMap (v: Json | undefined): v is Map<string, Json> {
  return v instanceof Map
}

/** A key of a UBJSON object, the path named when it is missing or of the wrong kind. */
function field (obj: Json | undefined, key: string, where: string): Json {
  if (!isMap(obj)) return shapeError(`${where} is not an object`)
  const v = obj.get(key)
  if (v === undefined) return shapeError(`${where} has no '${key}'`)
  return v
}

function objectField (obj: Json | undefined, key: string, where: string): Map<string, Json> {
  const v = field(obj, key, where)
  if (!isMap(v)) return shapeError(`${where}.${key} is not an object`)
  return v
}

/** xgboost keeps its parameters as strings ("3", "5E-1"). */
function stringField (obj: Json | undefined, key: string, where: string): string {
  const v = field(obj, key, where)
  if (typeof v !== 'string') return shapeError(`${where}.${key} is not a string`)
  return v
}

function intField (obj: Json | undefined, key: string, where: string, min: number, max: number): number {
  const text = stringField(obj, key, where)
  const n = /^-?\d{1,15}$/.test(text) ? Number(text) : Number.NaN
  if (!(n >= min && n <= max)) shapeError(`${where}.${key} is ${JSON.stringify(text)}, not an integer in ${min}..${max}`)
  return n
}

/** A list of numbers (a typed array, or an untyped one as a JSON model holds), as doubles. */
function numbers (v: Json, what: string, length: number): Float64Array {
  let out: Float64Array
  if (v instanceof BigInt64Array) out = Float64Array.from(v, Number)
  else if (ArrayBuffer.isView(v)) out = Float64Array.from(v as ArrayLike<number>)
  else if (Array.isArray(v) && v.every(x => typeof x === 'number')) out = Float64Array.from(v as number[])
  else return shapeError(`${what} is not an array of numbers`)
  if (length >= 0 && out.length !== length) shapeError(`${what} has ${out.length} items, expected ${length}`)
  return out
}

function integers (v: Json, what: string, length: number): Float64Array {
  const out = numbers(v, what, length)
  for (let i = 0; i < out.length; i++) if (!Number.isSafeInteger(out[i])) shapeError(`${what}[${i}] is ${out[i]!}, not an integer`)
  return out
}

/** The bytes of the Booster's `handle`: a bytearray in 1.7, bytes in some versions. */
function handleBytes (booster: PyObject): Uint8Array {
  const handle = booster.get('handle')
  if (handle instanceof PyByteArray) return handle.bytes
  if (handle instanceof Uint8Array) return handle
  return unsupported(`XGBClassifier._Booster.handle is ${describe(handle)}: is it fitted?`)
}

/** The UBJSON document of a pickled Booster, refusing what xgboost < 1.6 wrote. */
function boosterDocument (bytes: Uint8Array): Map<string, Json> {
  // 1.6+ writes a UBJSON object; earlier versions wrote their binary format with a JSON config.
  if (bytes[0] !== 0x7b) unsupported('XGBClassifier._Booster holds a model in the format of xgboost < 1.6, which is not supported: load it with xgboost 1.7 and pickle it again')
  const doc = readUbjson(bytes)
  if (!isMap(doc)) return shapeError('XGBClassifier._Booster.handle is not a UBJSON object')
  return doc
}

function versionOf (model: Map<string, Json>): string {
  const v = field(model, 'version', 'Booster Model')
  const parts = Array.isArray(v) || ArrayBuffer.isView(v) ? Array.from(v as ArrayLike<unknown>, Number) : []
  if (parts.length !== 3 || !parts.every(Number.isSafeInteger)) return shapeError('Booster Model.version is not [major, minor, patch]')
  return parts.join('.')
}

/** Reads one tree's nodes into the global arrays at `offset`, checking it is one tree whose walks end at leaves. */
function readTree (tree: Json, where: string, nFeatures: number, offset: number, out: { left: number[], defaultChild: number[], feature: number[], value: number[], cover: number[] }): number {
  const param = objectField(tree, 'tree_param', where)
  const n = intField(param, 'num_nodes', `${where}.tree_param`, 1, 2 ** 31 - 1)
  // 1.7 writes 0 for a scalar leaf, 2.0+ write 1; more is one tree's leaf for every class (multi_output_tree).
  if (param.has('size_leaf_vector') && intField(param, 'size_leaf_vector', `${where}.tree_param`, 0, 2 ** 31 - 1) > 1) unsupported(`${where} has vector leaves, which are not supported (multi_strategy="multi_output_tree"; train with the default "one_output_per_tree")`)
  const left = integers(field(tree, 'left_children', where), `${where}.left_children`, n)
  const right = integers(field(tree, 'right_children', where), `${where}.right_children`, n)
  const splitIndex = integers(field(tree, 'split_indices', where), `${where}.split_indices`, n)
  const conds = numbers(field(tree, 'split_conditions', where), `${where}.split_conditions`, n)
  const defaultLeft = integers(field(tree, 'default_left', where), `${where}.default_left`, n)
  const sumHessian = numbers(field(tree, 'sum_hessian', where), `${where}.sum_hessian`, n)
  const splitType = isMap(tree) && tree.has('split_type') ? integers(tree.get('split_type')!, `${where}.split_type`, n) : new Float64Array(0)
  const catNodes = isMap(tree) && tree.has('categories_nodes') ? numbers(tree.get('categories_nodes')!, `${where}.categories_nodes`, -1) : new Float64Array(0)
  if (splitType.some(t => t !== 0) || catNodes.length > 0) unsupported(`${where} has categorical splits, which are not supported: fitted with feature_types 'c' on word counts (xgboost refuses them on TF-IDF values); fit without feature_types to split on the counts as numbers`)
  // Walk from the root: every reachable node is reached once, so every walk ends at a leaf.
  const seen = new Uint8Array(n)
  const stack = [0]
  seen[0] = 1
  while (stack.length > 0) {
    const node = stack.pop()!
    const l = left[node]!
    if (l === -1) continue
    const r = right[node]!
    // xgboost takes `left + !(x < cond)` as the child, so the right child must be left + 1.
    if (!(l > 0 && l < n && r === l + 1 && r < n)) shapeError(`${where}: node ${node} has children ${l} and ${r}, not two adjacent nodes in 1..${n - 1}`)
    if (!(splitIndex[node]! >= 0 && splitIndex[node]! < nFeatures)) shapeError(`${where}: node ${node} splits on feature ${splitIndex[node]!}, outside 0..${nFeatures - 1}`)
    for (const child of [l, r]) {
      if (seen[child] === 1) shapeError(`${where}: node ${child} is reached twice`)
      seen[child] = 1
      stack.push(child)
    }
  }
  for (let node = 0; node < n; node++) {
    const l = left[node]!
    out.left.push(l === -1 || seen[node] === 0 ? -1 : offset + l)
    out.defaultChild.push(l === -1 || seen[node] === 0 ? -1 : offset + (defaultLeft[node] === 1 ? l : right[node]!))
    out.feature.push(l === -1 || seen[node] === 0 ? 0 : splitIndex[node]!)
    out.value.push(conds[node]!)
    out.cover.push(sumHessian[node]!)
  }
  return n
}

/**
 * How many trees predict uses (LayerToTree): those of rounds 0..best, or every tree. 2.0+
 * keep where each round's trees start (`iteration_indptr`); in 1.7 a round is
 * `perRound` trees (the classes times num_parallel_tree).
 */
function treesUsed (gbModel: Map<string, Json>, best: number | undefined, numTrees: number, perRound: number): number {
  const indptrValue = gbModel.get('iteration_indptr')
  if (indptrValue === undefined) {
    const end = best === undefined ? numTrees : (best + 1) * perRound
    if (end > numTrees) shapeError(`best_iteration asks for ${end} trees, the booster has ${numTrees}`)
    return end
  }
  const indptr = integers(indptrValue, 'gradient_booster.model.iteration_indptr', -1)
  const rounds = indptr.length - 1
  if (rounds < 0 || indptr[0] !== 0 || indptr[rounds] !== numTrees || indptr.some((v, i) => i > 0 && v < indptr[i - 1]!)) {
    shapeError(`gradient_booster.model.iteration_indptr is not 0, ..., ${numTrees} rising`)
  }
  if (best === undefined) return numTrees
  if (best + 1 > rounds) shapeError(`best_iteration ${best} asks for ${best + 1} rounds, the booster has ${rounds}`)
  return indptr[best + 1]!
}

/**
 * The best_iteration predict uses: 1.7 reads the Booster's Python attribute (which its train
 * sets), 2.0+ the learner's attribute of that name (a property reads it).
 */
function bestIterationOf (release: Release, learner: Map<string, Json>, fromPython: number | undefined): number | undefined {
  if (!release.bestIterationInLearner) return fromPython
  const attributes = learner.get('attributes')
  if (!isMap(attributes) || !attributes.has('best_iteration')) return undefined
  const text = attributes.get('best_iteration')
  if (typeof text !== 'string' || !/^\d{1,9}$/.test(text)) return shapeError(`learner.attributes.best_iteration is ${describe(text as PyValue)}`)
  return Number(text)
}

/**
 * The trees, base margins and objective of a pickled Booster's UBJSON document.
 * @param best the Booster's Python `best_iteration`, if it has one, which 1.7 uses; 2.0+ keep
 * it in the learner's attributes. predict uses rounds 0..best, or every round without one.
 * @throws ServiceError ERR_MODEL_UNSUPPORTED for another xgboost version, booster, objective
 * or categorical splits; ERR_MODEL_SHAPE for arrays that do not fit together.
 */
export function readBooster (doc: Map<string, Json>, best: number | undefined, missing: number): { booster: BoosterState, objective: Objective, version: string, nClass: number, numParallelTree: number, baseScore: number[], bestIteration: number | undefined } {
  const model = objectField(doc, 'Model', 'Booster')
  const version = versionOf(model)
  const release = releaseOf(version)
  const learner = objectField(model, 'learner', 'Booster Model')
  const objective = stringField(objectField(learner, 'objective', 'learner'), 'name', 'learner.objective')
  if (!(OBJECTIVES as readonly string[]).includes(objective)) unsupported(`XGBClassifier objective '${objective}' is not supported (${OBJECTIVES.join(', ')})`)
  const gb = objectField(learner, 'gradient_booster', 'learner')
  const boosterName = stringField(gb, 'name', 'learner.gradient_booster')
  if (boosterName !== 'gbtree') unsupported(`XGBClassifier booster '${boosterName}' is not supported (only gbtree: ${boosterName === 'dart' ? "dart scales trees by dropout weights" : 'a linear booster is not a tree model'})`)
  const names = learner.get('feature_names')
  if (names !== undefined && (Array.isArray(names) ? names.length : 1) > 0) unsupported('XGBClassifier was fitted with feature names (a DataFrame): xgboost refuses TF-IDF rows, which have none')

  const mparam = objectField(learner, 'learner_model_param', 'learner')
  const nFeatures = intField(mparam, 'num_feature', 'learner_model_param', 1, 2 ** 31 - 1)
  const nClass = intField(mparam, 'num_class', 'learner_model_param', 0, 2 ** 31 - 1)
  if (mparam.has('num_target') && intField(mparam, 'num_target', 'learner_model_param', 1, 2 ** 31 - 1) !== 1) unsupported('XGBClassifier with several targets is not supported')
  const binary = objective === 'binary:logistic'
  if (binary ? nClass > 1 : nClass < 3) unsupported(`XGBClassifier objective ${objective} with num_class ${nClass} is not supported`)
  const nGroups = binary ? 1 : nClass
  const { margins: baseMargins, stored: baseScore } = baseMarginsOf(release, stringField(mparam, 'base_score', 'learner_model_param'), binary, nGroups)
  const bestIteration = bestIterationOf(release, learner, best)

  const gbModel = objectField(gb, 'model', 'gradient_booster')
  const gbParam = objectField(gbModel, 'gbtree_model_param', 'gradient_booster.model')
  const numParallelTree = intField(gbParam, 'num_parallel_tree', 'gbtree_model_param', 1, 2 ** 31 - 1)
  const numTrees = intField(gbParam, 'num_trees', 'gbtree_model_param', 0, 2 ** 31 - 1)
  const trees = field(gbModel, 'trees', 'gradient_booster.model')
  if (!Array.isArray(trees) || trees.length !== numTrees) return shapeError(`gradient_booster.model.trees holds ${Array.isArray(trees) ? trees.length : describe(trees)} trees, num_trees says ${numTrees}`)
  const treeInfo = integers(field(gbModel, 'tree_info', 'gradient_booster.model'), 'gradient_booster.model.tree_info', numTrees)
  const end = treesUsed(gbModel, bestIteration, numTrees, nGroups * numParallelTree)
  if (end === 0) unsupported('XGBClassifier has no trees')

  const nodes = { left: [] as number[], defaultChild: [] as number[], feature: [] as number[], value: [] as number[], cover: [] as number[] }
  const treeStart = new Int32Array(end + 1)
  const treeGroup = new Int32Array(end)
  for (let t = 0; t < end; t++) {
    const g = treeInfo[t]!
    if (!(g >= 0 && g < nGroups)) shapeError(`tree_info[${t}] is ${g}, outside 0..${nGroups - 1}`)
    treeGroup[t] = g
    treeStart[t + 1] = treeStart[t]! + readTree(trees[t]!, `trees[${t}]`, nFeatures, treeStart[t]!, nodes)
  }
  const booster: BoosterState = {
    nFeatures,
    nGroups,
    treeStart,
    treeGroup,
    left: Int32Array.from(nodes.left),
    defaultChild: Int32Array.from(nodes.defaultChild),
    feature: Int32Array.from(nodes.feature),
    value: Float32Array.from(nodes.value),
    cover: Float32Array.from(nodes.cover),
    baseMargins,
    missing
  }
  return { booster, objective: objective as Objective, version, nClass, numParallelTree, baseScore, bestIteration }
}

/** The child 0.0f goes to at each split, as a dense row's zero does (`0 < split_condition` goes left); -1 at a leaf. */
function zeroChildren (b: BoosterState): Int32Array {
  return b.left.map((l, node) => l === -1 ? -1 : 0 < b.value[node]! ? l : l + 1)
}

/**
 * The booster as a dense row reaches it: an absent feature is the value 0.0f. With
 * `missing` 0 a dense row's zeros are missing too, as a sparse row's absent features are.
 */
export function denseBooster (b: BoosterState): BoosterState {
  return b.missing === 0 ? b : { ...b, absentChild: zeroChildren(b) }
}

/** The leaf ids of every tree used, as xgboost's `apply` / `pred_leaf` numbers them (per tree). */
export function boosterLeaves (b: BoosterState, x: BoosterRow): Int32Array {
  const out = new Int32Array(b.treeGroup.length)
  for (let t = 0; t < out.length; t++) out[t] = boosterLeaf(b, t, x) - b.treeStart[t]!
  return out
}

const F32_88_7 = Math.fround(88.7)
const F32_EPS = Math.fround(1e-16)

/** common::Sigmoid of xgboost 1.7, in float32. */
function xgbSigmoid (m: number): number {
  const e = glibcExpf(Math.min(Math.fround(-m), F32_88_7))
  return Math.fround(1 / Math.fround(Math.fround(e + 1) + F32_EPS))
}

/** common::Softmax of xgboost 1.7: float32 exponentials, a double sum, float32 quotients. */
function xgbSoftmax (margin: Float32Array): Float64Array {
  let max = margin[0]!
  for (let k = 1; k < margin.length; k++) max = Math.max(margin[k]!, max)
  const out = new Float64Array(margin.length)
  let sum = 0
  for (let k = 0; k < margin.length; k++) {
    out[k] = glibcExpf(Math.fround(margin[k]! - max))
    sum += out[k]!
  }
  const sum32 = Math.fround(sum)
  for (let k = 0; k < out.length; k++) out[k] = Math.fround(out[k]! / sum32)
  return out
}

/** The first index of the largest value (numpy's argmax, xgboost's FindMaxIndex). */
function firstMax (x: ArrayLike<number>): number {
  let best = 0
  for (let k = 1; k < x.length; k++) if (x[k]! > x[best]!) best = k
  return best
}

/** The row's outputs from its margins, as the wrapper's predict and predict_proba give them. */
function xgbScores (objective: Objective, margin: Float32Array): Scores {
  if (objective === 'binary:logistic') {
    const p = xgbSigmoid(margin[0]!)
    return { classIndex: p > 0.5 ? 1 : 0, proba: Float64Array.of(Math.fround(1 - p), p), decision: undefined }
  }
  if (objective === 'multi:softprob') {
    const proba = xgbSoftmax(margin)
    return { classIndex: firstMax(proba), proba, decision: undefined }
  }
  // multi:softmax: predict is FindMaxIndex of the margins; predict_proba scipy.special.softmax of them.
  return { classIndex: firstMax(margin), proba: softmaxFloat32InPlace(Float64Array.from(margin)), decision: undefined }
}

/** The wrapper's parameter `name`, which must be unset or one of `allowed`. */
function wrapperChoice (obj: PyObject, name: string, allowed: readonly string[]): void {
  const v = obj.get(name)
  if (v === undefined || v === null || (typeof v === 'string' && allowed.includes(v))) return
  unsupported(`XGBClassifier.${name} is ${describe(v)}; supported: ${allowed.join(', ')}`)
}

/** The Booster's Python `best_iteration` (xgboost 1.7's train sets it), which predict uses. */
function pythonBestIteration (booster: PyObject): number | undefined {
  const v = booster.get('best_iteration')
  if (v === undefined) return undefined
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) return shapeError(`XGBClassifier._Booster.best_iteration is ${describe(v)}`)
  return v
}

function missingValue (obj: PyObject): number {
  const v: PyValue = obj.get('missing')
  if (v === undefined || v === null) return Number.NaN
  if (typeof v !== 'number') return unsupported(`XGBClassifier.missing is ${describe(v)}, not a number`)
  return Math.fround(v)
}

/** classes_ as 1.7 stores it; 2.0+ make it a property, np.arange(n_classes_), so only n_classes_ is pickled. */
function classesOf (obj: PyObject): string[] {
  const nClasses = attr(obj, 'n_classes_')
  if (typeof nClasses !== 'number' || !Number.isSafeInteger(nClasses) || nClasses < 2) return shapeError(`XGBClassifier.n_classes_ is ${describe(nClasses)}`)
  if (!obj.has('classes_')) return Array.from({ length: nClasses }, (_, k) => String(k))
  // classes_ must be 0..K-1 (xgboost refuses other labels), and predict returns those indices.
  const labels = readClasses(obj.get('classes_'), obj.name)
  labels.forEach((label, k) => { if (Number(label) !== k) shapeError(`XGBClassifier.classes_[${k}] is ${label}, not ${k}`) })
  if (nClasses !== labels.length) shapeError(`XGBClassifier.n_classes_ is ${nClasses} for ${labels.length} classes_`)
  return labels.map((_, k) => String(k))
}

function build (obj: PyObject): XgbState {
  const boosterRecord = attr(obj, '_Booster')
  if (!(boosterRecord instanceof PyObject) || boosterRecord.qualifiedName !== 'xgboost.core.Booster') return unsupported(`XGBClassifier._Booster is ${describe(boosterRecord)}, not an xgboost Booster`)
  // A GPU predictor (1.7's gpu_predictor, 2.0+'s device 'cuda') sums on a GPU, which is not checked here.
  wrapperChoice(obj, 'predictor', ['auto', 'cpu_predictor'])
  const device = obj.get('device')
  if (!(device === undefined || device === null || device === 'cpu')) unsupported(`XGBClassifier.device is ${typeof device === 'string' ? `'${device}'` : describe(device)}: predictions on a GPU are not checked here; call set_params(device='cpu') and save the model again`)
  // The booster first: a file of another xgboost version is refused for that, whatever its wrapper holds.
  const doc = boosterDocument(handleBytes(boosterRecord))
  const { booster, objective, version, numParallelTree, baseScore, bestIteration } = readBooster(doc, pythonBestIteration(boosterRecord), missingValue(obj))
  const classes = classesOf(obj)
  const wrapperObjective = obj.get('objective')
  if (wrapperObjective !== objective) unsupported(`XGBClassifier.objective is ${describe(wrapperObjective)} but its booster's is '${objective}'`)
  if (booster.nGroups !== (classes.length === 2 ? 1 : classes.length)) shapeError(`XGBClassifier has ${classes.length} classes but its booster ${booster.nGroups} margins (${objective})`)
  return {
    type: 'xgboost',
    kind: obj.name,
    classes,
    objective,
    booster,
    params: {
      objective,
      xgboost: version,
      n_trees: booster.treeGroup.length,
      num_parallel_tree: numParallelTree,
      base_score: baseScore.length === 1 ? baseScore[0]! : `[${baseScore.join(', ')}]`,
      ...(bestIteration === undefined ? {} : { best_iteration: bestIteration })
    }
  }
}

/** An XGBClassifier's state read with the `dense_rows` setting, or undefined for another estimator. */
export function denseRowsState (state: EstimatorState): EstimatorState | undefined {
  return state.type === 'xgboost' ? { ...state, denseRows: true } as XgbState : undefined
}

/**
 * One line when the splits show xgboost never saw a missing value while fitting, so the app
 * likely fitted (and feeds) dense rows, and the `dense_rows` setting changes answers.
 *
 * The rule: every split sends a missing value the same way, `missing` is not 0, and at least
 * one split sends it where 0.0f does not go. Observed with xgboost 1.7.4
 * (test/fixtures/xgboost/dense, generate_dense.py): fitted on `.toarray()` rows, hist and
 * approx send all 219 splits' missing values right and exact all 219 left (its split search
 * tries the other way only where a node holds missing values); fitted on CSR rows, 84 to 87
 * of 216 to 227 go left; fitted dense with missing=0, 66 of 167. The 2.1.1 model of issue #38
 * sent all 726 the same way. exact's "all left" with positive thresholds sends 0 left too,
 * so dense and sparse rows answer alike there and nothing is said.
 */
export function denseRowsHint (state: EstimatorState): string | undefined {
  if (state.type !== 'xgboost' || (state as XgbState).denseRows === true) return undefined
  const b = (state as XgbState).booster
  if (b.missing === 0) return undefined
  const zero = zeroChildren(b)
  let splits = 0
  let defaultLeft = 0
  let apart = 0
  for (let node = 0; node < b.left.length; node++) {
    if (b.left[node] === -1) continue
    splits++
    if (b.defaultChild[node] === b.left[node]) defaultLeft++
    if (b.defaultChild[node] !== zero[node]) apart++
  }
  if (splits === 0 || (defaultLeft !== 0 && defaultLeft !== splits) || apart === 0) return undefined
  return `XGBClassifier: all ${splits} splits send a missing value ${defaultLeft === 0 ? 'right' : 'left'}, as xgboost records for a model that never saw one (fitted on dense rows, .toarray()); an absent word is read as missing here (a sparse row), which goes where 0 does not at ${apart} splits: if the app feeds dense rows, set "dense_rows": true in its model-settings.json`
}

function create (state: XgbState): Classifier {
  const { objective } = state
  const booster = state.denseRows === true ? denseBooster(state.booster) : state.booster
  const row = new BoosterRow(booster)
  // Its tables (node means, depths) are made on the first explanation.
  let shap: ((r: SparseRow) => TreeAttribution) | undefined
  const deep = depthRefusal(boosterDepth(booster))
  return probabilistic({
    kind: state.kind,
    nFeatures: booster.nFeatures,
    classes: state.classes,
    params: state.params,
    score: (r: SparseRow): Scores => {
      row.load(r)
      const margin = boosterMargins(booster, row)
      row.clear()
      return xgbScores(objective, margin)
    },
    // xgboost's pred_contribs, which shap's TreeExplainer returns (xgboost-tree-shap.ts), for every objective served.
    ...(deep !== undefined
      ? { explainRefusal: `${state.kind}: ${deep}` }
      : { shapSpace: 'margin' as const, shapValues: (r: SparseRow): TreeAttribution => (shap ??= xgboostShap(booster))(r) })
  })
}

/** What create and scoring rely on in a XgbState (from a compiled file, or just built). */
function check (state: unknown, where: string): asserts state is XgbState {
  const f = new Fields(state, where)
  const k = f.strings('classes', 2).length
  const objective = f.oneOf('objective', ['binary:logistic', 'multi:softprob', 'multi:softmax'])
  checkBooster(f.object('booster'), objective === 'binary:logistic' ? 1 : k)
  f.object('params')
}

export const xgboostClassifier = defineEstimator<XgbState, 'classifier'>({
  type: 'xgboost',
  role: 'classifier',
  names: ['XGBClassifier'],
  build,
  check,
  create
})
