/**
 * DummyClassifier: what GradientBoostingClassifier keeps as `init_`, and a model of its own
 * now and then. `predict_proba` is `class_prior_` ('prior'), a one-hot of its arg-max
 * ('most_frequent') or a one-hot of `constant`; `predict` is the most frequent class, or
 * the constant. 'uniform' and 'stratified' predict at random: neither can be served.
 */
import type { PyObject } from '../../pickle/values.js'
import { defineEstimator, probabilistic, type Classifier, type EstimatorState } from '../estimator.js'
import { argmax } from '../math.js'
import { pyStr } from '../python-repr.js'
import { attr, choice, float64Array, int, param, readClasses, unsupported } from '../record.js'
import { Fields, MAX_FEATURES } from '../state-fields.js'

interface DummyState extends EstimatorState {
  readonly classes: readonly string[]
  readonly nFeatures: number
  readonly proba: Float64Array
  readonly classIndex: number
}

function build (obj: PyObject): DummyState {
  const classes = readClasses(attr(obj, 'classes_'), obj.name, 1)
  const k = classes.length
  const prior = float64Array(attr(obj, 'class_prior_'), `${obj.name}.class_prior_`, [k])
  const strategyName = obj.has('_strategy') ? '_strategy' : 'strategy'
  const strategy = choice(obj, strategyName, ['prior', 'most_frequent', 'uniform', 'constant', 'stratified'], 'prior')
  let proba: Float64Array
  let classIndex = argmax(prior)
  if (strategy === 'prior') {
    proba = prior.slice()
  } else if (strategy === 'most_frequent') {
    proba = new Float64Array(k)
    proba[classIndex] = 1
  } else if (strategy === 'constant') {
    const constant = pyStr(param(obj, 'constant', null))
    classIndex = classes.indexOf(constant)
    if (classIndex < 0) unsupported(`${obj.name}.constant ${constant} is not one of its classes`)
    proba = new Float64Array(k)
    proba[classIndex] = 1
  } else {
    return unsupported(`${obj.name} with strategy '${strategy}' predicts at random and cannot be served`)
  }
  const nFeatures = int(obj, 'n_features_in_', -1)
  return { type: 'dummy', kind: obj.name, classes, nFeatures, proba, classIndex }
}

function create (state: DummyState): Classifier {
  return probabilistic({
    kind: state.kind,
    nFeatures: state.nFeatures,
    classes: state.classes,
    params: {},
    score: () => ({ classIndex: state.classIndex, proba: state.proba.slice(), decision: undefined })
  })
}

/** What create and scoring rely on in a DummyState (from a compiled file, or just built). */
function check (state: unknown, where: string): asserts state is DummyState {
  const f = new Fields(state, where)
  const k = f.strings('classes', 1).length
  f.int('nFeatures', -1, MAX_FEATURES)
  f.array('proba', Float64Array, k)
  f.int('classIndex', 0, k - 1)
}

export const dummyClassifier = defineEstimator<DummyState, 'classifier'>({
  type: 'dummy',
  role: 'classifier',
  names: ['DummyClassifier'],
  build,
  check,
  create
})
