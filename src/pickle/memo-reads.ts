/**
 * Which memo entries a pickle ever reads back (GET, BINGET, LONG_BINGET), found by one walk
 * over its opcodes before it is run. The unpickler keeps only those: a vocabulary of 200,000
 * terms memoizes every term, every index's bytes, tuple and numpy scalar (800,000 values)
 * and reads back two, and holding the rest until the end is most of its decoding garbage.
 *
 * The walk only skips arguments, so raw data outside the opcodes (joblib's arrays) would
 * throw it off: it gives up (null) on any opcode it does not know, and the unpickler, should
 * a value it did not keep be read after all, runs the pickle again keeping every value.
 */
import { OP } from './opcodes.js'

/** Reads past this many memo entries: not worth a table (the unpickler keeps everything). */
const MOST_INDEX = 1 << 24

/** Opcodes with no argument. */
const BARE = new Set<number>([
  OP.MARK, OP.POP, OP.POP_MARK, OP.DUP, OP.NONE, OP.BINPERSID, OP.REDUCE, OP.APPEND, OP.BUILD,
  OP.DICT, OP.EMPTY_DICT, OP.APPENDS, OP.LIST, OP.EMPTY_LIST, OP.OBJ, OP.SETITEM, OP.TUPLE,
  OP.EMPTY_TUPLE, OP.SETITEMS, OP.NEWOBJ, OP.TUPLE1, OP.TUPLE2, OP.TUPLE3, OP.NEWTRUE,
  OP.NEWFALSE, OP.EMPTY_SET, OP.ADDITEMS, OP.FROZENSET, OP.NEWOBJ_EX, OP.STACK_GLOBAL,
  OP.MEMOIZE, OP.NEXT_BUFFER, OP.READONLY_BUFFER
])

/** Opcodes with an argument of fixed size: its bytes. */
const FIXED = new Map<number, number>([
  [OP.BININT, 4], [OP.BININT1, 1], [OP.BININT2, 2], [OP.BINPUT, 1], [OP.LONG_BINPUT, 4],
  [OP.BINFLOAT, 8], [OP.PROTO, 1], [OP.EXT1, 1], [OP.EXT2, 2], [OP.EXT4, 4], [OP.FRAME, 8]
])

/** Opcodes whose argument runs to the end of a line (GLOBAL and INST: two lines). */
const LINES = new Map<number, number>([
  [OP.FLOAT, 1], [OP.INT, 1], [OP.LONG, 1], [OP.PERSID, 1], [OP.STRING, 1], [OP.UNICODE, 1],
  [OP.PUT, 1], [OP.GLOBAL, 2], [OP.INST, 2]
])

/** Opcodes whose argument is a length (of this many little-endian bytes) and that many bytes. */
const COUNTED = new Map<number, number>([
  [OP.LONG1, 1], [OP.SHORT_BINSTRING, 1], [OP.SHORT_BINUNICODE, 1], [OP.SHORT_BINBYTES, 1],
  [OP.LONG4, 4], [OP.BINSTRING, 4], [OP.BINUNICODE, 4], [OP.BINBYTES, 4],
  [OP.BINUNICODE8, 8], [OP.BINBYTES8, 8], [OP.BYTEARRAY8, 8]
])

/** Per opcode byte: 0 unknown, 1 bare, 2 fixed, 3 lines, 4 counted, 5 a memo read. */
const KIND = new Uint8Array(256)
for (const op of BARE) KIND[op] = 1
for (const op of FIXED.keys()) KIND[op] = 2
for (const op of LINES.keys()) KIND[op] = 3
for (const op of COUNTED.keys()) KIND[op] = 4
for (const op of [OP.GET, OP.BINGET, OP.LONG_BINGET]) KIND[op] = 5
const SIZE = new Uint8Array(256)
for (const [op, n] of [...FIXED, ...LINES, ...COUNTED]) SIZE[op] = n

/**
 * One byte per memo index, 1 where the pickle starting at `start` reads it back; null when
 * the walk cannot tell (an unknown opcode, a truncated argument, a read past 2^24, no STOP).
 */
export function memoReads (bytes: Uint8Array, start: number): Uint8Array | null {
  let reads = new Uint8Array(256)
  const mark = (index: number): boolean => {
    if (!Number.isSafeInteger(index) || index < 0 || index >= MOST_INDEX) return false
    if (index >= reads.length) {
      const grown = new Uint8Array(Math.max(index + 1, reads.length * 2))
      grown.set(reads)
      reads = grown
    }
    reads[index] = 1
    return true
  }
  const end = bytes.length
  let at = start
  while (at < end) {
    const op = bytes[at++]!
    if (op === OP.STOP) return reads
    switch (KIND[op]) {
      case 1: break
      case 2: at += SIZE[op]!; break
      case 3:
        for (let line = 0; line < SIZE[op]!; line++) {
          const eol = bytes.indexOf(0x0a, at)
          if (eol < 0) return null
          at = eol + 1
        }
        break
      case 4: {
        const width = SIZE[op]!
        if (at + width > end) return null
        let n = 0
        for (let k = width - 1; k >= 0; k--) n = n * 256 + bytes[at + k]!
        at += width + n
        break
      }
      case 5: {
        let index: number
        if (op === OP.BINGET) {
          index = bytes[at++]!
        } else if (op === OP.LONG_BINGET) {
          if (at + 4 > end) return null
          index = (bytes[at]! | bytes[at + 1]! << 8 | bytes[at + 2]! << 16 | bytes[at + 3]! << 24) >>> 0
          at += 4
        } else {
          const eol = bytes.indexOf(0x0a, at)
          if (eol < 0 || eol - at > 15) return null
          const text = String.fromCharCode(...bytes.subarray(at, eol))
          if (!/^\d+$/.test(text)) return null
          index = Number(text)
          at = eol + 1
        }
        if (!mark(index)) return null
        break
      }
      default: return null
    }
  }
  return null
}
