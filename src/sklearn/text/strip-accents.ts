/**
 * scikit-learn's accent stripping (feature_extraction/text.py, 1.2-1.7), over Python's
 * NFKD and `unicodedata.combining` from src/python/.
 */
import { isAscii } from '../../python/code-point-runs.js'
import { COMBINING, pyNfkd } from '../../python/python-str.js'

/** scikit-learn's `strip_accents_unicode`: NFKD, then drop every combining character. */
export function stripAccentsUnicode (text: string): string {
  if (isAscii(text)) return text
  let out = ''
  for (const ch of pyNfkd(text)) if (!COMBINING.has(ch.codePointAt(0)!)) out += ch
  return out
}

/** scikit-learn's `strip_accents_ascii`: NFKD, then drop everything outside ASCII. */
export function stripAccentsAscii (text: string): string {
  if (isAscii(text)) return text
  let out = ''
  for (const ch of pyNfkd(text)) if (ch.charCodeAt(0) < 0x80) out += ch
  return out
}
