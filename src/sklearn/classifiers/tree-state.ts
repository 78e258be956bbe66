/** A scikit-learn tree as plain data: what tree.ts reads and walks, and what explanations read. */

/** One fitted tree as parallel arrays, one entry per node. */
export interface TreeState {
  readonly nodeCount: number
  /** Child node ids; -1 at a leaf. Children always come after their parent. */
  readonly left: Int32Array
  readonly right: Int32Array
  readonly feature: Int32Array
  readonly threshold: Float64Array
  /**
   * 1.3+'s `missing_go_to_left` (1: a NaN feature goes left, as `_apply_dense` sends it), or an
   * empty array. TF-IDF rows never hold NaN, and scikit-learn's sparse path has no NaN branch.
   */
  readonly missingGoLeft: Uint8Array
  /** `values` per node: nodeCount rows of `width` doubles (class counts or fractions; one for a regressor). */
  readonly values: Float64Array
  readonly width: number
  /**
   * `weighted_n_node_samples`: each node's training weight, the cover TreeSHAP splits a path's
   * weight by (shap's `node_sample_weight`); empty when the record has none.
   */
  readonly cover: Float64Array
}
