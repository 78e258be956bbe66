/**
 * Python's `len()` of a str: code points, a surrogate pair counting once (and a lone
 * surrogate once, as Python counts it). No tables: the HTTP thread uses it too.
 */
export function pyLen (text: string): number {
  let n = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    // A high surrogate followed by a low one is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++
    n++
  }
  return n
}
