/**
 * One document's features: parallel column indices and values, in the order
 * scikit-learn's CSR row holds them (which sets the order of floating-point sums).
 */
export interface SparseRow {
  readonly indices: Int32Array
  readonly values: Float64Array
  /** The row's dtype is float32: its values are float32 numbers and float32 arithmetic follows. */
  readonly float32: boolean
  /**
   * The row's dtype is an integer or bool one (CountVectorizer's counts): scikit-learn's
   * float-only routines (the k-NN reductions) do not take it. Absent means a float dtype.
   */
  readonly integer?: boolean
}

/** A row's dtype fields, for a row built from another of the same dtype (a column subset). */
export function dtypeOf (row: SparseRow): Pick<SparseRow, 'float32' | 'integer'> {
  return row.integer === true ? { float32: row.float32, integer: true } : { float32: row.float32 }
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
