import { createHash } from 'node:crypto'

/** As the Python fixture generators hash a token list: `json.dumps(tokens)` (ASCII-escaped, ", " between items), SHA-256, 8 hex digits. */
export function tokenDigest (tokens: readonly string[]): string {
  const json = '[' + tokens.map(t => JSON.stringify(t).replace(/[\u007f-\uffff]/g, c => c === '\u007f' ? c : '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))).join(', ') + ']'
  return createHash('sha256').update(json, 'utf8').digest('hex').slice(0, 8)
}
