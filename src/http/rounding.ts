/**
 * Python's round(x, digits) on a float: the correctly rounded decimal, with exact ties
 * going to the even digit (round(0.125, 2) == 0.12 where toFixed gives 0.13).
 */
export function pyRound (x: number, digits: number): number {
  if (!Number.isFinite(x)) return x
  const longer = x.toFixed(digits + 1)
  // An exact tie is a value with exactly digits+1 decimals ending in 5.
  if (longer.endsWith('5') && Number(longer) === x) {
    const scaled = Math.abs(x) * 10 ** digits
    const down = Math.floor(scaled)
    const even = down % 2 === 0 ? down : down + 1
    return Math.sign(x) * Number((even / 10 ** digits).toFixed(digits))
  }
  return Number(x.toFixed(digits))
}
