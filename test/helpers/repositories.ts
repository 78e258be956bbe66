/** Model repositories for tests, in fresh temporary folders. */
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { FIXTURES, ROOT } from './paths.js'
import { timedPost } from './service.js'

/** sentiment (the shipped model, versioned 1), spam (an app's fixture, named by its folder), hostile (refused at load). */
export function makeThreeModelRepository (prefix: string): string {
  const root = mkdtempSync(path.join(tmpdir(), prefix))
  mkdirSync(path.join(root, 'sentiment', '1'), { recursive: true })
  for (const f of ['final_best_model.pkl', 'tfidf_vectorizer.pkl']) copyFileSync(path.join(ROOT, 'models', f), path.join(root, 'sentiment', '1', f))
  cpSync(path.join(FIXTURES, 'apps', '1.2.1', 'sms-porter'), path.join(root, 'spam'), { recursive: true })
  // The fixture's settings name it sms-porter; the folder's name serves when the settings give none.
  const settings = JSON.parse(readFileSync(path.join(root, 'spam', 'model-settings.json'), 'utf8')) as { name?: string }
  delete settings.name
  writeFileSync(path.join(root, 'spam', 'model-settings.json'), JSON.stringify(settings))
  mkdirSync(path.join(root, 'hostile'))
  copyFileSync(path.join(FIXTURES, 'hostile', 'self-list.pkl'), path.join(root, 'hostile', 'model.pkl'))
  return root
}

/** The text the slow model of `makeSlowModelRepository` backtracks on: 2^25 ways to split its letters (about half a second of a core). */
export const CATASTROPHIC_TEXT = 'a'.repeat(25) + '!'

/**
 * sentiment (the shipped model) beside slow (the same model, its app's cleaning a regular
 * expression that backtracks catastrophically on CATASTROPHIC_TEXT); `slow` adds to the slow
 * model's settings (max_workers).
 */
export function makeSlowModelRepository (prefix: string, slow: Record<string, unknown> = {}): string {
  const root = mkdtempSync(path.join(tmpdir(), prefix))
  mkdirSync(path.join(root, 'sentiment'))
  for (const f of ['final_best_model.pkl', 'tfidf_vectorizer.pkl']) copyFileSync(path.join(ROOT, 'models', f), path.join(root, 'sentiment', f))
  mkdirSync(path.join(root, 'slow'))
  writeFileSync(path.join(root, 'slow', 'model-settings.json'), JSON.stringify({
    parameters: {
      extra: {
        tfidf_serve: {
          model: path.join(ROOT, 'models', 'final_best_model.pkl'),
          vectorizer: path.join(ROOT, 'models', 'tfidf_vectorizer.pkl'),
          functions: path.join(FIXTURES, 'sharing', 'catastrophic-functions.mjs'),
          preprocess: [{ op: 'function', name: '__main__.clean' }],
          ...slow
        }
      }
    }
  }))
  return root
}

/**
 * Runs `work` while `clients` requests to the slow model of `makeSlowModelRepository` are kept
 * in flight (from half a second before it, so that slow tasks surely run); returns what `work`
 * returned and the slow requests' statuses (200, or 503 when a text ran past the prediction timeout).
 */
export async function whileSlowModelLoaded<T> (base: string, clients: number, work: () => Promise<T>): Promise<{ result: T, slowStatuses: number[] }> {
  const statuses: number[] = []
  let done = false
  const slow = Promise.all(Array.from({ length: clients }, async () => {
    while (!done) statuses.push((await timedPost(base, '/models/slow/predict', { text: CATASTROPHIC_TEXT })).status)
  }))
  try {
    await new Promise(resolve => setTimeout(resolve, 500))
    return { result: await work(), slowStatuses: statuses }
  } finally {
    done = true
    await slow
  }
}
