import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The project root (this file runs as dist/src/paths.js). */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** The model shipped in models/, the default everywhere (DECISIONS.md 24). */
export const DEFAULT_MODEL_PATH = path.join(PROJECT_ROOT, 'models', 'final_best_model.pkl')
export const DEFAULT_VECTORIZER_PATH = path.join(PROJECT_ROOT, 'models', 'tfidf_vectorizer.pkl')
