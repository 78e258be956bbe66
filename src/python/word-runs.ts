import { WORD } from './python-str.js'

/**
 * Calls `onRun(start, end)` (UTF-16 offsets) for each maximal run of Python `\w` of at
 * least `minLength` code points: exactly what `\b\w\w+\b` (minLength 2) and its kin find.
 */
export function forEachWordRun (text: string, minLength: number, onRun: (start: number, end: number) => void): void {
  let start = -1
  let points = 0
  for (let i = 0; i <= text.length;) {
    const cp = i < text.length ? text.codePointAt(i)! : -1
    if (cp >= 0 && WORD.has(cp)) {
      if (start < 0) {
        start = i
        points = 0
      }
      points++
    } else if (start >= 0) {
      if (points >= minLength) onRun(start, i)
      start = -1
    }
    i += cp > 0xffff ? 2 : 1
  }
}
