/**
 * CountVectorizer's counts in an integer or bool `dtype`. `_count_vocab` (scikit-learn 1.2 to
 * 1.9) counts in C ints and builds `csr_matrix((values, j_indices, indptr), dtype=self.dtype)`,
 * numpy's unsafe cast: a count wraps around in a narrow type (300 is 44 as int8, 256 is an
 * explicit 0 as uint8) and is True as bool; `binary` then fills the data with 1.
 */

/** A count as the dtype stores it (a whole number), or null for a float dtype. */
export type CountCast = (count: number) => number

/** numpy's names (and array-protocol codes) of the integer and bool dtypes, by the cast they make. */
const CASTS: ReadonlyArray<readonly [readonly string[], CountCast]> = [
  [['bool', 'bool_', 'bool8', 'b1', '?'], c => c !== 0 ? 1 : 0],
  [['int8', 'i1', 'byte', 'b'], c => (c << 24) >> 24],
  [['uint8', 'u1', 'ubyte', 'B'], c => c & 0xff],
  [['int16', 'i2', 'short', 'h'], c => (c << 16) >> 16],
  [['uint16', 'u2', 'ushort', 'H'], c => c & 0xffff],
  [['int32', 'i4', 'intc', 'i'], c => c | 0],
  [['uint32', 'u4', 'uintc', 'I'], c => c >>> 0],
  // counts of a text the service accepts stay far below 2^31: the wide types hold them as they are
  [['int64', 'i8', 'int', 'int_', 'long', 'longlong', 'intp', 'l', 'q'], c => c],
  [['uint64', 'u8', 'uint', 'ulong', 'ulonglong', 'uintp', 'L', 'Q'], c => c]
]

const BY_NAME = new Map(CASTS.flatMap(([names, cast]) => names.map(n => [n, cast] as const)))

/** The cast of an integer or bool dtype name (as `dtypeName` gives it), or null for any other. */
export function countCast (dtype: string): CountCast | null {
  return BY_NAME.get(dtype) ?? null
}
