/**
 * A string mapped in runs by a JavaScript built-in, except for the code points Python treats
 * otherwise (case mappings, normalization), which are answered one by one.
 */

// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/

/** Whether every code unit of `s` is ASCII (true for ''): such a string is one run. */
export function isAscii (s: string): boolean {
  return ASCII.test(s)
}

/**
 * Maps s through `bulk` (JavaScript's own mapping) in runs, except for each non-ASCII code
 * point `single` answers for, which takes that answer; an all-ASCII string is one run.
 */
export function mapByCodePoint (s: string, bulk: (run: string) => string, single: (cp: number) => string | undefined): string {
  if (isAscii(s)) return bulk(s)
  let out = ''
  let run = 0
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) < 0x80) continue
    const cp = s.codePointAt(i)!
    const width = cp > 0xffff ? 2 : 1
    const mapped = single(cp)
    if (mapped !== undefined) {
      out += bulk(s.slice(run, i)) + mapped
      run = i + width
    }
    i += width - 1
  }
  return out + bulk(s.slice(run))
}
