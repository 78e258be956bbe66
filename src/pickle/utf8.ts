const STRICT = new TextDecoder('utf-8', { fatal: true })

/**
 * UTF-8 with Python's 'surrogatepass' error handler, which pickle uses for str: a lone
 * surrogate encoded as three bytes (ED A0..BF xx) is kept; any other invalid sequence
 * gives undefined. The strict native decoder does the common case.
 */
export function decodeUtf8SurrogatePass (bytes: Uint8Array): string | undefined {
  // Short ASCII (most vocabulary terms): cheaper by hand than a call into the native decoder.
  if (bytes.length <= 32) {
    let ascii = true
    for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0x80) { ascii = false; break }
    if (ascii) return String.fromCharCode.apply(null, bytes as unknown as number[])
  }
  try {
    return STRICT.decode(bytes)
  } catch {
    return decodeSlow(bytes)
  }
}

function decodeSlow (bytes: Uint8Array): string | undefined {
  let out = ''
  let i = 0
  while (i < bytes.length) {
    const b0 = bytes[i]!
    if (b0 < 0x80) { out += String.fromCharCode(b0); i++; continue }
    let need: number
    let cp: number
    let min: number
    if (b0 >= 0xc2 && b0 <= 0xdf) {
      need = 1; cp = b0 & 0x1f; min = 0x80
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
      need = 2; cp = b0 & 0x0f; min = 0x800
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      need = 3; cp = b0 & 0x07; min = 0x10000
    } else {
      return undefined
    }
    for (let k = 1; k <= need; k++) {
      const b = bytes[i + k]
      if (b === undefined || (b & 0xc0) !== 0x80) return undefined
      cp = (cp << 6) | (b & 0x3f)
    }
    if (cp < min || cp > 0x10ffff) return undefined
    out += String.fromCodePoint(cp)
    i += need + 1
  }
  return out
}
