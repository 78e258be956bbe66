/**
 * Python 3.11's `unicodedata.normalize(form, s)` at Python's Unicode 14: JavaScript's
 * normalize (Node's newer ICU gives the same result for every character Unicode 14
 * assigns, by Unicode's stability policy) on the runs between code points Unicode 14
 * leaves unassigned, which Python passes through untouched. Such a code point is a
 * starter to Python that composes with nothing, so normalizing the runs on either side
 * apart is what Python does.
 */
import { ServiceError } from '../errors.js'
import { UNASSIGNED, charProps } from './char-props.js'
import { mapByCodePoint } from './code-point-runs.js'

export type NormalizationForm = 'NFC' | 'NFD' | 'NFKC' | 'NFKD'

const FORMS: ReadonlySet<string> = new Set(['NFC', 'NFD', 'NFKC', 'NFKD'])

/**
 * `unicodedata.normalize(form, s)`.
 * @throws ServiceError ERR_CONFIG_INVALID for a form Python does not know (it raises ValueError).
 */
export function pyNormalize (form: NormalizationForm, s: string): string {
  if (!FORMS.has(form)) throw new ServiceError('ERR_CONFIG_INVALID', `unicodedata.normalize: invalid normalization form ${JSON.stringify(form)}`)
  return mapByCodePoint(s, run => run.normalize(form), cp => (charProps(cp) & UNASSIGNED) !== 0 ? String.fromCodePoint(cp) : undefined)
}
