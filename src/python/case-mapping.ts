/**
 * Python 3.11's `str.casefold()` and `str.upper()`, by code point, at Python's Unicode 14.
 */
import { FOLD_SPECIAL, UPPER_CHANGES, charProps, mappingTable } from './char-props.js'
import { mapByCodePoint } from './code-point-runs.js'
import { CASEFOLD_EXTRA, UPPER_MAP } from './unicode-tables.js'

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
  return mapByCodePoint(s, run => run.toLowerCase(), cp => {
    if ((charProps(cp) & FOLD_SPECIAL) === 0) return undefined
    // Σ is special only because toLowerCase would apply Final_Sigma; casefold gives σ.
    return cp === 0x3a3 ? 'σ' : foldExtra().get(cp) ?? String.fromCodePoint(cp)
  })
}

/**
 * `s.upper()`: full case mapping, character by character, from Python's own table for
 * every non-ASCII character (Node's newer ICU maps some that Unicode 14 does not, such
 * as U+0264), so ASCII runs alone go through toUpperCase.
 */
export function pyUpper (s: string): string {
  return mapByCodePoint(s, run => run.toUpperCase(), cp =>
    (charProps(cp) & UPPER_CHANGES) !== 0 ? upperMap().get(cp)! : String.fromCodePoint(cp))
}
