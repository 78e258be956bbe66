/**
 * One document's features: parallel column indices and values, in the order
 * scikit-learn's CSR row holds them (which sets the order of floating-point sums).
 */
export interface SparseRow {
  readonly indices: Int32Array
  readonly values: Float64Array
}
