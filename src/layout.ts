/**
 * Where the service's own files are at run time: the threads it starts and the data it reads,
 * all found from the project root, which this module alone computes (it runs as
 * dist/src/layout.js, two folders below the root).
 */
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** The Piscina worker, the model-decoding thread and the span-export thread. */
export const CLASSIFY_WORKER = pathToFileURL(path.join(PROJECT_ROOT, 'dist', 'workers', 'classify.js'))
export const DECODE_WORKER = pathToFileURL(path.join(PROJECT_ROOT, 'dist', 'workers', 'decode.js'))
export const EXPORT_THREAD = pathToFileURL(path.join(PROJECT_ROOT, 'dist', 'src', 'tracing', 'export-thread.js'))

/** Read at run time from the source tree (tsc copies no data): gRPC's .proto files and preprocessing's word lists. */
export const GRPC_PROTO_DIR = path.join(PROJECT_ROOT, 'src', 'grpc')
export const PREPROCESS_DATA_DIR = path.join(PROJECT_ROOT, 'src', 'preprocess', 'data')
