/**
 * scikit-learn's `_white_spaces` (feature_extraction/text.py, 1.2-1.7), applied before
 * character n-grams, with Python's `\s` from src/python/.
 */
import { SPACE } from '../../python/python-str.js'

/** `re.sub(r"\s\s+", " ", text)`: scikit-learn's white-space squeeze before character n-grams. */
export function squeezeWhiteSpace (text: string): string {
  let out = ''
  let run = ''
  for (const ch of text) {
    if (SPACE.has(ch.codePointAt(0)!)) {
      run += ch
      continue
    }
    // Every white-space code point is in the BMP, so length counts them.
    if (run !== '') out += run.length === 1 ? run : ' '
    run = ''
    out += ch
  }
  if (run !== '') out += run.length === 1 ? run : ' '
  return out
}
