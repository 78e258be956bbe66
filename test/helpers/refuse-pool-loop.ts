/**
 * A child process for test/pool/refusal-teardown.test.ts: starts the pool `N` times on a model
 * the decoding refuses (each time in its own decoding thread, as the CLI and the service do),
 * and writes each refusal as the CLI writes it, one line to stdout. Workers are torn down
 * while they may still be loading their code: a teardown at the wrong moment aborts this
 * whole process with a native stack instead.
 *   node refuse-pool-loop.js MODEL N WORKERS
 */
import { ServiceError } from '../../src/errors.js'
import { ClassifierPool } from '../../src/pool/classifier-pool.js'

const [model, n, workers] = process.argv.slice(2)
for (let i = 0; i < Number(n); i++) {
  const err = await ClassifierPool.start({ modelPath: model!, vectorizerPaths: [], workers: Number(workers), predictionTimeoutMs: 60_000, maxConcurrentRequests: 1, maxQueue: 0 })
    .then(async pool => { await pool.close(); return new Error('the pool started') }, (e: unknown) => e)
  process.stdout.write(err instanceof ServiceError ? `tfidf-serve: ${err.message}\n` : `not a refusal: ${String(err)}\n`)
}
