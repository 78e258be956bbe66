/**
 * A model as the app served it: its files, decoded and created by the sklearn layer, with
 * what its settings declare around them: the app's own functions (ported), the text
 * cleaning before the vectorizer, and the names of its classes. The same three calls serve
 * the thread that decodes a model, the workers that create it, and the CLI.
 */
import { readFileSync } from 'node:fs'
import { ServiceError } from '../errors.js'
import { readPickleFile } from '../pickle/read-pickle-file.js'
import type { reviveNltkObjects } from '../preprocess/nltk-objects.js'
import { loadUserFunctions, readFunctionsModule, type FunctionsModule, type UserFunctions } from '../preprocess/user-functions.js'
import { readModelSettings, type LabelSource, type ModelSettings } from '../settings/model-settings.js'
import { createPredictor, decodeModel, loadModel, type LoadedModel, type ModelPaths, type ModelState } from '../sklearn/load-model.js'
import type { ModelInfo } from '../sklearn/predictor.js'
import { pyStr } from '../sklearn/python-repr.js'
import { NdArray } from '../pickle/numpy.js'
import { PyObject } from '../pickle/values.js'
import { summarize } from '../pickle/summarize.js'
import { readStepData, type StepData } from '../preprocess/word-data/step-data.js'

/** A model's files and its settings file (or none). */
export interface ServedModelSpec {
  readonly paths: ModelPaths
  readonly settingsFile: string | null
  /** Label names that replace the settings' (the CLI's --labels). */
  readonly labels?: LabelSource | null
}

/** The model's state with the names the app gives its classes, when its settings name them. */
export interface ServedModelState extends ModelState {
  readonly labels: readonly string[] | null
}

interface AppParts {
  readonly settings: ModelSettings | null
  readonly functions: UserFunctions | null
  readonly prepare: ((text: string) => string) | null
  readonly columns: ModelSettings['columns']
  /** NLTK stemmers in a step class's state, handed to its port as the built-in ones. */
  readonly reviveState: typeof reviveNltkObjects | null
  readonly denseRows: boolean
}

/**
 * A model's settings and functions module as its load read them, once: the decoding thread
 * reads them and every worker serving that load builds from these (plain data), never from
 * the files, which may have changed since.
 */
export interface AppSource {
  readonly settings: ModelSettings
  readonly functions: FunctionsModule | null
  /** What the declared steps read (NLTK's and Sastrawi's lists), read once by this load; a compiled model carries it. */
  readonly data: StepData
}

/**
 * Reads a model's settings file, the functions module it names and the data its steps read
 * (where the app's installation keeps it), or null for no settings.
 * @throws ServiceError ERR_CONFIG_INVALID naming the settings file, the step and what is missing.
 */
export function readAppSource (settingsFile: string | null): AppSource | null {
  if (settingsFile === null) return null
  const settings = readModelSettings(settingsFile)
  let data: StepData
  try {
    data = readStepData(settings.preprocess, settings)
  } catch (err) {
    throw new ServiceError('ERR_CONFIG_INVALID', `invalid model settings: ${err instanceof Error ? err.message : String(err)}`, { file: settings.file })
  }
  return { settings, functions: settings.functions === null ? null : readFunctionsModule(settings.functions), data }
}

async function appParts (source: AppSource | null): Promise<AppParts> {
  if (source === null) return { settings: null, functions: null, prepare: null, columns: [], reviveState: null, denseRows: false }
  // The steps' code (stemmers, tokenizers, word lists, NLTK's objects) is loaded only for a
  // model whose settings may use it: the decoding thread and the workers of any other skip it.
  const [{ compilePreprocess }, { reviveNltkObjects }] = await Promise.all([import('../preprocess/compile-steps.js'), import('../preprocess/nltk-objects.js')])
  const { settings } = source
  const functions = source.functions === null ? null : await loadUserFunctions(source.functions)
  return { settings, functions, prepare: compilePreprocess(settings.preprocess, functions, settings.file, source.data), columns: settings.columns, reviveState: reviveNltkObjects, denseRows: settings.denseRows }
}

/** The classes of a LabelEncoder file, as Python prints them. */
async function encoderClasses (file: string): Promise<string[]> {
  const value = await readPickleFile(file)
  const classes = value instanceof PyObject && value.name === 'LabelEncoder' ? value.get('classes_') : undefined
  if (!(classes instanceof NdArray) || classes.shape.length !== 1) {
    throw new ServiceError('ERR_CONFIG_INVALID', `invalid model settings: the labels file holds ${summarize(value)}, not a fitted LabelEncoder`, { file })
  }
  const isFloat = classes.dtype.kind === 'f'
  return Array.from({ length: classes.shape[0]! }, (_, i) => pyStr(Array.isArray(classes.data) ? classes.data[i] : (classes.data as ArrayLike<number | bigint>)[i], isFloat))
}

/**
 * The app's names for `classes` (as Python prints them), in class order.
 * @throws ServiceError ERR_CONFIG_INVALID naming the file when they do not fit the model.
 */
export async function appLabels (source: LabelSource, classes: readonly string[], file: string): Promise<string[]> {
  if ('file' in source) {
    // The model predicts the encoded classes 0..n-1; the encoder maps them back.
    const names = await encoderClasses(source.file)
    return classes.map(c => {
      const k = Number(c)
      if (!Number.isInteger(k) || String(k) !== c || k < 0 || k >= names.length) {
        throw new ServiceError('ERR_CONFIG_INVALID', `invalid model settings: the model's class ${c} is not one of the LabelEncoder's codes 0..${names.length - 1}`, { file: source.file })
      }
      return names[k]!
    })
  }
  const unknown = Object.keys(source.map).filter(k => !classes.includes(k))
  if (unknown.length > 0) {
    throw new ServiceError('ERR_CONFIG_INVALID', `invalid model settings: labels names ${unknown.map(k => JSON.stringify(k)).join(', ')}, not classes of the model (${classes.join(', ')})`, { file })
  }
  return classes.map(c => Object.hasOwn(source.map, c) ? source.map[c]! : c)
}

/**
 * Reads, checks and decodes a model with its settings (the thread that decodes).
 * @throws ServiceError naming the file and the problem, the settings file included.
 */
export async function decodeServedModel (spec: ServedModelSpec): Promise<{ state: ServedModelState, info: ModelInfo, notes: string[], app: AppSource | null }> {
  const app = readAppSource(spec.settingsFile)
  const { settings, functions, prepare, columns, reviveState, denseRows } = await appParts(app)
  const { state, info, notes } = await decodeModel(spec.paths, { functions, prepare, columns, reviveState, denseRows })
  const source = spec.labels ?? settings?.labels ?? null
  const labels = source === null ? null : await appLabels(source, info.classes, settings?.file ?? ('file' in source ? source.file : 'labels'))
  return { state: { ...state, labels }, info: labels === null ? info : { ...info, classes: labels }, notes, app }
}

/** The working predictor of a decoded model (a worker), with the app's functions and cleaning as its load read them. */
export async function createServedPredictor (state: ServedModelState, app: AppSource | null): Promise<ReturnType<typeof createPredictor>> {
  const { functions, prepare, columns, reviveState, denseRows } = await appParts(app)
  return createPredictor(state, { functions, prepare, labels: state.labels, columns, reviveState, denseRows })
}

/** Loads a model with its settings in this thread (the CLI). */
export async function loadServedModel (spec: ServedModelSpec): Promise<LoadedModel> {
  const { settings, functions, prepare, columns, reviveState, denseRows } = await appParts(readAppSource(spec.settingsFile))
  const loaded = await loadModel(spec.paths, { functions, prepare, columns, reviveState, denseRows })
  const source = spec.labels ?? settings?.labels ?? null
  if (source === null) return loaded
  const names = await appLabels(source, loaded.predictor.classes, settings?.file ?? ('file' in source ? source.file : 'labels'))
  return { ...loaded, predictor: loaded.predictor.withLabels(names) }
}

/**
 * Label names from a file given on the command line: a LabelEncoder pickle, or a JSON
 * object mapping the classes as Python prints them to names.
 * @throws ServiceError ERR_CONFIG_INVALID naming the file.
 */
export function labelSourceOf (file: string): LabelSource {
  if (!/\.json$/i.test(file)) return { file }
  let map: unknown
  try {
    map = JSON.parse(readFileSync(file, 'utf8'))
  } catch (err) {
    throw new ServiceError('ERR_CONFIG_INVALID', `labels file: ${(err as Error).message}`, { file })
  }
  if (map === null || typeof map !== 'object' || Array.isArray(map) || Object.values(map).some(v => typeof v !== 'string')) {
    throw new ServiceError('ERR_CONFIG_INVALID', 'labels file must hold one JSON object mapping classes to names', { file })
  }
  return { map: map as Record<string, string> }
}
