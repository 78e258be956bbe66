/**
 * GET /openapi.json and GET /docs: the OpenAPI document, and a page that renders it with
 * Swagger UI from the swagger-ui-dist package (its files served from node_modules, so
 * the page works with no internet; no inline script, so helmet's CSP stands).
 */
import { createRequire } from 'node:module'
import path from 'node:path'
import type { Express } from 'express'
import type { AppContext } from '../context.js'
import { openApiDocument } from '../openapi.js'

const SWAGGER_UI = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tfidf-serve API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`

const INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, tryItOutEnabled: false })
`

export function mountDocs (app: Express, ctx: AppContext): void {
  const document = JSON.stringify(openApiDocument(ctx.config))
  app.get('/openapi.json', (_req, res) => { res.type('application/json').send(document) })
  app.get('/docs', (_req, res) => { res.type('text/html').send(PAGE) })
  app.get('/docs/init.js', (_req, res) => { res.type('text/javascript').send(INIT) })
  for (const file of ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png']) {
    app.get(`/docs/${file}`, (_req, res) => { res.sendFile(path.join(SWAGGER_UI, file), { maxAge: '1d' }) })
  }
}
