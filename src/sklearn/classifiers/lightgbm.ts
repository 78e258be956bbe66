/**
 * LightGBM: `lightgbm.sklearn.LGBMClassifier` and a bare `lightgbm.basic.Booster`, as
 * lightgbm 4.x pickles them and as their `predict_proba` / `predict` compute on a TF-IDF row.
 * Checked against lightgbm 4.7.0 (C++: include/LightGBM/tree.h NumericalDecision,
 * src/application/predictor.hpp, src/boosting/gbdt_prediction.cpp, src/objective/*.hpp).
 *
 * The pickle: LGBMClassifier's `__dict__` (`_classes`, `_n_classes`, `_other_params`, ...)
 * with `_Booster`; a Booster's state keeps its model as the text `model_to_string()` writes
 * (`_handle`, `handle` before 4.0; lightgbm-model-text.ts reads it) and `best_iteration`.
 *
 * Prediction, in doubles as LightGBM computes it:
 * - The CSR row becomes a dense row of doubles, absent features 0.0 (CopyToPredictBuffer).
 *   A dense input (a row with every feature: TruncatedSVD's, a stacking meta-row) goes
 *   through RowPairFunctionFromDenseMatrix first, which drops values with |v| <= 1e-35f.
 * - NumericalDecision at each node: NaN becomes 0.0 unless the node's missing type is NaN;
 *   then a zero (|v| <= kZeroThreshold, 1e-35f) at a missing-type-zero node, or NaN at a
 *   missing-type-NaN node, takes the default direction; else `v <= threshold` goes left.
 * - Raw scores: per class, the leaf values of the first `best_iteration` iterations (all
 *   when none) added in tree order from 0. That is `decision_function` (`raw_score=True`).
 * - boosting 'rf' (`average_output`) divides them by the iterations before the transform.
 * - The objective's transform: binary 1 / (1 + exp(-sigmoid * raw)); cross_entropy the same
 *   with sigmoid 1; multiclass softmax (max subtracted, exps summed in order); multiclassova
 *   the binary sigmoid per class, not normalised.
 * - LGBMClassifier: predict_proba [1 - p, p] for one output, the probabilities otherwise;
 *   predict the first largest probability, mapped through `classes_`; decision_function
 *   the raw scores, from lightgbm 4.7.0 (a text written earlier lacks it, and so do we, so
 *   that meta-estimators over it use predict_proba as scikit-learn then did). A bare Booster
 *   is served the same way, its classes 0..K-1 (the labels LightGBM trains on), its raw
 *   scores those of `predict(raw_score=True)`.
 * - pred_early_stop=True (a prediction that stops once a margin is reached) is refused.
 */
import { PyObject, type PyValue } from '../../pickle/values.js'
import { defineEstimator, type Classifier, type EstimatorState, type Scores } from '../estimator.js'
import { attr, describe, int, readClasses, shapeError, unsupported } from '../record.js'
import type { SparseRow } from '../sparse-row.js'
import { depthRefusal } from '../tree-shap.js'
import { lightgbmDepth, lightgbmExplainer } from './lightgbm-explainer.js'
import { checkLightGbmModel, parseModelText, type LightGbmModel } from './lightgbm-model-text.js'
import { clearRow, loadRow, treeLeaf } from './lightgbm-trees.js'
import { Fields } from '../state-fields.js'

interface LightGbmState extends EstimatorState {
  readonly classes: readonly string[]
  readonly model: LightGbmModel
  /**
   * Whether the raw scores are served as `decision_function`: LGBMClassifier has it from
   * lightgbm 4.7.0 (meta-estimators such as CalibratedClassifierCV then use it instead of
   * predict_proba); a bare Booster gives them as `predict(raw_score=True)`.
   */
  readonly decisionFunction: boolean
}

const BOOSTER = 'lightgbm.basic.Booster'

function readBooster (value: PyValue, what: string): LightGbmModel {
  if (!(value instanceof PyObject) || value.qualifiedName !== BOOSTER) return unsupported(`${what} is ${describe(value)}, not a ${BOOSTER}`)
  const text = value.has('_handle') ? value.get('_handle') : value.get('handle')
  if (typeof text !== 'string') return unsupported(`${what} holds no model text (its handle is ${describe(text)}): is it trained?`)
  const best = value.has('best_iteration') && value.get('best_iteration') !== null ? int(value, 'best_iteration') : 0
  return parseModelText(text, best, what)
}

/** Whether a LightGBM parameter value is set (True, 1, 'true'), as its config reads bools. */
function isSet (v: PyValue): boolean {
  return v === true || v === 1 || (typeof v === 'string' && /^(true|1)$/i.test(v))
}

function buildClassifier (obj: PyObject): LightGbmState {
  const model = readBooster(attr(obj, '_Booster'), `${obj.name}._Booster`)
  const classes = readClasses(attr(obj, '_classes'), obj.name)
  const other = obj.get('_other_params')
  if (isSet(obj.get('pred_early_stop') ?? null) || (other instanceof Map && isSet(other.get('pred_early_stop') ?? null))) {
    unsupported(`${obj.name} has pred_early_stop=True: its predictions stop early by a margin, not served`)
  }
  const outputs = classes.length === 2 ? 1 : classes.length
  if (model.outputs !== outputs) shapeError(`${obj.name} has ${classes.length} classes, its Booster ${model.outputs} outputs (objective ${model.objective})`)
  if (obj.has('_n_features') && int(obj, '_n_features') !== model.nFeatures) shapeError(`${obj.name}._n_features is ${int(obj, '_n_features')}, its Booster reads ${model.nFeatures}`)
  return { type: 'lightgbm', kind: obj.name, classes, model, decisionFunction: model.since47 }
}

function build (obj: PyObject): LightGbmState {
  if (obj.module === 'lightgbm.sklearn') return buildClassifier(obj)
  const model = readBooster(obj, obj.name)
  const classes = Array.from({ length: model.outputs === 1 ? 2 : model.outputs }, (_, c) => String(c))
  return { type: 'lightgbm', kind: obj.name, classes, model, decisionFunction: true }
}

/** GBDT::PredictRaw: each class's leaf values, added in tree order from 0. */
export function rawScores (m: LightGbmModel, x: Float64Array): Float64Array {
  const k = m.outputs
  const raw = new Float64Array(k)
  const trees = m.iterations * k
  for (let t = 0; t < trees; t++) raw[t % k] += m.leafValue[m.leafStart[t]! + treeLeaf(m, t, x)]!
  return raw
}

/** ConvertOutput of the objective (after `average_output`'s mean), as LightGBM computes it. */
export function transform (m: LightGbmModel, raw: Float64Array): Float64Array {
  const out = raw.slice()
  if (m.averageOutput) for (let k = 0; k < out.length; k++) out[k] = out[k]! / m.iterations
  if (m.objective === 'multiclass') {
    // Common::Softmax: std::max from the first, exps summed in order.
    let max = out[0]!
    for (let k = 1; k < out.length; k++) max = out[k]! < max ? max : out[k]!
    let sum = 0
    for (let k = 0; k < out.length; k++) {
      out[k] = Math.exp(out[k]! - max)
      sum += out[k]!
    }
    for (let k = 0; k < out.length; k++) out[k] = out[k]! / sum
    return out
  }
  for (let k = 0; k < out.length; k++) out[k] = 1 / (1 + Math.exp(-m.sigmoid * out[k]!))
  return out
}

/** numpy's argmax: the first largest (a NaN counts as largest, the first one). */
function firstLargest (p: Float64Array): number {
  let best = 0
  for (let i = 1; i < p.length; i++) if (p[i]! > p[best]! || (Number.isNaN(p[i]!) && !Number.isNaN(p[best]!))) best = i
  return best
}

function create (state: LightGbmState): Classifier {
  const { model, classes } = state
  const x = new Float64Array(model.nFeatures)
  const rawOf = (row: SparseRow): Float64Array => {
    const set = loadRow(x, row)
    const raw = rawScores(model, x)
    clearRow(x, set)
    return raw
  }
  return {
    kind: state.kind,
    nFeatures: model.nFeatures,
    classes,
    hasProba: true,
    hasDecision: state.decisionFunction,
    confidence: 'predict_proba',
    params: { objective: model.objective, boosting: model.averageOutput ? 'rf' : 'gbdt', iterations: model.iterations, trees_per_iteration: model.outputs },
    score: (row: SparseRow): Scores => {
      const raw = rawOf(row)
      const p = transform(model, raw)
      const proba = p.length === 1 ? Float64Array.of(1 - p[0]!, p[0]!) : p
      return { classIndex: firstLargest(proba), proba, decision: state.decisionFunction ? raw : undefined }
    },
    // lightgbm 4.7's decision_function is predict(raw_score=True) on whatever text it loads.
    ...(state.decisionFunction ? {} : { laterDecision: { since: 'lightgbm 4.7.0', score: rawOf } }),
    ...explanationOf(state.kind, model, rawOf)
  }
}

/** The fields that explain the model, or say why not. */
function explanationOf (kind: string, model: LightGbmModel, rawOf: (row: SparseRow) => Float64Array): Pick<Classifier, 'shapSpace' | 'shapValues' | 'explainRefusal'> {
  const why = model.leafCount.length === 0 ? 'its model text has no leaf_count / internal_count, the covers TreeSHAP splits paths by' : depthRefusal(lightgbmDepth(model))
  return why !== undefined ? { explainRefusal: `${kind}: ${why}` } : { shapSpace: 'margin', shapValues: lightgbmExplainer(model, rawOf) }
}

/** What create and scoring rely on in a LightGbmState (from a compiled file, or just built). */
function check (state: unknown, where: string): asserts state is LightGbmState {
  const f = new Fields(state, where)
  const k = f.strings('classes', 2).length
  checkLightGbmModel(f.object('model'), k)
  f.bool('decisionFunction')
}

export const lightgbmClassifier = defineEstimator<LightGbmState, 'classifier'>({
  type: 'lightgbm',
  role: 'classifier',
  names: ['LGBMClassifier', 'Booster'],
  build,
  check,
  create
})
