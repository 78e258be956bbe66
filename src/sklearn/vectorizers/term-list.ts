/**
 * A vocabulary as plain typed data: every term's UTF-16 code units, one after another in
 * feature order, and where each ends. No string or object per term, so it can sit in a
 * model's state (and in memory shared between threads).
 */
export interface TermList {
  readonly count: number
  /** The code units of term 0, then term 1, ... */
  readonly units: Uint16Array
  /** ends[j]: one past term j's last code unit. */
  readonly ends: Int32Array
}

/** Terms in feature order to a TermList. */
export function packTerms (terms: readonly string[]): TermList {
  const ends = new Int32Array(terms.length)
  let total = 0
  terms.forEach((t, j) => { total += t.length; ends[j] = total })
  const units = new Uint16Array(total)
  let at = 0
  for (const t of terms) {
    for (let i = 0; i < t.length; i++) units[at++] = t.charCodeAt(i)
  }
  return { count: terms.length, units, ends }
}

/** Term `j` as a string. */
export function termAt (list: TermList, j: number): string {
  const start = j === 0 ? 0 : list.ends[j - 1]!
  let out = ''
  // In slices: String.fromCharCode takes its arguments on the stack.
  for (let i = start; i < list.ends[j]!; i += 4096) out += String.fromCharCode(...list.units.subarray(i, Math.min(i + 4096, list.ends[j]!)))
  return out
}
