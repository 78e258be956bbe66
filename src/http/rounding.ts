/**
 * Python's round(x, digits) on a float: the correctly rounded decimal, with exact ties
 * going to the even digit (round(0.125, 2) == 0.12 where toFixed gives 0.13).
 */
export function pyRound (x: number, digits: number): number {
  // Most values sit far from a half at `digits`: x * 10^digits then rounds to the same integer
  // as x's exact value would (its error is under 2^-52 of it), and that integer over 10^digits
  // is the double nearest the decimal, as Number(toFixed) gives; three strings fewer a call.
  const scale = 10 ** digits
  const scaled = x * scale
  const fraction = scaled - Math.floor(scaled)
  if (Math.abs(scaled) < 2 ** 52 && Math.abs(fraction - 0.5) > 1e-6) return Math.round(scaled) / scale
  return pyRoundNearHalf(x, digits)
}

/** pyRound by decimal strings: for values near a half at `digits` (and non-finite ones). */
export function pyRoundNearHalf (x: number, digits: number): number {
  if (!Number.isFinite(x) || x === 0) return x
  if (isHalfAt(x, digits)) {
    const scaled = Math.abs(x) * 10 ** digits
    const down = Math.floor(scaled)
    const even = down % 2 === 0 ? down : down + 1
    return Math.sign(x) * Number((even / 10 ** digits).toFixed(digits))
  }
  // toFixed rounds x's exact value; only an exact half could go either way.
  return Number(x.toFixed(digits))
}

const view = new DataView(new ArrayBuffer(8))

/** Trailing zero bits of a nonzero 32-bit value. */
const trailingZeros = (v: number): number => 31 - Math.clz32(v & -v)

/**
 * Whether x (finite, not 0) is exactly a half at `digits` decimals (|x| * 10^digits = k + 1/2): with x = m * 2^e
 * (m an integer), 2|x| 10^digits = m 2^(e+1+digits) 5^digits is an odd integer exactly when m's
 * trailing zero bits and e + 1 + digits cancel. A double that only prints as a half, such as
 * 0.175 or 2.675, is not one: Python rounds its exact value, which lies below the half.
 */
function isHalfAt (x: number, digits: number): boolean {
  view.setFloat64(0, x, true)
  const low = view.getUint32(0, true)
  const high = view.getUint32(4, true)
  const biased = (high >>> 20) & 0x7ff
  // m: the 52 stored bits, and a normal double's implicit leading 1.
  const top = (high & 0xfffff) | (biased === 0 ? 0 : 0x100000)
  const e = biased === 0 ? -1074 : biased - 1075
  const trailing = low !== 0 ? trailingZeros(low) : 32 + trailingZeros(top)
  return trailing + e + 1 + digits === 0
}
