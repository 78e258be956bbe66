/**
 * The few Python string operations NLTK's Snowball stemmers lean on whose JavaScript
 * look-alikes differ. Every stemmer here works on strings with no surrogate pairs (see
 * `withCodePoints`), where a UTF-16 index is a Python index; slicing with `slice` already
 * clamps negative bounds as Python does, so only indexing needs help.
 */

/**
 * Python's `text[index]`: negative indexes count from the end.
 * @throws RangeError where Python raises `IndexError: string index out of range`; NLTK
 *   lets that escape for some short words, so the stemmer throws too.
 */
export function at (text: string, index: number): string {
  const i = index < 0 ? text.length + index : index
  if (i < 0 || i >= text.length) throw new RangeError('string index out of range')
  return text[i]!
}

/** nltk.stem.util.suffix_replace: `original[:-len(old)] + new`, trusting that it ends with `old`. */
export function suffixReplace (original: string, old: string, replacement: string): string {
  return original.slice(0, -old.length) + replacement
}

/** nltk.stem.util.prefix_replace: `new + original[len(old):]`. */
export function prefixReplace (original: string, old: string, replacement: string): string {
  return replacement + original.slice(old.length)
}

/** `text.endswith(tuple)`. */
export function endsWithAny (text: string, suffixes: readonly string[]): boolean {
  for (const suffix of suffixes) if (text.endsWith(suffix)) return true
  return false
}

/** `text.startswith(tuple)`. */
export function startsWithAny (text: string, prefixes: readonly string[]): boolean {
  for (const prefix of prefixes) if (text.startsWith(prefix)) return true
  return false
}

/** `text[:i] + ch + text[i + 1:]`. */
export function replaceAt (text: string, i: number, ch: string): string {
  return text.slice(0, i) + ch + text.slice(i + 1)
}
