/**
 * GET /openapi.json and GET /docs: the OpenAPI document, and a page that renders it with
 * Swagger UI from the swagger-ui-dist package (its files served from node_modules, so
 * the page works with no internet; no inline script, so helmet's CSP stands).
 */
import { createRequire } from 'node:module'
import path from 'node:path'
import type { RequestHandler } from 'express'
import { ServiceError } from '../../errors.js'
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

const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png'])

/** GET /openapi.json, GET /docs and GET /docs/{asset} (the page's script and Swagger UI's files). */
export function createDocsHandlers (ctx: AppContext): { openapi: RequestHandler, docsPage: RequestHandler, docsAsset: RequestHandler } {
  const document = JSON.stringify(openApiDocument(ctx.config))
  return {
    openapi: (_req, res) => { res.type('application/json').send(document) },
    docsPage: (_req, res) => { res.type('text/html').send(PAGE) },
    docsAsset: (req, res) => {
      const asset = String(req.params.asset)
      if (asset === 'init.js') res.type('text/javascript').send(INIT)
      else if (ASSETS.has(asset)) res.sendFile(path.join(SWAGGER_UI, asset), { maxAge: '1d' })
      else throw new ServiceError('ERR_NOT_FOUND', `no route for ${req.method} ${req.path}`)
    }
  }
}
