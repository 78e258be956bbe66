/**
 * A repository served by the service process: a folder added while it runs is found by
 * MODEL_POLL_SECONDS, SIGHUP reloads, and the metrics count each model's requests and
 * lifecycle.
 */
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { FIXTURES, ROOT } from '../helpers/paths.js'

async function until<T> (find: () => Promise<T | undefined>, ms = 20000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const found = await find().catch(() => undefined)
    if (found !== undefined) return found
    if (Date.now() > end) throw new Error('not in time')
    await new Promise(resolve => setTimeout(resolve, 100))
  }
}

describe('a repository served by the service process', function () {
  this.timeout(60000)

  it('loads a folder added while it runs (polling), reloads on SIGHUP, and counts per model', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'tfidf-repo-process-'))
    mkdirSync(path.join(root, 'sentiment'))
    for (const f of ['final_best_model.pkl', 'tfidf_vectorizer.pkl']) copyFileSync(path.join(ROOT, 'models', f), path.join(root, 'sentiment', f))
    const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'main.js')], { env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', WORKERS: '1', MODEL_REPOSITORY: root, MODEL_POLL_SECONDS: '0.2' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString() })
    try {
      const port = await until(async () => { const l = stdout.split('\n').find(x => x.includes('"msg":"ready"')); return l === undefined ? undefined : (JSON.parse(l) as { port: number }).port })
      const url = `http://127.0.0.1:${port}`
      mkdirSync(path.join(root, 'spam'))
      for (const f of ['final_best_model.pkl', 'tfidf_vectorizer.pkl']) copyFileSync(path.join(FIXTURES, 'apps', '1.2.1', 'sms-porter', f), path.join(root, 'spam', f))
      const spam = await until(async () => {
        const models = (await (await fetch(`${url}/models`)).json()) as { models: Array<{ name: string, state: string }> }
        return models.models.find(m => m.name === 'spam' && m.state === 'READY')
      })
      expect(spam).to.deep.include({ name: 'spam', state: 'READY' })
      const res = await fetch(`${url}/models/spam/predict`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'free entry win a prize' }) })
      expect(res.status).to.equal(200)
      child.kill('SIGHUP')
      await until(async () => (stdout.match(/"msg":"model loaded"/g) ?? []).length >= 3 ? true : undefined)
      const metrics = await (await fetch(`${url}/metrics?format=prometheus`)).text()
      expect(metrics).to.match(/tfidf_model_lifecycle_total\{model="spam",event="loaded"\} 2/)
      expect(metrics).to.match(/tfidf_model_lifecycle_total\{model="sentiment",event="loaded"\} 1/)
      expect(metrics).to.match(/tfidf_model_requests_total\{model="spam",version="1",status="200"\} 1/)
      expect(metrics).to.match(/tfidf_model_shared_bytes\{model="spam",version="1"\} \d+/)
    } finally {
      child.kill('SIGTERM')
      await once(child, 'exit')
      rmSync(root, { recursive: true, force: true })
    }
  })

  it("runs as KServe's ServingRuntime runs it: serve --model_name --model_dir --http_port, the model answering V2 under its name", async () => {
    const dir = path.join(FIXTURES, 'apps', '1.2.1', 'sms-porter')
    const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'cli.js'), 'serve', '--model_name=spam-classifier', `--model_dir=${dir}`, '--http_port=0'], { env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', WORKERS: '1', NLTK_DATA: process.env.NLTK_DATA ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString() })
    try {
      const port = await until(async () => { const l = stdout.split('\n').find(x => x.includes('"msg":"ready"')); return l === undefined ? undefined : (JSON.parse(l) as { port: number }).port })
      const res = await fetch(`http://127.0.0.1:${port}/v2/models/spam-classifier/infer`, { method: 'POST', body: JSON.stringify({ inputs: [{ name: 'text', shape: [1], datatype: 'BYTES', data: ['WINNER! claim your free prize now'] }], outputs: [{ name: 'predict' }] }) })
      expect(res.status).to.equal(200)
      expect(await res.json()).to.deep.equal({ model_name: 'spam-classifier', model_version: '1', outputs: [{ name: 'predict', datatype: 'BYTES', shape: [1], data: ['spam'] }] })
      expect((await fetch(`http://127.0.0.1:${port}/v2/health/ready`)).status).to.equal(200)
    } finally {
      child.kill('SIGTERM')
      await once(child, 'exit')
    }
  })
})

