/**
 * The constants of Python 3.11's `string` module, by their dotted names, so a setting
 * can say "string.punctuation" where Python code would.
 */
const DIGITS = '0123456789'
const LOWERCASE = 'abcdefghijklmnopqrstuvwxyz'
const UPPERCASE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'
const WHITESPACE = ' \t\n\r\x0b\x0c'

export const PY_STRING_CONSTANTS = Object.freeze({
  'string.ascii_letters': LOWERCASE + UPPERCASE,
  'string.ascii_lowercase': LOWERCASE,
  'string.ascii_uppercase': UPPERCASE,
  'string.digits': DIGITS,
  'string.hexdigits': DIGITS + 'abcdef' + 'ABCDEF',
  'string.octdigits': '01234567',
  'string.punctuation': PUNCTUATION,
  'string.printable': DIGITS + LOWERCASE + UPPERCASE + PUNCTUATION + WHITESPACE,
  'string.whitespace': WHITESPACE
})

export type PyStringConstantName = keyof typeof PY_STRING_CONSTANTS

/** The constant named `name` ("string.digits"), or undefined. */
export function pyStringConstant (name: string): string | undefined {
  return Object.hasOwn(PY_STRING_CONSTANTS, name) ? PY_STRING_CONSTANTS[name as PyStringConstantName] : undefined
}
