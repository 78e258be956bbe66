/** Byte mutations the fuzz tests share (pickles, compiled models): each takes the input and a seeded random source. */

export type Rand = () => number

/** One to eight bits flipped at random places. */
export function bitFlips (input: Uint8Array, rand: Rand): Uint8Array {
  const out = input.slice()
  const flips = 1 + Math.floor(rand() * 8)
  for (let i = 0; i < flips && out.length > 0; i++) out[Math.floor(rand() * out.length)]! ^= 1 << Math.floor(rand() * 8)
  return out
}

/** The input cut at a random length. */
export function truncation (input: Uint8Array, rand: Rand): Uint8Array {
  return input.slice(0, Math.floor(rand() * input.length))
}

/** A chunk of up to 16 bytes repeated in place up to `maxTimes` times. */
export function chunkRepeat (maxTimes: number): (input: Uint8Array, rand: Rand) => Uint8Array {
  return (input, rand) => {
    const at = Math.floor(rand() * input.length)
    const chunk = input.subarray(at, at + 1 + Math.floor(rand() * 16))
    const times = 1 + Math.floor(rand() * maxTimes)
    const out = new Uint8Array(input.length + chunk.length * times)
    out.set(input.subarray(0, at))
    for (let i = 0; i < times; i++) out.set(chunk, at + i * chunk.length)
    out.set(input.subarray(at), at + chunk.length * times)
    return out
  }
}
