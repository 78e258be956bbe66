/**
 * Whole-file decompression for joblib's compressors, detected by magic bytes as
 * joblib does (`joblib/compressor.py`): zlib and gzip with Node's zlib, bz2 with
 * seek-bzip (pure JS), xz and lzma-alone with lzma-native (liblzma itself). The
 * output is bounded (a decompression bomb stops at the limit) and every failure is
 * a ServiceError. seek-bzip and lzma-native are loaded only when a file needs them: a
 * native library that cannot load (another libc, say) disables its format alone, with an
 * error naming it, and nothing is loaded at start-up that most models never use.
 */
import zlib from 'node:zlib'
import { ServiceError } from '../errors.js'

export type Compression = 'zlib' | 'gzip' | 'bz2' | 'xz' | 'lzma' | 'lz4' | 'joblib-zfile'

const MAGIC: ReadonlyArray<readonly [Compression, readonly number[]]> = [
  ['zlib', [0x78]],
  ['gzip', [0x1f, 0x8b]],
  ['bz2', [0x42, 0x5a, 0x68]],
  ['xz', [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
  ['lzma', [0x5d, 0x00, 0x00]],
  ['lz4', [0x04, 0x22, 0x4d, 0x18]],
  ['joblib-zfile', [0x5a, 0x46]]
]

/** The compression of a model file, or undefined for a plain pickle. */
export function detectCompression (bytes: Uint8Array): Compression | undefined {
  for (const [name, magic] of MAGIC) {
    if (bytes.length >= magic.length && magic.every((b, i) => bytes[i] === b)) return name
  }
  return undefined
}

/**
 * @throws ServiceError ERR_PICKLE_LIMIT past `maxBytes` of output, ERR_MODEL_COMPRESSION
 * for corrupt or truncated data and for formats we cannot read (lz4).
 */
export async function decompress (bytes: Uint8Array, format: Compression, maxBytes: number): Promise<Uint8Array> {
  switch (format) {
    case 'zlib': return inflate(() => zlib.inflateSync(bytes, { maxOutputLength: maxBytes }), format, maxBytes)
    case 'gzip': return inflate(() => zlib.gunzipSync(bytes, { maxOutputLength: maxBytes }), format, maxBytes)
    case 'bz2': return await bunzip(bytes, maxBytes)
    case 'xz': case 'lzma': return unxz(bytes, format, maxBytes)
    case 'lz4': throw new ServiceError('ERR_MODEL_COMPRESSION', 'unsupported compression: lz4')
    case 'joblib-zfile': return inflateZfile(bytes, maxBytes)
  }
}

/** 'ZF' and the data's length in hex, padded with spaces: 2 + len(hex(2 ** 64)) bytes. */
const ZFILE_HEADER = 21

/**
 * A joblib < 0.10 z-file (`write_zfile`, joblib 0.9.4 `numpy_pickle.py`): 'ZF', the length
 * of the data as Python's hex ('0xce') padded with spaces to 19 characters (one more space
 * in files of joblib 0.8.4 and older on Python 2, which `read_zfile` skips too), then the
 * data compressed with zlib. Both the compressed pickle and its `.npy.z` array files use it.
 * @throws ServiceError ERR_PICKLE_LIMIT past `maxBytes`, ERR_MODEL_COMPRESSION for a corrupt
 * header, corrupt data, or data whose length differs from the header's.
 */
export function inflateZfile (bytes: Uint8Array, maxBytes: number): Uint8Array {
  const header = bytes.length < ZFILE_HEADER ? null : /^\s*(?:0[xX])?([0-9a-fA-F]{1,17})\s*$/.exec(String.fromCharCode(...bytes.subarray(2, ZFILE_HEADER)))
  if (bytes[0] !== 0x5a || bytes[1] !== 0x46 || header === null) throw new ServiceError('ERR_MODEL_COMPRESSION', 'corrupt joblib z-file: no length in its header')
  const length = parseInt(header[1]!, 16)
  if (length > maxBytes) throw tooLarge(maxBytes)
  const start = bytes[ZFILE_HEADER] === 0x20 ? ZFILE_HEADER + 1 : ZFILE_HEADER
  const data = inflate(() => zlib.inflateSync(bytes.subarray(start), { maxOutputLength: maxBytes }), 'joblib-zfile', maxBytes)
  if (data.length !== length) throw new ServiceError('ERR_MODEL_COMPRESSION', `corrupt joblib z-file: ${data.length} bytes of data where its header says ${length}`)
  return data
}

function tooLarge (maxBytes: number): ServiceError {
  return new ServiceError('ERR_PICKLE_LIMIT', `decompressed data exceeds ${maxBytes} bytes`)
}

function corrupt (format: Compression, err: unknown): ServiceError {
  const reason = err instanceof Error ? err.message : String(err)
  return new ServiceError('ERR_MODEL_COMPRESSION', `corrupt ${format} data: ${reason}`, { cause: err })
}

function inflate (run: () => Buffer, format: Compression, maxBytes: number): Uint8Array {
  try {
    return run()
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(maxBytes)
    throw corrupt(format, err)
  }
}

/** A module for one compression format, or a ServiceError saying that format cannot be read here. */
async function loadCodec<T> (name: string, format: Compression): Promise<T> {
  try {
    return (await import(name) as { default: T }).default
  } catch (err) {
    throw new ServiceError('ERR_MODEL_COMPRESSION', `${format} files cannot be read here: ${name} does not load (${(err as Error).message.split('\n')[0]})`, { cause: err })
  }
}

async function bunzip (bytes: Uint8Array, maxBytes: number): Promise<Uint8Array> {
  const Bunzip = await loadCodec<typeof import('seek-bzip').default>('seek-bzip', 'bz2')
  let out = new Uint8Array(Math.min(maxBytes, Math.max(1024, bytes.length * 4)))
  let size = 0
  let pos = 0
  const input = {
    readByte: (): number => {
      if (pos >= bytes.length) throw new ServiceError('ERR_MODEL_COMPRESSION', 'corrupt bz2 data: truncated')
      return bytes[pos++]!
    },
    read: (buffer: Uint8Array, offset: number, length: number): number => {
      const n = Math.min(length, bytes.length - pos)
      buffer.set(bytes.subarray(pos, pos + n), offset)
      pos += n
      return n === 0 ? -1 : n
    },
    seek: (p: number): void => { pos = p },
    eof: (): boolean => pos >= bytes.length
  }
  const output = {
    writeByte: (b: number): void => {
      if (size >= out.length) {
        if (size >= maxBytes) throw tooLarge(maxBytes)
        const grown = new Uint8Array(Math.min(maxBytes, out.length * 2))
        grown.set(out)
        out = grown
      }
      out[size++] = b
    }
  }
  try {
    Bunzip.decode(input, output, true)
  } catch (err) {
    if (err instanceof ServiceError) throw err
    throw corrupt('bz2', err)
  }
  return out.subarray(0, size)
}

async function unxz (bytes: Uint8Array, format: Compression, maxBytes: number): Promise<Uint8Array> {
  const lzma = await loadCodec<typeof import('lzma-native').default>('lzma-native', format)
  return await new Promise((resolve, reject) => {
    const decoder = lzma.createStream('autoDecoder', { memlimit: 512 * 1024 * 1024 })
    const chunks: Buffer[] = []
    let size = 0
    let settled = false
    const settle = (err: ServiceError | undefined): void => {
      if (settled) return
      settled = true
      if (err !== undefined) {
        decoder.destroy()
        reject(err)
      } else {
        resolve(Buffer.concat(chunks, size))
      }
    }
    decoder.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBytes) settle(tooLarge(maxBytes))
      else chunks.push(chunk)
    })
    decoder.on('error', (err: unknown) => settle(corrupt(format, err)))
    decoder.on('end', () => settle(undefined))
    decoder.end(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
  })
}
