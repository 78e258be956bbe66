/**
 * Model files to a Predictor: a classifier file with its vectorizer file(s), or one file
 * holding everything (a Pipeline, or a tuple, list or dict bundle, as notebooks save).
 *
 * Decoding (files -> ModelState: plain data and typed arrays) is separate from creating
 * (ModelState -> Predictor), so a model decoded once can be created anywhere.
 */
import { ServiceError } from '../errors.js'
import { readPickleFile, type ReadPickleOptions } from '../pickle/read-pickle-file.js'
import { summarize } from '../pickle/summarize.js'
import { findInValue } from '../pickle/value-walk.js'
import { NdArray } from '../pickle/numpy.js'
import { PyObject, PyTuple, type PyValue } from '../pickle/values.js'
import type { RefusedGlobal } from '../pickle/unresolved.js'
import { appendColumns, rememberLast, widthMismatch, type AppColumnsSpec } from './app-columns.js'
import type { EstimatorState, Role, Step, Vectorizer } from './estimator.js'
import { notFitted } from './fitted.js'
import { chainSteps, isPipeline, pipelineSteps } from './pipeline.js'
import { TextClassifier, type ModelInfo } from './predictor.js'
import { describe, sklearnClass, unsupported } from './record.js'
import { denseRowsHint, denseRowsState } from './classifiers/xgboost.js'
import { buildEstimator, createEstimator, roleOf } from './registry.js'
import { refuseUsedGlobals } from './refused-globals.js'
import { bestEstimator, isSearch, searchInfo, type SearchInfo } from './search.js'
import { describeNltkObject } from './text/nltk-state.js'
import { currentUserFunctions, stepFunction, withUserFunctions, type StateReviver, type UserFunctions } from './text/user-callables.js'

export interface ModelPaths {
  /** The classifier, a Pipeline, or a bundle holding vectorizer and classifier. */
  readonly model: string
  /** Vectorizer file(s), in pipeline order (e.g. CountVectorizer then TfidfTransformer); unused when the model holds one. */
  readonly vectorizers?: readonly string[]
}

/**
 * A Pipeline step of the app's own class before the vectorizer (`__main__.TextClean`): its
 * Python name and the pickled instance's state as plain data, given to the JavaScript port's
 * factory.
 */
export interface UserTextStep {
  readonly name: string
  readonly state: unknown
}

/** A whole model as plain data: what `createPredictor` needs, and nothing that cannot be cloned. */
export interface ModelState {
  /** Steps of the app's own classes that clean each text before the vectorizer, in order. */
  readonly textSteps: readonly UserTextStep[]
  readonly vectorizer: EstimatorState
  readonly steps: readonly EstimatorState[]
  readonly classifier: EstimatorState
  /** The scikit-learn version each file was written by (`_sklearn_version`), by file. */
  readonly sklearnVersions: Readonly<Record<string, string>>
  /** The search object (GridSearchCV, ...) whose best_estimator_ is the model, if one wrapped it. */
  readonly search?: SearchInfo
  /**
   * How many of `steps`, the last ones, the model file holds before its classifier when the
   * vectorizer came from files of its own: an app that appended its own columns to the
   * vectorizer's row (hstack) ran these after them. Absent for none.
   */
  readonly modelFileSteps?: number
}

export interface LoadedModel {
  readonly predictor: TextClassifier
  /** Things worth a log line, e.g. that the vectorizer path was ignored. */
  readonly notes: readonly string[]
}

/** How a model is read and created beyond its files: the app's functions, and the text cleaning declared for it. */
export interface ModelOptions extends ReadPickleOptions {
  /** The app's own Python functions and classes, ported, by Python name. */
  readonly functions?: UserFunctions | null
  /** The declared preprocessing (settings), run on each text before everything else. */
  readonly prepare?: ((text: string) => string) | null
  /** The app's names for the classes, in class order (its settings). */
  readonly labels?: readonly string[] | null
  /** Columns the app appended to the vectorizer's row (its settings), in hstack order. */
  readonly columns?: readonly AppColumnsSpec[] | null
  /** What a step class's pickled state (plain data) becomes for its port: library objects made live. */
  readonly reviveState?: StateReviver | null
  /** The app feeds its classifier dense rows (`.toarray()`; its settings' `dense_rows`): XGBClassifier only. */
  readonly denseRows?: boolean
}

/** A record of one of the app's own classes (never a library's): a Pipeline step the functions module ports. */
function isUserStep (value: PyValue): value is PyObject {
  const functions = currentUserFunctions()
  return value instanceof PyObject && sklearnClass(value) === undefined && functions !== null && functions.has(value.qualifiedName)
}

/**
 * A value's estimators in pipeline order, Pipelines flattened and searches replaced by their
 * best_estimator_ (each search met is added to `searches`); bundles give every estimator they hold.
 */
function stagesOf (value: PyValue, searches: PyObject[] = []): PyValue[] {
  if (isSearch(value)) {
    searches.push(value)
    return stagesOf(bestEstimator(value), searches)
  }
  if (isPipeline(value)) return pipelineSteps(value).flatMap(v => stagesOf(v, searches))
  if (value instanceof PyObject) return [value]
  const items = value instanceof PyTuple ? [...value.items] : Array.isArray(value) ? value : value instanceof Map ? [...value.values()] : []
  return items.filter(item => item instanceof PyObject).flatMap(v => stagesOf(v, searches))
}

/** A top-level stage's state; one that fails because it was saved unfitted says so. */
function buildStage (role: Role, value: PyValue, where?: string): EstimatorState {
  try {
    return buildEstimator(role, value, where)
  } catch (err) {
    throw (err instanceof ServiceError ? notFitted(role, value, err) : undefined) ?? err
  }
}

/** Splits stages into the text side (vectorizer and steps) and the one classifier. */
function split (stages: PyValue[]): { text: PyValue[], classifier: PyValue | undefined } {
  const text = stages.filter(s => roleOf(s) === 'vectorizer' || roleOf(s) === 'step' || isUserStep(s))
  const others = stages.filter(s => !text.includes(s))
  if (others.length > 1) unsupported(`the file holds ${others.length} estimators that are not vectorizers or pipeline steps (${others.map(describe).join(', ')}); keep one classifier`)
  return { text, classifier: others[0] }
}

/** The first `_sklearn_version` found, looking inside bundles and Pipelines, not inside other estimators. */
function versionOf (value: PyValue): string | undefined {
  return findInValue(value,
    v => { const version = v instanceof PyObject ? v.get('_sklearn_version') : undefined; return typeof version === 'string' ? version : undefined },
    v => !(v instanceof PyObject) || isPipeline(v))
}

/**
 * Runs `build` on values read from `file`: a ServiceError gets the file's name, and
 * anything else (a bug of ours that a strange file reached) still fails as one line naming
 * the file, never as a stack trace; the original error stays as its cause.
 */
function inFile<T> (file: string, build: () => T): T {
  try {
    return build()
  } catch (err) {
    if (err instanceof ServiceError) throw err.withFile(file)
    const { name, message } = err instanceof Error ? err : { name: 'error', message: summarize(err) }
    throw new ServiceError('ERR_MODEL_UNSUPPORTED', `unexpected ${name} while reading the model: ${summarize(message)}`, { file, cause: err })
  }
}

/** A user step's pickled state as plain data: dicts as objects, tuples and arrays as lists. */
function plainData (value: PyValue, where: string): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : unsupported(`${where} holds the integer ${value}, too big for JavaScript`)
  if (Array.isArray(value) || value instanceof PyTuple) return (Array.isArray(value) ? value : value.items).map((v, i) => plainData(v, `${where}[${i}]`))
  if (value instanceof Set) return [...value].map((v, i) => plainData(v, `${where}[${i}]`))
  if (value instanceof Map) {
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>
    for (const [k, v] of value) {
      if (typeof k !== 'string') unsupported(`${where} has the key ${describe(k)}; only string keys can be handed to JavaScript`)
      out[k] = plainData(v, `${where}.${k}`)
    }
    return out
  }
  if (value instanceof NdArray && Array.isArray(value.data)) return value.data.map((v, i) => plainData(v, `${where}[${i}]`))
  if (value instanceof NdArray && ArrayBuffer.isView(value.data)) return Array.from(value.data as ArrayLike<number>, Number)
  const nltk = describeNltkObject(value, where)
  if (nltk !== undefined) return nltk
  return unsupported(`${where} holds ${describe(value)}, which cannot be handed to JavaScript as data`)
}

/** The text-side stages as the app's own steps, one vectorizer state and the step states after it. */
function buildTextSide (stages: readonly PyValue[]): { textSteps: UserTextStep[], vectorizer: EstimatorState, steps: EstimatorState[] } {
  const firstOther = stages.findIndex(s => !isUserStep(s))
  const leading = firstOther < 0 ? stages : stages.slice(0, firstOther)
  const [first, ...rest] = firstOther < 0 ? [] : stages.slice(firstOther)
  if (roleOf(first) !== 'vectorizer') {
    return unsupported(first === undefined ? 'no vectorizer found' : `${describe(first)} cannot come first: the first stage must be a vectorizer`)
  }
  const late = rest.find(isUserStep)
  if (late !== undefined) unsupported(`${late.qualifiedName} comes after the vectorizer: steps of the app's own classes are served only before it, on text`)
  const textSteps = (leading as PyObject[]).map(s => ({ name: s.qualifiedName, state: plainData(s.state ?? null, s.qualifiedName) }))
  // Made once here so a factory that fails on its state fails the load.
  for (const step of textSteps) stepFunction(currentUserFunctions(), step.name, `the Pipeline step ${step.name}`, step.state)
  return { textSteps, vectorizer: buildStage('vectorizer', first), steps: rest.map(s => buildStage('step', s, 'Pipeline step')) }
}

/**
 * Reads and checks model files into a ModelState.
 * @throws ServiceError naming the file and the problem: unreadable, refused global,
 * unsupported estimator, or arrays that do not fit together.
 */
export async function decodeModel (paths: ModelPaths, options: ModelOptions = {}): Promise<{ state: ModelState, info: ModelInfo, notes: string[] }> {
  const { state, predictor, notes } = await decode(paths, options)
  return { state, info: predictor.info, notes }
}

/** A decoded file and its name, for messages. */
export interface FileValue {
  readonly file: string
  readonly value: PyValue
}

/** Decodes and creates once: the predictor made to check the feature counts is kept. */
async function decode (paths: ModelPaths, options: ModelOptions): Promise<{ state: ModelState, predictor: TextClassifier, notes: string[] }> {
  const { functions = null, prepare = null, columns = null, reviveState = null, denseRows = false, ...readOptions } = options
  // The app's own globals are allowed only when its functions module ports them.
  const read = { ...readOptions, userGlobals: new Set(functions?.keys() ?? []) }
  // Globals the allow-list refuses are deferred, then refused unless only inert parts hold them.
  const readChecked = async (file: string): Promise<FileValue> => {
    const refused: RefusedGlobal[] = []
    const value = await readPickleFile(file, { ...read, onRefusedGlobal: g => { refused.push(g) } })
    inFile(file, () => refuseUsedGlobals(value, refused))
    return { file, value }
  }
  const model = await readChecked(paths.model)
  const vectorizers: FileValue[] = []
  // Vectorizer files are read only when the model holds no vectorizer of its own.
  if (!withUserFunctions(functions, () => inFile(model.file, () => split(stagesOf(model.value)))).text.some(s => roleOf(s) === 'vectorizer')) {
    for (const file of paths.vectorizers ?? []) vectorizers.push(await readChecked(file))
  }
  return decodeValues(model, vectorizers, paths.vectorizers ?? [], { functions, prepare, columns, reviveState, denseRows })
}

/**
 * Checks and builds decoded values into a ModelState and its predictor.
 * @throws ServiceError naming the file and the problem.
 */
export function decodeValues (model: FileValue, vectorizers: readonly FileValue[], vectorizerPaths: readonly string[] = vectorizers.map(v => v.file), options: ModelOptions = {}): { state: ModelState, predictor: TextClassifier, notes: string[] } {
  return withUserFunctions(options.functions ?? null, () => decodeWith(model, vectorizers, vectorizerPaths, options), options.reviveState ?? null)
}

function decodeWith (model: FileValue, vectorizers: readonly FileValue[], vectorizerPaths: readonly string[], options: ModelOptions): { state: ModelState, predictor: TextClassifier, notes: string[] } {
  const notes: string[] = []
  const versions: Record<string, string> = {}
  const modelVersion = inFile(model.file, () => versionOf(model.value))
  if (modelVersion !== undefined) versions[model.file] = modelVersion
  const searches: PyObject[] = []
  const parts = inFile(model.file, () => split(stagesOf(model.value, searches)))
  if (parts.classifier === undefined) {
    throw new ServiceError('ERR_MODEL_UNSUPPORTED', `no classifier found (the file holds ${describe(model.value)})`, { file: model.file })
  }
  let textStages = parts.text
  let textFile = model.file
  let modelFileSteps = 0
  if (parts.text.some(s => roleOf(s) === 'vectorizer')) {
    if (vectorizerPaths.length > 0) notes.push(`${model.file} holds its own vectorizer; ignoring ${vectorizerPaths.join(', ')}`)
  } else {
    if (vectorizers.length === 0) throw new ServiceError('ERR_MODEL_UNSUPPORTED', 'the model holds no vectorizer and no vectorizer file was given', { file: model.file })
    const fromFiles: PyValue[] = []
    for (const { file, value } of vectorizers) {
      const v = inFile(file, () => versionOf(value))
      if (v !== undefined) versions[file] = v
      const found = inFile(file, () => split(stagesOf(value)))
      if (found.text.length === 0) throw new ServiceError('ERR_MODEL_UNSUPPORTED', `no vectorizer found (the file holds ${describe(value)})`, { file })
      fromFiles.push(...found.text)
    }
    textStages = [...fromFiles, ...parts.text]
    textFile = vectorizers[0]!.file
    modelFileSteps = parts.text.length
  }
  const text = inFile(textFile, () => buildTextSide(textStages))
  const classifier = inFile(model.file, () => buildStage('classifier', parts.classifier))
  const hint = options.denseRows === true ? undefined : denseRowsHint(classifier)
  if (hint !== undefined) notes.push(hint)
  const search = searches.length === 0 ? {} : { search: inFile(model.file, () => searchInfo(searches[0]!)) }
  const state: ModelState = { ...text, classifier, sklearnVersions: versions, ...search, ...(modelFileSteps > 0 ? { modelFileSteps } : {}) }
  const predictor = inFile(model.file, () => createPredictor(state, options)) // checks that the feature counts agree
  return { state, predictor, notes }
}

/**
 * The working predictor for a decoded model.
 * @throws ServiceError ERR_MODEL_SHAPE when a stage's output width differs from what the next expects.
 */
export function createPredictor (state: ModelState, options: ModelOptions = {}): TextClassifier {
  return withUserFunctions(options.functions ?? null, () => create(state, options.prepare ?? null, options.labels ?? null, options.columns ?? [], options.denseRows ?? false), options.reviveState ?? null)
}

/**
 * The classifier's state as the app feeds it: with `dense_rows`, an XGBClassifier's absent
 * features are zeros. Any other classifier reads an absent feature as 0 already, so the
 * setting would change nothing there and is refused as a sign of the wrong model or settings.
 */
function fedState (classifier: EstimatorState, denseRows: boolean): EstimatorState {
  if (!denseRows) return classifier
  const dense = denseRowsState(classifier)
  if (dense !== undefined) return dense
  throw new ServiceError('ERR_CONFIG_INVALID', `invalid model settings: dense_rows is for an XGBClassifier (where a dense row's 0 is a value and a sparse row's absent feature is missing); the classifier is ${classifier.kind}, which reads both the same: drop "dense_rows"`)
}

function create (state: ModelState, prepare: ((text: string) => string) | null, labels: readonly string[] | null, columns: readonly AppColumnsSpec[], denseRows: boolean): TextClassifier {
  const vectorizer = createEstimator('vectorizer', state.vectorizer)
  const steps = state.steps.map(s => createEstimator('step', s))
  const classifier = createEstimator('classifier', fedState(state.classifier, denseRows))
  const ownSteps = state.textSteps.map(s => stepFunction(currentUserFunctions(), s.name, `the Pipeline step ${s.name}`, s.state))
  // The app's columns go where its hstack was: after the vectorizer files' steps, before the model file's.
  const cut = columns.length === 0 ? steps.length : steps.length - (state.modelFileSteps ?? 0)
  const side = chainSteps(vectorizer, steps.slice(0, cut))
  const text = columns.length === 0 ? withCleaning(side, prepare, ownSteps) : withColumns(withCleaning(side, prepare === null ? null : rememberLast(prepare), ownSteps), columns, steps.slice(cut))
  // -1: a classifier that takes any width (a DummyClassifier written before 1.6).
  if (classifier.nFeatures >= 0 && classifier.nFeatures !== text.nFeatures) {
    const last = cut === 0 ? `the vectorizer (${vectorizer.kind})` : steps[cut - 1]!.kind
    throw cut === steps.length ? widthMismatch(last, side.nFeatures, columns, classifier.nFeatures) : shapeErrorAfterColumns(steps[steps.length - 1]!.kind, text.nFeatures, classifier.nFeatures)
  }
  // A TfidfTransformer right after the vectorizer is shown as part of it ('CountVectorizer + TfidfTransformer').
  const leadingTfidf = steps[0]?.kind === 'TfidfTransformer' ? 1 : 0
  return new TextClassifier(text, classifier, {
    vectorizer: [vectorizer, ...steps.slice(0, leadingTfidf)].map(s => s.kind).join(' + '),
    steps: steps.slice(leadingTfidf).map(s => s.kind),
    nFeatures: vectorizer.nFeatures,
    vectorizerParams: { ...vectorizer.params, ...(leadingTfidf === 1 ? steps[0]!.params : {}) },
    sklearnVersions: state.sklearnVersions,
    ...(state.search === undefined ? {} : { search: state.search })
  }, labels)
}

/**
 * The text side with the cleaning before it: the declared steps (what the app did before
 * calling the model: `clean`, what `verify` compares with the app's "fed" text), then the
 * app's own Pipeline step classes.
 */
function withCleaning (text: Vectorizer, prepare: ((text: string) => string) | null, ownSteps: ReadonlyArray<(text: string) => string>): Vectorizer {
  if (prepare === null && ownSteps.length === 0) return text
  const clean = prepare ?? ((t: string): string => t)
  const inPipeline = (t: string): string => ownSteps.reduce((x, f) => f(x), t)
  return { ...text, transform: (t, coverage) => text.transform(inPipeline(clean(t)), coverage), ...(prepare === null ? {} : { clean }) }
}

/** `text` (cleaning included) with the app's columns after its row, then the steps the model file holds (kept: `clean`). */
function withColumns (text: Vectorizer, columns: readonly AppColumnsSpec[], after: readonly Step[]): Vectorizer {
  const widened = appendColumns(text, columns, currentUserFunctions())
  if (after.length === 0) return widened
  const chained = chainSteps(widened, after)
  return widened.clean === undefined ? chained : { ...chained, clean: widened.clean }
}

function shapeErrorAfterColumns (last: string, width: number, expected: number): ServiceError {
  return new ServiceError('ERR_MODEL_SHAPE', `${last} has ${width} features but the classifier expects ${expected}`)
}

/** Loads, checks and creates a model in one call. */
export async function loadModel (paths: ModelPaths, options: ModelOptions = {}): Promise<LoadedModel> {
  const { predictor, notes } = await decode(paths, options)
  return { predictor, notes }
}
