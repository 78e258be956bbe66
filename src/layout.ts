/**
 * Where the service's own files are at run time: the threads it starts and the data it reads,
 * all found from the project root, which this module alone computes. tsc's output
 * (dist/src/layout.js) and the bundles (dist/src/*.bundle.js, which inline this module) all
 * sit two folders below the root, so the same paths hold for each.
 */
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** The service's front thread as `npm start` runs it; `tfidf-serve serve` (KServe's runtime) runs the same. */
export const MAIN_BUNDLE = pathToFileURL(path.join(PROJECT_ROOT, 'dist', 'src', 'main.bundle.js'))

/**
 * The Piscina worker, the model-decoding thread and the span-export thread, each bundled into
 * one file by scripts/bundle.mjs (`npm run build`): a thread that loads one file starts about
 * 0.1 s of CPU sooner than one that loads the ~100 files of ours it imports.
 */
export const CLASSIFY_WORKER = pathToFileURL(path.join(PROJECT_ROOT, 'dist', 'src', 'classify-worker.bundle.js'))
export const DECODE_WORKER = pathToFileURL(path.join(PROJECT_ROOT, 'dist', 'src', 'decode-worker.bundle.js'))
export const EXPORT_THREAD = pathToFileURL(path.join(PROJECT_ROOT, 'dist', 'src', 'export-thread.bundle.js'))

/** Read at run time from the source tree (tsc copies no data): gRPC's .proto files and preprocessing's word lists. */
export const GRPC_PROTO_DIR = path.join(PROJECT_ROOT, 'src', 'grpc')
export const PREPROCESS_DATA_DIR = path.join(PROJECT_ROOT, 'src', 'preprocess', 'data')
