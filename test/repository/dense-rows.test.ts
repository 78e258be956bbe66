import { expect } from 'chai'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import request from 'supertest'
import { parseConfig } from '../../src/config.js'
import { createApp } from '../../src/http/app.js'
import { createLogger } from '../../src/logger.js'
import type { ClassifierPool } from '../../src/pool/classifier-pool.js'
import { openRepository } from '../../src/repository/open.js'
import type { ModelRepository, RepositoryEvent } from '../../src/repository/model-repository.js'
import { FIXTURES } from '../helpers/paths.js'

const CASE = path.join(FIXTURES, 'xgboost', 'dense', '1.7.4', 'dense-binary-hist')
const expected = JSON.parse(readFileSync(path.join(CASE, 'expected.json'), 'utf8')) as { predict: string[], sparse: { predict: string[] } }
// 50 texts, a batch's limit.
const TEXTS = (JSON.parse(readFileSync(path.join(FIXTURES, 'xgboost', 'texts.json'), 'utf8')) as { texts: string[] }).texts.slice(0, 50)
// texts.json follows the 97 texts of ../estimators/texts.json in the expected answers.
const OFFSET = 97

/** A model folder over the fixture's files, with or without dense_rows. */
function folder (root: string, name: string, ours: Record<string, unknown>): void {
  mkdirSync(path.join(root, name))
  const files = { model: path.join(CASE, 'final_best_model.pkl'), vectorizer: path.join(CASE, 'tfidf_vectorizer.pkl') }
  writeFileSync(path.join(root, name, 'model-settings.json'), JSON.stringify({ name, parameters: { extra: { tfidf_serve: { ...files, ...ours } } } }))
}

describe('dense_rows in a model repository, through the workers', function () {
  this.timeout(120000)
  let root: string
  let pool: ClassifierPool
  let repository: ModelRepository
  let app: ReturnType<typeof createApp>
  const events: RepositoryEvent[] = []

  before(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'tfidf-dense-'))
    folder(root, 'dense', { dense_rows: true })
    folder(root, 'plain', {})
    const config = parseConfig({ MODEL_REPOSITORY: root, DEFAULT_MODEL: 'dense', WORKERS: '1', CACHE_SIZE: '0', LOG_LEVEL: 'silent' })
    ;({ pool, repository } = await openRepository(config, {}, { onEvent: e => { events.push(e) } }))
    app = createApp({ config, pool, repository, logger: createLogger('silent') })
  })
  after(async () => {
    await pool.close()
    rmSync(root, { recursive: true, force: true })
  })

  it('answers as xgboost on dense rows with the setting, on sparse rows without it', async () => {
    const labels = async (name: string): Promise<string[]> => ((await request(app).post(`/models/${name}/predict`).send({ texts: TEXTS }).expect(200)).body as { predictions: Array<{ prediction: string }> }).predictions.map(p => p.prediction)
    expect(await labels('dense')).to.deep.equal(expected.predict.slice(OFFSET, OFFSET + 50))
    expect(await labels('plain')).to.deep.equal(expected.sparse.predict.slice(OFFSET, OFFSET + 50))
  })

  it("names the model without the setting in its load event's notes, for the log", () => {
    const plain = events.find(e => e.model === 'plain' && e.kind === 'loaded')
    expect(plain?.notes).to.have.length(1)
    expect(plain!.notes![0]).to.match(/^XGBClassifier: all 219 splits send a missing value right, .*"dense_rows": true/)
  })
})
