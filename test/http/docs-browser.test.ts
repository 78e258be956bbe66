/**
 * The docs page in a real headless browser: Debian's chromium (apt-get install chromium;
 * npm test installs it: scripts/test-deps.sh), driven by playwright-core, on a real server on 127.0.0.1. Skipped
 * when no chromium is installed, unless REQUIRE_BROWSER=1 (as npm test sets it).
 */
import { expect } from 'chai'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { chromium, type Browser } from 'playwright-core'
import { ROOT } from '../helpers/paths.js'
import { writeKeyFile } from '../helpers/keys.js'
import { listen, startService, type Listening, type Service } from '../helpers/service.js'

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find(p => existsSync(p))

describe('the /docs page in a browser', function () {
  this.timeout(120000)
  let service: Service
  let listening: Listening | undefined
  let base: string
  let browser: Browser

  before(async function () {
    if (CHROMIUM === undefined) {
      if (process.env.REQUIRE_BROWSER === '1') throw new Error('no chromium: apt-get install -y chromium')
      this.skip()
    }
    service = await startService({ WORKERS: '1' })
    listening = await listen(service)
    base = `http://127.0.0.1:${listening.port}`
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] })
  })
  after(async () => {
    await browser?.close()
    await listening?.close()
    await service?.close()
  })

  it('renders every operation, and "try it out" on /predict shows a prediction', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const failed: string[] = []
    page.on('console', m => { if (m.type() === 'error') failed.push(m.text()) })
    page.on('pageerror', e => failed.push(e.message))
    page.on('requestfailed', r => failed.push(`${r.url()} ${r.failure()?.errorText ?? ''}`))
    page.on('response', r => { if (r.status() >= 400) failed.push(`${r.url()} ${r.status()}`) })
    await page.goto(`${base}/docs`)
    await page.locator('.opblock').first().waitFor()
    const doc = await (await fetch(`${base}/openapi.json`)).json() as { paths: Record<string, Record<string, unknown>> }
    const operations = Object.values(doc.paths).reduce((n, p) => n + Object.keys(p).length, 0)
    expect(await page.locator('.opblock').count()).to.equal(operations)
    const paths = await page.locator('.opblock-summary-path').allInnerTexts()
    expect(paths.map(p => p.replace(/\u200b/g, ''))).to.include.members(['/predict', '/batch_predict', '/explain', '/health', '/metrics'])

    if (process.env.DOCS_SCREENSHOT === '1') await page.screenshot({ path: path.join(ROOT, 'docs', 'api-docs.png') })

    const predict = page.locator('#operations-predict-predict')
    await predict.locator('.opblock-summary').click()
    await predict.getByRole('button', { name: 'Try it out' }).click()
    await predict.locator('textarea.body-param__text').fill(JSON.stringify({ text: 'a wonderful, moving film' }))
    await predict.getByRole('button', { name: 'Execute' }).click()
    const live = predict.locator('.live-responses-table .response .response-col_status').first()
    await live.waitFor()
    expect((await live.innerText()).trim()).to.equal('200')
    const body = await predict.locator('.live-responses-table .response-col_description pre').first().innerText()
    expect(JSON.parse(body)).to.include({ sentiment: 'positive', model_used: 'LogisticRegression' })
    if (process.env.DOCS_SCREENSHOT === '1') {
      // The picture docs/http-api.md shows: the request and the prediction it got.
      await predict.locator('.live-responses-table').scrollIntoViewIfNeeded()
      await page.screenshot({ path: path.join(ROOT, 'docs', 'api-docs-try-it-out.png') })
    }
    expect(failed).to.deep.equal([])
  })

  it('with keys on, "Try it out" gets 401 until a key is given through "Authorize", then the prediction', async () => {
    const keys = writeKeyFile([{ id: 'docs-reader', scopes: ['predict'] }])
    const guarded = await startService({ WORKERS: '1', API_KEYS_FILE: keys.file })
    const at = await listen(guarded)
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
      await page.goto(`http://127.0.0.1:${at.port}/docs`)
      await page.locator('.opblock').first().waitFor()
      const predict = page.locator('#operations-predict-predict')
      const execute = async (): Promise<{ status: string, body: string }> => {
        await predict.getByRole('button', { name: 'Execute' }).click()
        const live = predict.locator('.live-responses-table .response .response-col_status').first()
        await live.waitFor()
        const result = { status: (await live.innerText()).trim(), body: await predict.locator('.live-responses-table .response-col_description pre').first().innerText() }
        await predict.getByRole('button', { name: 'Clear' }).click()
        return result
      }
      await predict.locator('.opblock-summary').click()
      await predict.getByRole('button', { name: 'Try it out' }).click()
      await predict.locator('textarea.body-param__text').fill(JSON.stringify({ text: 'a wonderful, moving film' }))
      const refused = await execute()
      expect(refused.status).to.equal('401')
      expect(JSON.parse(refused.body)).to.deep.equal({ detail: 'an API key is required: send it as "Authorization: Bearer <key>" or "X-API-Key: <key>"' })
      await page.locator('.auth-wrapper button.authorize').click()
      const dialog = page.locator('.dialog-ux')
      await dialog.locator('.auth-container').filter({ hasText: 'bearerAuth' }).locator('input').fill(keys.secrets['docs-reader']!)
      await dialog.locator('.auth-container').filter({ hasText: 'bearerAuth' }).getByRole('button', { name: 'Apply credentials' }).click()
      await dialog.locator('.auth-container').filter({ hasText: 'bearerAuth' }).getByRole('button', { name: 'Remove authorization' }).waitFor()
      await dialog.locator('button.btn-done').first().click()
      const served = await execute()
      expect(served.status).to.equal('200')
      expect(JSON.parse(served.body)).to.include({ sentiment: 'positive' })
    } finally {
      await at.close()
      await guarded.close()
    }
  })
})
