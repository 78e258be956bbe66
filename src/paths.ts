import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The project root (this file runs as dist/src/paths.js). */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** The model shipped in models/, the default everywhere (DECISIONS.md 24). */
export const DEFAULT_MODEL_PATH = path.join(PROJECT_ROOT, 'models', 'final_best_model.pkl')
export const DEFAULT_VECTORIZER_PATH = path.join(PROJECT_ROOT, 'models', 'tfidf_vectorizer.pkl')

/**
 * MODEL_PATH and VECTORIZER_PATH as the service reads them: relative paths against `cwd`,
 * VECTORIZER_PATH a list split on the platform's path delimiter, the shipped model when
 * MODEL_PATH is unset, an empty variable counting as unset. No validation: cheap enough to
 * start decoding the model before the rest of the configuration is even read.
 */
export function modelPathsFromEnv (env: NodeJS.ProcessEnv, cwd: string = process.cwd()): { modelPath: string, vectorizerPaths: string[] } {
  const model = env.MODEL_PATH === '' ? undefined : env.MODEL_PATH
  const vectorizers = env.VECTORIZER_PATH === '' ? undefined : env.VECTORIZER_PATH
  return {
    modelPath: model === undefined ? DEFAULT_MODEL_PATH : path.resolve(cwd, model),
    vectorizerPaths: vectorizers !== undefined
      ? vectorizers.split(path.delimiter).filter(p => p !== '').map(p => path.resolve(cwd, p))
      : (model === undefined ? [DEFAULT_VECTORIZER_PATH] : [])
  }
}
