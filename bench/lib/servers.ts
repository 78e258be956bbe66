/** The servers the bench starts: tfidf-serve, the FastAPI baseline, the no-op ceilings. */
import { existsSync } from 'node:fs'
import path from 'node:path'
import { ROOT } from './corpus.js'
import { PYTHON, modelFiles, type ModelDir } from './models.js'
import { freePort, startServer, type Server } from './processes.js'

/** Node's flags as `npm start` passes them (package.json). */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=20']

/** The environment `npm start` and the image set (package.json, Dockerfile). */
export const SERVER_ENV = { MALLOC_MMAP_THRESHOLD_: '131072' }

/** The entry `npm start` runs in the checkout at `root`: the bundle, or tsc's main.js in a build from before bundling. */
export function serviceEntry (root = ROOT): string {
  const bundle = path.join(root, 'dist', 'src', 'main.bundle.js')
  return existsSync(bundle) ? bundle : path.join(root, 'dist', 'src', 'main.js')
}

/** tfidf-serve on `m` with `workers` workers, the result cache off unless `env` turns it on; `root` is another checkout's build to run instead. */
export async function startTfidf (m: Pick<ModelDir, 'dir'>, workers: number, env: Record<string, string> = {}, root = ROOT): Promise<Server> {
  const port = await freePort()
  const { model, vectorizer } = modelFiles(m)
  return await startServer(`tfidf-serve (${workers} workers)`, process.execPath, [...SERVER_NODE_FLAGS, serviceEntry(root)],
    { ...SERVER_ENV, PORT: String(port), HOST: '127.0.0.1', MODEL_PATH: model, VECTORIZER_PATH: vectorizer, WORKERS: String(workers), CACHE_SIZE: '0', LOG_LEVEL: 'warn', ...env }, port)
}

export async function startBaseline (m: ModelDir, workers: number): Promise<Server> {
  const port = await freePort()
  const { model, vectorizer } = modelFiles(m)
  return await startServer(`baseline (${workers} uvicorn workers)`, PYTHON, ['-m', 'uvicorn', 'app:app', '--app-dir', path.join(ROOT, 'bench', 'baseline'), '--host', '127.0.0.1', '--port', String(port), '--workers', String(workers), '--log-level', 'warning', '--no-access-log'],
    { MODEL_PATH: model, VECTORIZER_PATH: vectorizer }, port)
}

/** The design's shape doing what the spec asks of every request and nothing more (bench/http/spec-floor.ts), on `m`. */
export async function startSpecFloor (m: ModelDir): Promise<Server> {
  const port = await freePort()
  const { model, vectorizer } = modelFiles(m)
  return await startServer('spec floor', process.execPath, [...SERVER_NODE_FLAGS, path.join(ROOT, 'dist', 'bench', 'http', 'spec-floor.js')], { ...SERVER_ENV, PORT: String(port), MODEL_PATH: model, VECTORIZER_PATH: vectorizer, LOG_LEVEL: 'warn' }, port)
}

/** A no-op server; `express-worker` given a model has its workers classify each text with it. */
export async function startNoop (kind: 'express' | 'express-worker' | 'http', m?: ModelDir): Promise<Server> {
  const port = await freePort()
  const files = m === undefined ? undefined : modelFiles(m)
  const model: Record<string, string> = files === undefined ? {} : { MODEL_PATH: files.model, VECTORIZER_PATH: files.vectorizer }
  return await startServer(`noop-${kind}${m === undefined ? '' : ' with the model'}`, process.execPath, [path.join(ROOT, 'dist', 'bench', 'http', `noop-${kind}.js`)], { PORT: String(port), ...model }, port)
}
