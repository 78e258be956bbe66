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
