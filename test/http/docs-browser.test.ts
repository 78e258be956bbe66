/**
 * The docs page in a real headless browser: Debian's chromium (apt-get install chromium;
 * .ci/run installs it), driven by playwright-core, on a real server on 127.0.0.1. Skipped
 * when no chromium is installed, unless REQUIRE_BROWSER=1 (as CI sets it).
 */
import { expect } from 'chai'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { chromium, type Browser } from 'playwright-core'
import { ROOT } from '../helpers/paths.js'
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
      // README's picture: the request and the prediction it got.
      await predict.locator('.live-responses-table').scrollIntoViewIfNeeded()
      await page.screenshot({ path: path.join(ROOT, 'docs', 'api-docs-try-it-out.png') })
    }
    expect(failed).to.deep.equal([])
  })
})
