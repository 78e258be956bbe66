import path from 'node:path'
import { PROJECT_ROOT } from './layout.js'
import { readModelSettings, settingsBeside } from './settings/model-settings.js'

/** The model shipped in models/, the default everywhere (docs/http-api.md, "Settings"). */
export const DEFAULT_MODEL_PATH = path.join(PROJECT_ROOT, 'models', 'final_best_model.pkl')
export const DEFAULT_VECTORIZER_PATH = path.join(PROJECT_ROOT, 'models', 'tfidf_vectorizer.pkl')

/**
 * MODEL_PATH, VECTORIZER_PATH and MODEL_SETTINGS as the service reads them: relative paths
 * against `cwd`, VECTORIZER_PATH a list split on the platform's path delimiter, an empty
 * variable counting as unset. The settings file is MODEL_SETTINGS, else a
 * `model-settings.json` beside MODEL_PATH; with no MODEL_PATH, the model is the one the
 * settings name, else the shipped model. Cheap enough to start decoding the model before
 * the rest of the configuration is even read.
 * @throws ServiceError ERR_CONFIG_INVALID when a settings file that names the model is bad.
 */
export function modelPathsFromEnv (env: NodeJS.ProcessEnv, cwd: string = process.cwd()): { modelPath: string, vectorizerPaths: string[], settingsFile: string | null } {
  const model = env.MODEL_PATH === '' ? undefined : env.MODEL_PATH
  const vectorizers = env.VECTORIZER_PATH === '' ? undefined : env.VECTORIZER_PATH
  const settingsEnv = env.MODEL_SETTINGS === '' ? undefined : env.MODEL_SETTINGS
  const modelPath = model === undefined ? undefined : path.resolve(cwd, model)
  const settingsFile = settingsEnv !== undefined ? path.resolve(cwd, settingsEnv) : modelPath === undefined ? null : settingsBeside(modelPath) ?? null
  const vectorizerPaths = vectorizers?.split(path.delimiter).filter(p => p !== '').map(p => path.resolve(cwd, p))
  if (modelPath !== undefined) return { modelPath, vectorizerPaths: vectorizerPaths ?? [], settingsFile }
  const named = settingsFile === null ? null : readModelSettings(settingsFile)
  if (named?.model != null) return { modelPath: named.model, vectorizerPaths: vectorizerPaths ?? [...named.vectorizers], settingsFile }
  return { modelPath: DEFAULT_MODEL_PATH, vectorizerPaths: vectorizerPaths ?? [DEFAULT_VECTORIZER_PATH], settingsFile }
}
