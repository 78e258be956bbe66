/** Bench texts from ../shared/data: 100-300 characters for HTTP, and long texts built from them. */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
export const SHARED = path.resolve(ROOT, '..', 'shared')

export function loadTexts (): string[] {
  const out: string[] = []
  for (const name of ['rt-polarity', 'subjectivity', 'sentiment-labelled-sentences', 'sms-spam-collection']) {
    const file = path.join(SHARED, 'data', name, `${name}.jsonl`)
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line === '') continue
      const text = (JSON.parse(line) as { text: string }).text.trim()
      const n = [...text].length
      if (n >= 100 && n <= 300) out.push(text)
    }
  }
  return out
}

/** `count` texts of exactly `chars` code points, made of corpus texts end to end. */
export function textsOfLength (texts: readonly string[], chars: number, count: number): string[] {
  const out: string[] = []
  let k = 0
  for (let i = 0; i < count; i++) {
    let t = ''
    while ([...t].length < chars) t += texts[k++ % texts.length]! + ' '
    out.push([...t].slice(0, chars).join(''))
  }
  return out
}

/**
 * `count` different texts of at most `chars` UTF-16 units: corpus sentences end to end from a
 * moving start, ending in a serial number (so no two are alike, whatever the corpus).
 */
export function uniqueTexts (texts: readonly string[], chars: number, count: number, tag: string): string[] {
  const out: string[] = []
  for (let i = 0; i < count; i++) {
    const suffix = ` ${tag}${i}`
    let t = ''
    for (let k = i; t.length < chars; k++) t += texts[k % texts.length]! + ' '
    // Cut on a code point, not inside a surrogate pair.
    let end = chars - suffix.length
    if (/[\uD800-\uDBFF]/.test(t[end - 1] ?? '')) end--
    out.push(t.slice(0, end) + suffix)
  }
  return out
}
