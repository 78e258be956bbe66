/**
 * Python 3.11's text functions that a model's declared preprocessing names, reproduced
 * exactly and by code point (astral characters count as one, as in Python), at Python's
 * Unicode version (14.0) rather than Node's: str methods (casefold, upper, strip,
 * translate, the is* predicates), `unicodedata.normalize`, `html.unescape`, the `string`
 * constants, and `re.sub` / `re.split` / `re.findall` over translated patterns.
 * str.lower() and str.split() are in src/python/python-str.ts, which scikit-learn's
 * own preprocessing uses.
 */
export { pyCasefold, pyUpper } from '../python/case-mapping.js'
export { createStripper, pyLstrip, pyRstrip, pyStrip, type StripSide } from '../python/str-strip.js'
export { pyNormalize, type NormalizationForm } from '../python/normalize.js'
export { htmlUnescape } from '../python/html-unescape.js'
export { makeTranslation, makeTranslationFromMap, pyTranslate, type PyTranslation } from '../python/translate.js'
export { PY_STRING_CONSTANTS, pyStringConstant, type PyStringConstantName } from '../python/string-constants.js'
export {
  pyIsAlnum, pyIsAlpha, pyIsAscii, pyIsDecimal, pyIsDigit, pyIsLower, pyIsNumeric, pyIsSpace, pyIsTitle, pyIsUpper
} from '../python/str-predicates.js'
export { compileReFindall, compileReSplit, compileReSub } from '../python/re-functions.js'
