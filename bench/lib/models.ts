/**
 * The bench's models: the default one shipped in models/, and two written by
 * bench/models/make_models.py with /usr/bin/python3 on first use (a unigram model of 17,000
 * features and a 1-2-gram model of 200,000, 3 classes each, as in issue 10's measurements).
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { ROOT } from './corpus.js'

export const PYTHON = '/usr/bin/python3'

export interface ModelDir {
  readonly name: 'default' | 'unigram' | 'large'
  readonly dir: string
  readonly description: string
}

export function modelFiles (m: Pick<ModelDir, 'dir'>): { model: string, vectorizer: string } {
  return { model: path.join(m.dir, 'final_best_model.pkl'), vectorizer: path.join(m.dir, 'tfidf_vectorizer.pkl') }
}

export function hasPython (modules: readonly string[]): boolean {
  try {
    execFileSync(PYTHON, ['-c', `import ${modules.join(', ')}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

const GENERATED = [
  { name: 'unigram', description: '17,000 unigram features, 3 classes' },
  { name: 'large', description: '200,000 1-2-gram features, 3 classes' }
] as const

/** The models present, generating the missing ones when scikit-learn is there. */
export function benchModels (withGenerated: boolean, progress: (message: string) => void): ModelDir[] {
  const models: ModelDir[] = [{ name: 'default', dir: path.join(ROOT, 'models'), description: '29,238 features, 2 classes' }]
  if (!withGenerated) return models
  const python = hasPython(['sklearn'])
  for (const g of GENERATED) {
    const dir = path.join(ROOT, 'bench', 'models', g.name)
    if (!existsSync(path.join(dir, 'final_best_model.pkl'))) {
      if (!python) {
        progress(`no /usr/bin/python3 with scikit-learn: skipping the ${g.name} model (apt-get install -y python3-sklearn)`)
        continue
      }
      progress(`writing the ${g.name} model (${g.description}) with scikit-learn`)
      execFileSync(PYTHON, [path.join(ROOT, 'bench', 'models', 'make_models.py'), g.name, dir], { stdio: 'inherit' })
    }
    models.push({ name: g.name, dir, description: g.description })
  }
  return models
}
