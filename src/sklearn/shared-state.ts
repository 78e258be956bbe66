/**
 * A model's state with every typed array moved into one SharedArrayBuffer: posted to worker
 * threads (structured clone), the arrays arrive as views of the same memory, so a model
 * decoded once is held once, however many threads use it. Generic over any estimator's
 * state: it walks plain objects and arrays and moves what it finds.
 */

type AnyTypedArray = Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array | Int32Array | Uint32Array |
Float32Array | Float64Array | BigInt64Array | BigUint64Array

function isTypedArray (value: unknown): value is AnyTypedArray {
  return ArrayBuffer.isView(value) && !(value instanceof DataView)
}

/** Visits every distinct typed array in a plain-data tree. */
function collect (value: unknown, found: Set<AnyTypedArray>): void {
  if (isTypedArray(value)) {
    found.add(value)
  } else if (Array.isArray(value)) {
    for (const item of value) collect(item, found)
  } else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) collect(item, found)
  }
}

function rebuild<T> (value: T, moved: ReadonlyMap<AnyTypedArray, AnyTypedArray>): T {
  if (isTypedArray(value)) return moved.get(value) as T
  if (Array.isArray(value)) return value.map(item => rebuild(item, moved)) as T
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rebuild(v, moved)])) as T
  }
  return value
}

/**
 * glibc serves an allocation above its mmap threshold with a mapping of its own, given back
 * whole when freed; but freeing such a block raises the threshold to its size (up to 32 MiB),
 * so the next models' buffers came from malloc's heaps, where freeing leaves them resident
 * (measured: ten 18 MB models loaded one after another, then unloaded, kept 188 MB). A buffer
 * of 1 MiB or more is therefore asked for past 32 MiB: always a mapping of its own, and the
 * pages past `bytes` are never touched, so they cost address space, not memory.
 */
const OWN_MAPPING = 32 * 1024 * 1024 + 4096

/** The bytes to ask for a shared buffer holding `bytes` (a compiled model's reader asks the same). */
export function reserved (bytes: number): number {
  return bytes >= 1024 * 1024 ? Math.max(bytes, OWN_MAPPING) : bytes
}

/**
 * `state` with its typed arrays copied into one SharedArrayBuffer (each 8-byte aligned; an
 * array held twice in the tree stays one array). Everything else is copied as it is.
 * @returns the shared state and the bytes the buffer holds.
 */
export function shareState<T> (state: T): { state: T, bytes: number } {
  const found = new Set<AnyTypedArray>()
  collect(state, found)
  let bytes = 0
  for (const a of found) bytes += Math.ceil(a.byteLength / 8) * 8
  const buffer = new SharedArrayBuffer(reserved(bytes))
  const moved = new Map<AnyTypedArray, AnyTypedArray>()
  let offset = 0
  for (const a of found) {
    const Kind = a.constructor as new (buffer: SharedArrayBuffer, offset: number, length: number) => AnyTypedArray
    const view = new Kind(buffer, offset, a.length)
    new Uint8Array(buffer, offset, a.byteLength).set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength))
    moved.set(a, view)
    offset += Math.ceil(a.byteLength / 8) * 8
  }
  return { state: rebuild(state, moved), bytes }
}

/** Bytes of the typed arrays in `state`, and how many of them live in shared memory. */
export function stateBytes (state: unknown): { total: number, shared: number } {
  const found = new Set<AnyTypedArray>()
  collect(state, found)
  let total = 0
  let shared = 0
  for (const a of found) {
    total += a.byteLength
    if (a.buffer instanceof SharedArrayBuffer) shared += a.byteLength
  }
  return { total, shared }
}
