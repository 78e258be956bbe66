/**
 * Python's `str()` of the values a `classes_` array holds, so labels read as Python
 * prints them: 1 -> '1', True -> 'True', 0.5 -> '0.5', 1.0 -> '1.0', 1e16 -> '1e+16'.
 */
import { summarize } from '../pickle/summarize.js'

/** `repr(float)`: shortest round-trip digits, fixed between 1e-4 and 1e16, else exponent form. */
export function pyFloatRepr (x: number): string {
  if (Number.isNaN(x)) return 'nan'
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf'
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0'
  const [mantissa, expText] = x.toExponential().split('e') as [string, string]
  const exp = Number(expText)
  const sign = mantissa.startsWith('-') ? '-' : ''
  const digits = mantissa.replace('-', '').replace('.', '')
  if (exp >= 16 || exp < -4) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`
  const whole = digits.slice(0, exp + 1).padEnd(exp + 1, '0')
  const frac = digits.slice(exp + 1)
  return `${sign}${whole}.${frac === '' ? '0' : frac}`
}

/** `str(value)` for a label: str, int, bool, float or bytes. */
export function pyStr (value: unknown, isFloat = false): string {
  if (typeof value === 'string') return value
  if (typeof value === 'boolean') return value ? 'True' : 'False'
  if (typeof value === 'bigint') return value.toString()
  if (typeof value === 'number') return isFloat ? pyFloatRepr(value) : Number.isInteger(value) ? String(value) : pyFloatRepr(value)
  if (value === null || value === undefined) return 'None'
  if (value instanceof Uint8Array) return `b'${Array.from(value, b => b >= 0x20 && b < 0x7f && b !== 0x27 && b !== 0x5c ? String.fromCharCode(b) : '\\x' + b.toString(16).padStart(2, '0')).join('')}'`
  return summarize(value)
}
