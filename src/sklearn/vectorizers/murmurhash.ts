/**
 * scikit-learn's `murmurhash3_32(feature.encode('utf-8'), seed=0)` (MurmurHash3_x86_32,
 * blocks read little-endian, result as a signed 32-bit integer), over a string's UTF-8
 * bytes produced on the fly: no byte array per feature. A lone surrogate, which Python
 * refuses to encode, is hashed as U+FFFD, as TextEncoder would encode it.
 */
const C1 = 0xcc9e2d51
const C2 = 0x1b873593

function mixBlock (h: number, k: number): number {
  k = Math.imul(k, C1)
  k = (k << 15) | (k >>> 17)
  k = Math.imul(k, C2)
  h ^= k
  h = (h << 13) | (h >>> 19)
  return (Math.imul(h, 5) + 0xe6546b64) | 0
}

// The hash state while a string's bytes are fed in (module-level: no closure per call).
let h1 = 0
let block = 0
let filled = 0
let length = 0

function pushByte (byte: number): void {
  block |= byte << (filled << 3)
  length++
  if (++filled === 4) {
    h1 = mixBlock(h1, block)
    block = 0
    filled = 0
  }
}

/** Feeds `text`'s UTF-8 bytes into the hash state. */
function feed (text: string): void {
  for (let i = 0; i < text.length; i++) {
    let cp = text.charCodeAt(i)
    if (cp < 0x80) {
      pushByte(cp)
      continue
    }
    if (cp >= 0xd800 && cp <= 0xdfff) {
      const next = text.charCodeAt(i + 1)
      if (cp <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (next - 0xdc00)
        i++
      } else {
        cp = 0xfffd
      }
    }
    if (cp < 0x800) {
      pushByte(0xc0 | (cp >> 6)); pushByte(0x80 | (cp & 0x3f))
    } else if (cp < 0x10000) {
      pushByte(0xe0 | (cp >> 12)); pushByte(0x80 | ((cp >> 6) & 0x3f)); pushByte(0x80 | (cp & 0x3f))
    } else {
      pushByte(0xf0 | (cp >> 18)); pushByte(0x80 | ((cp >> 12) & 0x3f)); pushByte(0x80 | ((cp >> 6) & 0x3f)); pushByte(0x80 | (cp & 0x3f))
    }
  }
}

function begin (): void {
  h1 = 0
  block = 0
  filled = 0
  length = 0
}

function finish (): number {
  let h = h1
  if (filled > 0) {
    let k = Math.imul(block, C1)
    k = (k << 15) | (k >>> 17)
    h ^= Math.imul(k, C2)
  }
  h ^= length
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h | 0
}

/** The signed 32-bit MurmurHash3 (seed 0) of `text`'s UTF-8 encoding. */
export function murmurhash3Utf8 (text: string): number {
  begin()
  feed(text)
  return finish()
}

/** The hash of `tokens[start .. start + n)` joined by single spaces (a word n-gram), without joining them. */
export function murmurhash3Words (tokens: readonly string[], start: number, n: number): number {
  begin()
  feed(tokens[start]!)
  for (let k = 1; k < n; k++) {
    pushByte(0x20)
    feed(tokens[start + k]!)
  }
  return finish()
}
