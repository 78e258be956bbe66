/**
 * One document's features: parallel column indices and values, in the order
 * scikit-learn's CSR row holds them (which sets the order of floating-point sums).
 */
export interface SparseRow {
  readonly indices: Int32Array
  readonly values: Float64Array
  /** The row's dtype is float32: its values are float32 numbers and float32 arithmetic follows. */
  readonly float32: boolean
}

/** A dense row (e.g. TruncatedSVD's output) as a row holding every column, in order. */
export function denseRow (values: Float64Array, float32 = false): SparseRow {
  const indices = new Int32Array(values.length)
  for (let j = 0; j < indices.length; j++) indices[j] = j
  return { indices, values, float32 }
}

/** The row's entries by increasing index, as scikit-learn's `X.sort_indices()` leaves them. */
export function sortedEntries (row: SparseRow): { indices: Int32Array, values: Float64Array } {
  const { indices, values } = row
  let sorted = true
  for (let e = 1; e < indices.length; e++) {
    if (indices[e]! < indices[e - 1]!) {
      sorted = false
      break
    }
  }
  if (sorted) return { indices, values }
  const order = Array.from(indices.keys()).sort((a, b) => indices[a]! - indices[b]!)
  return { indices: Int32Array.from(order, e => indices[e]!), values: Float64Array.from(order, e => values[e]!) }
}
