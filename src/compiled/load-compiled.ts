/**
 * A compiled model file to what the decoding thread hands the workers (the state, arrays in
 * shared memory, and the settings its load read), checked as the pickle path checks what it
 * decodes: the file's structure (read.ts), the model's state (check-model.ts), then the
 * predictor created once, which checks that the stages' widths agree and gives the model's
 * description. A compiled file carries no code: a model made with a functions module is served
 * with settings that name a module of the same SHA-256, read from disk now.
 */
import path from 'node:path'
import { ServiceError } from '../errors.js'
import { createAnyPredictor, type AnyModelState, type EnsemblePredictor } from '../model/ensemble.js'
import type { AppSource } from '../model/served-model.js'
import { loadUserFunctions, readFunctionsModule, type FunctionsModule } from '../preprocess/user-functions.js'
import { readModelSettings } from '../settings/model-settings.js'
import type { ModelInfo, TextClassifier } from '../sklearn/predictor.js'
import { appsOf, checkModelState, checkNotes } from './check-model.js'
import type { CompiledHeader } from './format.js'
import { readCompiledFile } from './read.js'

export interface LoadedCompiled {
  readonly state: AnyModelState
  readonly app: AppSource | null
  readonly info: ModelInfo
  readonly notes: readonly string[]
  /** Bytes of shared memory the arrays take. */
  readonly bytes: number
  readonly header: CompiledHeader
  readonly predictor: TextClassifier | EnsemblePredictor
}

/**
 * The functions module the serving settings name, when the compiled model needs one: it must
 * be the module the model was compiled with (same SHA-256).
 */
function servedFunctions (apps: ReadonlyArray<AppSource | null>, settingsFile: string | null, file: string): FunctionsModule | null {
  const needed = apps.find(a => a?.functions != null)?.functions
  if (needed == null) return null
  const named = settingsFile === null ? null : readModelSettings(settingsFile).functions
  const module = named === null ? null : readFunctionsModule(named)
  for (const app of apps) {
    if (app?.functions == null) continue
    if (module === null) throw new ServiceError('ERR_CONFIG_INVALID', `the compiled model was made with the functions module ${path.basename(app.functions.file)}, and a compiled file carries no code: serve it with settings that name that module ("functions")`, { file })
    if (module.sha256 !== app.functions.sha256) throw new ServiceError('ERR_CONFIG_INVALID', `the functions module ${module.file} is not the one the model was compiled with (SHA-256 ${module.sha256.slice(0, 12)}, compiled with ${app.functions.sha256.slice(0, 12)}): compile the model again`, { file })
  }
  return module
}

/** `app` with its functions module replaced by the one read from disk now. */
function withModule (app: AppSource | null, module: FunctionsModule | null): AppSource | null {
  return app === null || app.functions === null ? app : { ...app, functions: module }
}

/** The tree's state with each ensemble member's settings given the module read now. */
function rewired (state: AnyModelState, module: FunctionsModule | null): AnyModelState {
  if (!('ensemble' in state)) return state
  return { ensemble: { ...state.ensemble, members: state.ensemble.members.map(m => ({ ...m, app: withModule(m.app, module) })) } }
}

/**
 * Reads, checks and creates a compiled model.
 * @param settingsFile the serving settings (they name the functions module, if the model needs one).
 * @throws ServiceError naming the file and the first thing wrong with it.
 */
export async function loadCompiledModel (file: string, settingsFile: string | null): Promise<LoadedCompiled> {
  return (await load(file, settingsFile, true))!
}

/**
 * loadCompiledModel, or null, before any of it is checked further, when the model was made with
 * a functions module: for a thread that must import no user code (the service's front thread).
 * @throws ServiceError as loadCompiledModel, for what it finds before that.
 */
export async function loadCompiledModelWithoutCode (file: string, settingsFile: string | null): Promise<LoadedCompiled | null> {
  return await load(file, settingsFile, false)
}

async function load (file: string, settingsFile: string | null, code: boolean): Promise<LoadedCompiled | null> {
  try {
    const compiled = readCompiledFile(file)
    const notes = checkNotes(compiled.tree.notes)
    const apps = appsOf(compiled.tree.state, compiled.tree.app)
    if (!code && apps.some(a => a?.functions != null)) return null
    const module = servedFunctions(apps, settingsFile, file)
    const functions = module === null ? null : await loadUserFunctions(module)
    const app = withModule(apps[0] ?? null, module)
    const checked = checkModelState(compiled.tree.state, app, a => a?.functions == null ? null : functions)
    const state = rewired(checked, module)
    const predictor = await createAnyPredictor(state, 'ensemble' in state ? null : app)
    return { state, app: 'ensemble' in state ? null : app, info: predictor.info, notes, bytes: compiled.bytes, header: compiled.header, predictor }
  } catch (err) {
    if (err instanceof ServiceError) throw err.withFile(file)
    // A bug of ours that a strange file reached still fails as one line naming the file.
    throw new ServiceError('ERR_MODEL_READ', `damaged compiled model: unexpected ${(err as Error).name ?? 'error'} while reading it: ${String((err as Error).message ?? err).slice(0, 200)}`, { file, cause: err })
  }
}
