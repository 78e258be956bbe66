import { expect } from 'chai'
import { JsonShapeScanner } from '../../src/http/json-shape.js'
import { prng } from '../helpers/prng.js'

const STRINGS = ['', 'a', 'say "hi"', 'back\\slash', '[not, {an, array}]', 'line\nbreak', 'é😀', '\\"', '\\', ',,,']

function randomValue (rand: () => number, depth: number): unknown {
  const r = rand()
  if (depth > 6 || r < 0.4) return [STRINGS[Math.floor(rand() * STRINGS.length)], 1.5, null, true][Math.floor(rand() * 4)]
  const n = Math.floor(rand() * 5)
  if (r < 0.7) return Array.from({ length: n }, () => randomValue(rand, depth + 1))
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`${STRINGS[i % STRINGS.length]}${i}`, randomValue(rand, depth + 1)]))
}

/** What the scanner should find: the deepest nesting, and one value per container plus one per separator. */
function shapeOf (value: unknown, depth = 1): { depth: number, values: number } {
  if (value === null || typeof value !== 'object') return { depth: 0, values: 0 }
  const items = Array.isArray(value) ? value : Object.values(value)
  let deepest = depth
  let values = 1 + Math.max(0, items.length - 1)
  for (const item of items) {
    const inner = shapeOf(item, depth + 1)
    deepest = Math.max(deepest, inner.depth)
    values += inner.values
  }
  return { depth: deepest, values }
}

/** Feeds `bytes` cut at random points; the first refusal, or undefined. */
function scan (bytes: Uint8Array, limits: { maxDepth: number, maxValues: number }, rand: () => number): string | undefined {
  const scanner = new JsonShapeScanner(limits)
  let at = 0
  while (at < bytes.length) {
    const end = Math.min(bytes.length, at + 1 + Math.floor(rand() * 12))
    const wrong = scanner.feed(bytes.subarray(at, end))
    if (wrong !== undefined) return wrong
    at = end
  }
  return undefined
}

describe('JsonShapeScanner', () => {
  it('refuses exactly the bodies past its limits, for 3,000 random JSON values cut into random chunks', () => {
    const rand = prng(20261126)
    for (let i = 0; i < 3000; i++) {
      const value = randomValue(rand, 0)
      const bytes = Buffer.from(JSON.stringify(value))
      const { depth, values } = shapeOf(value)
      const limits = { maxDepth: 1 + Math.floor(rand() * 6), maxValues: Math.floor(rand() * 40) }
      const wrong = scan(bytes, limits, rand)
      const expected = depth > limits.maxDepth || values > limits.maxValues
      expect(wrong !== undefined, `${bytes.toString()} with ${JSON.stringify(limits)}: ${wrong ?? 'accepted'}`).to.equal(expected)
    }
  })

  it('refuses 1 MB of arrays nested 520,000 deep within its first bytes', () => {
    const body = Buffer.from('['.repeat(520_000) + ']'.repeat(520_000))
    const scanner = new JsonShapeScanner({ maxDepth: 8, maxValues: 114 })
    expect(scanner.feed(body.subarray(0, 16))).to.equal('body nests arrays and objects more than 8 deep')
  })

  it('counts nothing inside strings, escaped quotes and a backslash split across chunks included', () => {
    const scanner = new JsonShapeScanner({ maxDepth: 1, maxValues: 2 })
    const body = Buffer.from('{"texts": "[[[[,,,,\\\\\\"]]]]]", "x": "\\\\"}')
    for (let i = 0; i < body.length; i++) expect(scanner.feed(body.subarray(i, i + 1)), `byte ${i}`).to.equal(undefined)
  })
})
