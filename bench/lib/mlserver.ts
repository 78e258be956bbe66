/**
 * MLServer (given: `--mlserver PYTHON`, a Python with mlserver and mlserver-sklearn installed;
 * neither is in this machine's package index) serving the same model as tfidf-serve: its
 * scikit-learn runtime on one joblib file, so the vectorizer and classifier are joined into a
 * Pipeline by that Python's own scikit-learn first, with `parallel_workers` 2, as tfidf-serve
 * runs 2 workers. REST and gRPC on ports of their own; metrics off.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { modelFiles, type ModelDir } from './models.js'
import { freePort, startServer, type Server } from './processes.js'

const JOIN = `
import pickle, sys, joblib
from sklearn.pipeline import Pipeline
vectorizer = pickle.load(open(sys.argv[1], 'rb'))
model = pickle.load(open(sys.argv[2], 'rb'))
joblib.dump(Pipeline([('tfidf', vectorizer), ('model', model)]), sys.argv[3])
`

export async function startMlserver (python: string, m: ModelDir, workers = 2): Promise<{ server: Server, grpcPort: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tfidf-bench-mlserver-'))
  const { model, vectorizer } = modelFiles(m)
  execFileSync(python, ['-c', JOIN, vectorizer, model, path.join(dir, 'model.joblib')], { stdio: 'inherit' })
  const port = await freePort()
  const grpcPort = await freePort()
  writeFileSync(path.join(dir, 'settings.json'), JSON.stringify({ http_port: port, grpc_port: grpcPort, host: '127.0.0.1', parallel_workers: workers, metrics_endpoint: null, debug: false }))
  writeFileSync(path.join(dir, 'model-settings.json'), JSON.stringify({ name: 'default', implementation: 'mlserver_sklearn.SKLearnModel', parameters: { uri: './model.joblib', version: '1' } }))
  const server = await startServer(`MLServer (${workers} parallel workers)`, python, ['-m', 'mlserver', 'start', dir], {}, port, '/v2/models/default/ready')
  return { server, grpcPort }
}
