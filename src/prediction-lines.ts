/**
 * The CLI's line formats: texts from `lines` (one text per line) or `jsonl` (one
 * {"text": ...} per line) input, one JSON line out per text. A pool worker runs this on a
 * chunk of whole lines, so reading, parsing and formatting spread over every core with the
 * classifying, and the thread that reads the input only cuts it into chunks and writes.
 */
import type { Prediction, Predictor } from './sklearn/predictor.js'

export type LineFormat = 'lines' | 'jsonl'

export interface LinesResult {
  /**
   * The output lines. A string, not bytes: a buffer per chunk piles up on the writing
   * thread, whose small heap rarely collects, as external memory (60 MB of it, measured).
   */
  readonly output: string
  /** Input lines read, blank jsonl lines and the bad line included. */
  readonly lines: number
  /** Texts classified. */
  readonly texts: number
  /** The first bad jsonl line (0-based within the chunk) and what is wrong with it; reading stopped there. */
  readonly bad?: { readonly line: number, readonly reason: string }
}

/** One output line, as JSON.stringify would write it, without the object and arrays it would need. */
export function formatPrediction (p: Prediction): string {
  let out = `{"label":${JSON.stringify(p.label)},"confidence":${jsonNumber(p.confidence)}`
  if (p.proba !== undefined) out += `,"proba":${jsonArray(p.proba)}`
  if (p.decision !== undefined) out += `,"decision":${jsonArray(p.decision)}`
  return out + '}'
}

/** JSON.stringify's number: the shortest round-trip digits, null for NaN and the infinities. */
function jsonNumber (x: number): string {
  return Number.isFinite(x) ? String(x) : 'null'
}

function jsonArray (values: Float64Array): string {
  let out = '['
  for (let i = 0; i < values.length; i++) out += (i === 0 ? '' : ',') + jsonNumber(values[i]!)
  return out + ']'
}

/** Line ends as node:readline knows them: \r\n, \n, or a lone \r. */
const LINE_END = /\r\n|\n|\r/

// The byte-order mark stays, as readline and Python's open() keep it.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true })

/** Classifies every line of `chunk` (UTF-8, whole lines); a bad jsonl line ends the chunk. */
export function predictLines (predictor: Predictor, chunk: Uint8Array, format: LineFormat): LinesResult {
  return mapLines(chunk, format, text => formatPrediction(predictor.predict(text)))
}

/** The output line `each` makes of every text in `chunk`; a bad jsonl line ends the chunk. */
export function mapLines (chunk: Uint8Array, format: LineFormat, each: (text: string) => string): LinesResult {
  const lines = decoder.decode(chunk).split(LINE_END)
  // The chunk ends with a line end but at the end of the input: that leaves an empty last element.
  if (lines[lines.length - 1] === '') lines.pop()
  let out = ''
  let texts = 0
  for (let i = 0; i < lines.length; i++) {
    let text = lines[i]!
    if (format === 'jsonl') {
      const parsed = textOfJsonLine(text)
      if (parsed === undefined) continue
      if (typeof parsed !== 'string') return { output: out, lines: i + 1, texts, bad: { line: i, reason: parsed.reason } }
      text = parsed
    }
    out += each(text) + '\n'
    texts++
  }
  return { output: out, lines: lines.length, texts }
}

/** The text of a jsonl line, undefined for a blank line, or why the line is bad. */
function textOfJsonLine (line: string): string | undefined | { reason: string } {
  if (line.trim() === '') return undefined
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return { reason: 'is not JSON' }
  }
  const text = (value as { text?: unknown } | null)?.text
  if (typeof text !== 'string') return { reason: 'has no "text" string' }
  return text
}
