/**
 * Python 3.11's `str.casefold()` and `str.upper()`, by code point, at Python's Unicode 14.
 */
import { FOLD_SPECIAL, UPPER_CHANGES, charProps, mappingTable } from './char-props.js'
import { CASEFOLD_EXTRA, UPPER_MAP } from './unicode-props.js'

// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/
const foldExtra = mappingTable(CASEFOLD_EXTRA)
const upperMap = mappingTable(UPPER_MAP)

/**
 * `s.casefold()`: full case folding, character by character (no Final_Sigma, unlike
 * lower()). Where it equals lower() of the character alone, JavaScript's toLowerCase is
 * used on whole runs (the same full mappings, as pyLower relies on); CASEFOLD_EXTRA
 * covers the rest ('ß' -> 'ss', 'ﬁ' -> 'fi', Cherokee small letters -> capitals ...), and
 * code points Python does not know stay as they are.
 */
export function pyCasefold (s: string): string {
  if (ASCII.test(s)) return s.toLowerCase()
  let out = ''
  let run = 0
  for (let i = 0; i < s.length; i++) {
    const unit = s.charCodeAt(i)
    if (unit < 0x80) continue
    const cp = s.codePointAt(i)!
    const wide = cp > 0xffff
    if ((charProps(cp) & FOLD_SPECIAL) !== 0) {
      // Σ is special only because toLowerCase would apply Final_Sigma; casefold gives σ.
      out += s.slice(run, i).toLowerCase() + (cp === 0x3a3 ? 'σ' : foldExtra().get(cp) ?? String.fromCodePoint(cp))
      run = i + (wide ? 2 : 1)
    }
    if (wide) i++
  }
  return run === 0 ? s.toLowerCase() : out + s.slice(run).toLowerCase()
}

/**
 * `s.upper()`: full case mapping, character by character, from Python's own table for
 * every non-ASCII character (Node's newer ICU maps some that Unicode 14 does not, such
 * as U+0264), so ASCII runs alone go through toUpperCase.
 */
export function pyUpper (s: string): string {
  if (ASCII.test(s)) return s.toUpperCase()
  let out = ''
  let run = 0
  for (let i = 0; i < s.length; i++) {
    const unit = s.charCodeAt(i)
    if (unit < 0x80) continue
    const cp = s.codePointAt(i)!
    const width = cp > 0xffff ? 2 : 1
    out += s.slice(run, i).toUpperCase()
    out += (charProps(cp) & UPPER_CHANGES) !== 0 ? upperMap().get(cp)! : s.slice(i, i + width)
    run = i + width
    i += width - 1
  }
  return out + s.slice(run).toUpperCase()
}
