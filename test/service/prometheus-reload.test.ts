/**
 * /metrics describes the default model served now (issue 23, defect 8): after the default
 * model's files are replaced and it is loaded again, tfidf_model_info and
 * tfidf_model_load_seconds name the new model, as /predict's model_used does.
 */
import { expect } from 'chai'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import request from 'supertest'
import { parseConfig } from '../../src/config.js'
import { createApp } from '../../src/http/app.js'
import { createLogger } from '../../src/logger.js'
import type { ClassifierPool } from '../../src/pool/classifier-pool.js'
import { openRepository } from '../../src/repository/open.js'
import { FIXTURES, ROOT } from '../helpers/paths.js'

const FILES = ['final_best_model.pkl', 'tfidf_vectorizer.pkl']

describe('the model series after a reload of the default model', function () {
  this.timeout(60000)
  let root: string
  let pool: ClassifierPool

  after(async () => {
    await pool.close()
    rmSync(root, { recursive: true, force: true })
  })

  it('name the model served now', async () => {
    root = mkdtempSync(path.join(tmpdir(), 'tfidf-metrics-reload-'))
    mkdirSync(path.join(root, 'sentiment'))
    for (const f of FILES) copyFileSync(path.join(ROOT, 'models', f), path.join(root, 'sentiment', f))
    const config = parseConfig({ WORKERS: '1', LOG_LEVEL: 'silent', MODEL_REPOSITORY: root, DEFAULT_MODEL: 'sentiment' })
    const opened = await openRepository(config)
    pool = opened.pool
    const app = createApp({ config, pool, repository: opened.repository, logger: createLogger('silent') })
    const info = async (): Promise<string[]> => (await request(app).get('/metrics?format=prometheus')).text.split('\n').filter(l => l.startsWith('tfidf_model_info{') || l.startsWith('tfidf_model_load_seconds '))
    const before = await info()
    expect(before[0]).to.match(/^tfidf_model_load_seconds [0-9.e-]+$/)
    expect(before[1]).to.match(/^tfidf_model_info\{classifier="LogisticRegression",vectorizer="TfidfVectorizer",features="\d+",sklearn_version="[0-9.]+"\} 1$/)
    for (const f of FILES) copyFileSync(path.join(FIXTURES, 'sklearn', 'bernoullinb-tfidf', f), path.join(root, 'sentiment', f))
    await request(app).post('/v2/repository/models/sentiment/load').expect(200)
    expect((await request(app).post('/predict').send({ text: 'a fine film' })).body).to.deep.include({ model_used: 'BernoulliNB' })
    const after = await info()
    expect(after).to.have.length(2)
    expect(after[1]).to.match(/^tfidf_model_info\{classifier="BernoulliNB",vectorizer="TfidfVectorizer",features="\d+",sklearn_version="[0-9.]+"\} 1$/)
    expect(after[0]).to.not.equal(before[0])
  })
})
