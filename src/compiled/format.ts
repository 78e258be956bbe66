/**
 * The compiled model file (`tfidf-serve compile`): what the decoding thread shares, written
 * so that loading is one read into shared memory and views over it.
 *
 *   offset  size  field
 *        0     8  MAGIC
 *        8     4  format version (u32)
 *       12     4  H: bytes of the header JSON (u32)
 *       16     4  T: bytes of the tree JSON (u32)
 *       20     4  zero
 *       24     8  B: bytes of the array blob (u64)
 *       32    32  SHA-256 of every byte from 64 to the end of the file
 *       64     H  header JSON: the product version that wrote it, each source file's SHA-256
 *     64+H     T  tree JSON: the model's state, settings and notes, each typed array
 *                 replaced by its index in `arrays` ([dtype, offset, length] into the blob)
 *        …        zeros up to a multiple of 8
 *        …     B  the blob: every array, each 8-byte aligned, as the decoding thread lays
 *                 them out in shared memory (src/sklearn/shared-state.ts); the file ends here
 *
 * Little-endian throughout. A compiled file is untrusted input, as a pickle is: the reader
 * checks every field before it uses it.
 */

/** Not a pickle's first byte (0x80, or an opcode), nor text: a file of another kind never passes for one. */
export const MAGIC = Uint8Array.from([0x89, 0x54, 0x46, 0x53, 0x43, 0x0d, 0x0a, 0x1a]) // \x89TFSC\r\n\x1a

/** Bumped whenever the layout or the meaning of the tree changes; a file of another version is refused. */
export const FORMAT_VERSION = 3

export const PREAMBLE_BYTES = 64
export const CHECKSUM_AT = 32

/** Bounds on what a file may declare, checked before anything is allocated or parsed. */
export const LIMITS = {
  headerBytes: 1024 * 1024,
  treeBytes: 256 * 1024 * 1024,
  blobBytes: 2 ** 34,
  arrays: 10_000_000,
  /** Nesting of the tree (an ensemble of stackings of pipelines is still far below it). */
  depth: 64
} as const

/** The typed arrays a state may hold, by the name written in the file: a closed list. */
export const DTYPES = {
  i8: Int8Array,
  u8: Uint8Array,
  i16: Int16Array,
  u16: Uint16Array,
  i32: Int32Array,
  u32: Uint32Array,
  f32: Float32Array,
  f64: Float64Array,
  i64: BigInt64Array,
  u64: BigUint64Array
} as const

export type DtypeName = keyof typeof DTYPES

export type AnyTypedArray = InstanceType<(typeof DTYPES)[DtypeName]>

/** The file name of `array`'s kind, or undefined for a kind the format does not carry. */
export function dtypeOf (array: ArrayBufferView): DtypeName | undefined {
  for (const [name, Kind] of Object.entries(DTYPES)) if (array.constructor === Kind) return name as DtypeName
  return undefined
}

/** A model file's role and SHA-256, as the header records each source the compiled file was made from. */
export interface SourceFile {
  readonly role: 'model' | 'vectorizer' | 'settings' | 'functions' | 'labels' | 'data'
  /** As given when compiled, for messages. */
  readonly file: string
  readonly sha256: string
}

export interface CompiledHeader {
  /** package.json's version of the tfidf-serve that wrote the file. */
  readonly product: string
  readonly sources: readonly SourceFile[]
}

/** `n` rounded up to a multiple of 8: every array starts 8-byte aligned, as Float64Array views need. */
export function aligned8 (n: number): number {
  return Math.ceil(n / 8) * 8
}
