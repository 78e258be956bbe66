/**
 * The one table of estimators: every scikit-learn class we serve, by name, with the module
 * that builds its state, checks it and creates it. The loader, ensembles, meta-estimators and
 * compiled files go through it, and the "not supported" messages list what it holds, so
 * adding an estimator is one module plus one line here (or one `registerEstimator` call):
 * it then serves from a pickle and from its compiled file alike.
 */
import assert from 'node:assert'
import type { PyValue } from '../pickle/values.js'
import { PyObject } from '../pickle/values.js'
import { adaBoost } from './classifiers/adaboost.js'
import { bagging } from './classifiers/bagging.js'
import { calibratedClassifier } from './classifiers/calibration.js'
import { dummyClassifier } from './classifiers/dummy.js'
import { forest } from './classifiers/forest.js'
import { gradientBoosting } from './classifiers/gradient-boosting.js'
import { histGradientBoosting } from './classifiers/hist-gradient-boosting.js'
import { kNeighborsClassifier } from './classifiers/k-neighbors.js'
import { lightgbmClassifier } from './classifiers/lightgbm.js'
import { linearClassifier } from './classifiers/linear.js'
import { mlpClassifier } from './classifiers/mlp.js'
import { oneVsOneClassifier, oneVsRestClassifier } from './classifiers/multiclass.js'
import { naiveBayes } from './classifiers/naive-bayes.js'
import { stackingClassifier } from './classifiers/stacking.js'
import { svcClassifier } from './classifiers/svc.js'
import { decisionTree } from './classifiers/tree.js'
import { votingClassifier } from './classifiers/voting.js'
import { xgboostClassifier } from './classifiers/xgboost.js'
import type { BuildContext, CheckContext, CreateContext, EstimatorModule, EstimatorState, Role, RuntimeOf } from './estimator.js'
import { describe, sklearnClass, unsupported } from './record.js'
import { textPipeline } from './pipeline.js'
import { Fields, shapeProblem } from './state-fields.js'
import { columnScale, normalizer } from './steps/scalers.js'
import { selectFromModel } from './steps/select-from-model.js'
import { truncatedSvd } from './steps/truncated-svd.js'
import { univariateSelection } from './steps/univariate-selection.js'
import { featureUnion } from './vectorizers/feature-union.js'
import { hashingVectorizer } from './vectorizers/hashing-vectorizer.js'
import { tfidfTransformer } from './vectorizers/tfidf-transformer.js'
import { vocabularyVectorizer } from './vectorizers/vocabulary-vectorizer.js'

const MODULES: readonly EstimatorModule[] = [
  vocabularyVectorizer,
  hashingVectorizer,
  featureUnion,
  textPipeline,
  tfidfTransformer,
  univariateSelection,
  selectFromModel,
  truncatedSvd,
  columnScale,
  normalizer,
  linearClassifier,
  naiveBayes,
  svcClassifier,
  kNeighborsClassifier,
  decisionTree,
  forest,
  dummyClassifier,
  gradientBoosting,
  histGradientBoosting,
  adaBoost,
  bagging,
  mlpClassifier,
  calibratedClassifier,
  votingClassifier,
  stackingClassifier,
  oneVsRestClassifier,
  oneVsOneClassifier,
  xgboostClassifier,
  lightgbmClassifier
]

/** Classes refused by name, with the reason a user needs. */
const REFUSED: ReadonlyMap<string, string> = new Map([
  ['RadiusNeighborsClassifier', 'RadiusNeighborsClassifier is not supported (KNeighborsClassifier on sparse rows is)'],
  ['ColumnTransformer', 'ColumnTransformer is not supported: it selects columns of a table, and tfidf-serve classifies text (use a FeatureUnion of vectorizers)']
])

const BY_NAME = new Map<string, EstimatorModule>()
const BY_TYPE = new Map<string, EstimatorModule>()

/**
 * Adds an estimator module to the table, as a line of MODULES does (a module kept outside
 * this list, such as a test's).
 * @throws AssertionError when its type or one of its class names is taken already.
 */
export function registerEstimator<S extends EstimatorState, R extends Role> (module: EstimatorModule<S, R>): void {
  assert(!BY_TYPE.has(module.type), `estimator module type ${module.type} is taken`)
  for (const name of module.names) assert(!BY_NAME.has(name), `estimator class ${name} has a module already`)
  BY_TYPE.set(module.type, module as unknown as EstimatorModule)
  for (const name of module.names) BY_NAME.set(name, module as unknown as EstimatorModule)
}

for (const module of MODULES) registerEstimator(module)

/** The class names served in a role, for messages and README. */
function supportedNames (role: Role): string[] {
  return [...BY_TYPE.values()].filter(m => m.role === role).flatMap(m => m.names)
}

/** Modules of other libraries whose estimators follow scikit-learn's API: served by class name too. */
const OTHER_LIBRARIES = /^(xgboost\.sklearn|lightgbm\.sklearn|lightgbm\.basic)$/

/** The class name of a record the table may serve: a scikit-learn class, or one of OTHER_LIBRARIES'. */
function estimatorClass (value: PyValue): string | undefined {
  return sklearnClass(value) ?? (value instanceof PyObject && OTHER_LIBRARIES.test(value.module) ? value.name : undefined)
}

/** The role a record's class plays, or undefined when it is not served. */
export function roleOf (value: PyValue): Role | undefined {
  const name = estimatorClass(value)
  return name === undefined ? undefined : BY_NAME.get(name)?.role
}

const ROLE_WORDS: Readonly<Record<Role, string>> = { vectorizer: 'vectorizer', step: 'pipeline step', classifier: 'classifier' }

const buildContext: BuildContext = { build: (role, value, where) => buildEstimator(role, value, where) }
const createContext: CreateContext = { create: (role, state) => createEstimator(role, state) }
const checkContext: CheckContext = { check: (role, value, where) => { checkEstimator(role, value, where) } }

/**
 * A record to the state of the estimator it holds, in `role`.
 * @param where names the place for messages, e.g. 'VotingClassifier.estimators_[1]'.
 * @throws ServiceError ERR_MODEL_UNSUPPORTED naming the class (and what is served), or
 * ERR_MODEL_SHAPE naming an attribute whose arrays do not fit.
 */
export function buildEstimator (role: Role, value: PyValue, where = ''): EstimatorState {
  const name = estimatorClass(value)
  const prefix = where === '' ? '' : `${where}: `
  const refused = name === undefined ? undefined : REFUSED.get(name)
  if (refused !== undefined) unsupported(prefix + refused)
  const module = name === undefined ? undefined : BY_NAME.get(name)
  if (module === undefined || module.role !== role) {
    return unsupported(`${prefix}${describe(value)} is not a supported ${ROLE_WORDS[role]} (${supportedNames(role).join(', ')})`)
  }
  const state = module.build(value as PyObject, buildContext)
  // Built states meet the check a compiled file's states meet: what serves from a pickle serves from its compiled file.
  checkEstimator(role, state, where === '' ? state.kind : where)
  return state
}

/** The working estimator for a state made by `buildEstimator`. */
export function createEstimator<R extends Role> (role: R, state: EstimatorState): RuntimeOf[R] {
  const module = BY_TYPE.get(state.type)
  assert(module !== undefined && module.role === role, `no ${role} module for state type ${state.type}`)
  return module.create(state, createContext) as RuntimeOf[R]
}

/**
 * Checks a state (read from a compiled file, say) as its module's `check` does, after its
 * `type` names a module of `role`.
 * @param where names the state's path for messages, e.g. 'state.classifier'.
 * @throws ServiceError ERR_MODEL_SHAPE naming the path of the first thing wrong.
 */
export function checkEstimator (role: Role, value: unknown, where: string): asserts value is EstimatorState {
  const f = new Fields(value, where)
  const type = f.string('type')
  f.string('kind')
  const found = BY_TYPE.get(type)
  if (found === undefined || found.role !== role) throw shapeProblem(where, `is a ${type.slice(0, 40)} state, which is not a ${role} a compiled file may carry`)
  const module: EstimatorModule = found
  module.check(value, where, checkContext)
}
