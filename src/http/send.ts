/** Writing a JSON text as the answer, with the headers the routes' clients expect. */
import type { Response } from 'express'

/** Sends a JSON text with the headers `res.json` would set. */
export function sendJson (res: Response, body: string): void {
  res.setHeader('Content-Type', 'application/json; charset=utf-8')
  res.setHeader('Content-Length', Buffer.byteLength(body))
  res.end(body)
}

/** Sends a V2 JSON body with exactly `application/json` (kserve's client reads errors only then). */
export function sendV2 (res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.status(status)
  res.setHeader('Content-Type', 'application/json')
  res.setHeader('Content-Length', Buffer.byteLength(text))
  res.end(text)
}
