// Minimal typings for the two untyped CommonJS packages we use, covering only what we call.

declare module 'lzma-native' {
  import type { Transform } from 'node:stream'
  interface StreamOptions { memlimit?: number, synchronous?: boolean }
  export function createStream (coder: 'autoDecoder' | 'aloneDecoder' | 'rawDecoder', options?: StreamOptions): Transform
  const lzma: { createStream: typeof createStream }
  export default lzma
}

declare module 'seek-bzip' {
  interface InputStream { readByte: () => number, read: (buffer: Uint8Array, offset: number, length: number) => number, seek: (pos: number) => void, eof: () => boolean }
  interface OutputStream { writeByte: (byte: number) => void }
  const Bunzip: { decode: (input: InputStream | Uint8Array, output: OutputStream, multistream?: boolean) => unknown }
  export default Bunzip
}
