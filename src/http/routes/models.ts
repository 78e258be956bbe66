/** GET /models: every model of the repository with its state, versions, classes, vectorizer and shared bytes. */
import type { RequestHandler } from 'express'
import type { AppContext } from '../context.js'

export function createModelsHandler (ctx: AppContext): RequestHandler {
  return (_req, res) => {
    res.json({
      default: ctx.repository.defaultName,
      models: ctx.repository.entries().map(e => ({
        name: e.name,
        state: e.state,
        reason: e.reason,
        version: e.served?.version ?? null,
        versions: e.versions,
        classes: e.served?.labels ?? null,
        classifier: e.served?.status.classifier ?? null,
        vectorizer: e.served?.status.vectorizer ?? null,
        shared_bytes: e.served?.status.sharedBytes ?? null
      }))
    })
  }
}
