/**
 * Input cut into chunks of whole lines, each in a buffer of its own that can move to a
 * worker. Reads go into one reused buffer: a fresh buffer per read would pile up on the
 * reading thread, whose small heap rarely collects, as external memory (30 MB of it,
 * measured on a million lines).
 */
import { open } from 'node:fs/promises'
import { read } from 'node:fs'
import { promisify } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'

const readInto = promisify(read)

/** Bytes of `fd` as they come, each view valid until the next is asked for. */
async function * reads (fd: number, size: number): AsyncGenerator<Uint8Array> {
  const buffer = new Uint8Array(size)
  for (;;) {
    let n: number
    try {
      n = (await readInto(fd, buffer, 0, size, null)).bytesRead
    } catch (err) {
      // A stdin its parent left non-blocking: nothing to read yet.
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') {
        await sleep(5)
        continue
      }
      throw err
    }
    if (n === 0) return
    yield buffer.subarray(0, n)
  }
}

/**
 * Where the last whole line of `bytes` ends (the index after its line end), or -1. A \r as
 * the very last byte does not count: a \n may follow it in the next read.
 */
export function endOfLastLine (bytes: Uint8Array): number {
  for (let i = bytes.length - 1; i >= 0; i--) {
    const b = bytes[i]
    if (b === 0x0a || (b === 0x0d && i < bytes.length - 1)) return i + 1
  }
  return -1
}

function joined (a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}

/** Whole-line chunks of a file (stdin for undefined or '-'), about `size` bytes each. */
export async function * lineChunks (file: string | undefined, size: number): AsyncGenerator<Uint8Array> {
  const handle = file === undefined || file === '-' ? undefined : await open(file)
  try {
    let rest: Uint8Array = new Uint8Array(0)
    for await (const bytes of reads(handle?.fd ?? 0, size)) {
      const end = endOfLastLine(bytes)
      if (end < 0) {
        rest = joined(rest, bytes)
        continue
      }
      yield joined(rest, bytes.subarray(0, end))
      rest = bytes.slice(end)
    }
    if (rest.length > 0) yield rest
  } finally {
    await handle?.close()
  }
}
