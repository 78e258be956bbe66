/**
 * Sets of code points as flat, sorted, merged ranges ([lo0, hi0, lo1, hi1, ...]): what the
 * regular-expression translators (Python's `re`, the `regex` module, IGNORECASE classes)
 * build their classes from.
 */

/** Whether sorted, merged flat ranges hold `cp`. */
export function rangesHave (ranges: readonly number[], cp: number): boolean {
  let lo = 0
  let hi = ranges.length / 2 - 1
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    if (cp < ranges[2 * mid]!) hi = mid - 1
    else if (cp > ranges[2 * mid + 1]!) lo = mid + 1
    else return true
  }
  return false
}

/** The union of flat range lists, sorted and merged. */
export function union (lists: ReadonlyArray<readonly number[]>): number[] {
  const pairs: Array<[number, number]> = []
  for (const list of lists) for (let i = 0; i < list.length; i += 2) pairs.push([list[i]!, list[i + 1]!])
  pairs.sort((a, b) => a[0] - b[0])
  const out: number[] = []
  for (const [lo, hi] of pairs) {
    if (out.length > 0 && lo <= out[out.length - 1]! + 1) out[out.length - 1] = Math.max(out[out.length - 1]!, hi)
    else out.push(lo, hi)
  }
  return out
}

/**
 * The code points (0 to 0x10FFFF) outside sorted, merged flat ranges; with `withoutSurrogates`,
 * U+D800-U+DFFF left out too (a class that can never match a lone surrogate).
 */
export function complement (ranges: readonly number[], withoutSurrogates = false): number[] {
  const out: number[] = []
  let next = 0
  const push = (lo: number, hi: number): void => {
    if (!withoutSurrogates) {
      out.push(lo, hi)
      return
    }
    if (lo <= 0xd7ff) out.push(lo, Math.min(hi, 0xd7ff))
    if (hi >= 0xe000) out.push(Math.max(lo, 0xe000), hi)
  }
  for (let i = 0; i < ranges.length; i += 2) {
    if (ranges[i]! > next) push(next, ranges[i]! - 1)
    next = ranges[i + 1]! + 1
  }
  if (next <= 0x10ffff) push(next, 0x10ffff)
  return out
}
