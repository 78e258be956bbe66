/**
 * Hostile pickles Python cannot write (its pickler recurses, so nothing 100,000 deep), built
 * opcode by opcode: every container type nested past any stack, values that hold
 * themselves, and sharing that makes a naive walk exponential. Protocol 4 throughout.
 */

const PROTO4 = [0x80, 0x04]
const STOP = 0x2e
const NONE = 0x4e
const EMPTY_LIST = 0x5d
const EMPTY_DICT = 0x7d
const EMPTY_TUPLE = 0x29
const MEMOIZE = 0x94
const BINGET = 0x68
const LONG_BINGET = 0x6a
const APPEND = 0x61
const APPENDS = 0x65
const SETITEM = 0x73
const TUPLE1 = 0x85
const TUPLE2 = 0x86
const MARK = 0x28
const FROZENSET = 0x91
const POP = 0x30
const STACK_GLOBAL = 0x93
const NEWOBJ = 0x81
const BUILD = 0x62

const u32 = (n: number): number[] => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff]
const str = (s: string): number[] => [0x8c, s.length, ...Buffer.from(s, 'latin1')]
const get = (i: number): number[] => [LONG_BINGET, ...u32(i)]

/** prefix, then `unit(i)` for i in 0..times-1, then suffix, as bytes. */
function build (prefix: number[], times: number, unit: (i: number) => number[], suffix: number[]): Uint8Array {
  const out: number[] = [...PROTO4, ...prefix]
  for (let i = 0; i < times; i++) for (const b of unit(i)) out.push(b)
  out.push(...suffix, STOP)
  return Uint8Array.from(out)
}

const pipelineClass = [...str('sklearn.pipeline'), ...str('Pipeline'), STACK_GLOBAL]

/** Name -> pickle bytes, each a shape the load-time walk must refuse in one line. */
export function hostilePickles (depth = 100_000): Array<[string, Uint8Array]> {
  return [
    ['self-dict', build([EMPTY_DICT, MEMOIZE, ...str('k'), BINGET, 0, SETITEM], 0, () => [], [])],
    // Each new list is memoized, appended to the current one, then fetched as the new current:
    // any depth with a stack of two.
    ['deep-list', build([EMPTY_LIST, MEMOIZE, BINGET, 0], depth, i => [EMPTY_LIST, MEMOIZE, APPEND, POP, ...get(i + 1)], [POP, ...get(0)])],
    ['deep-dict', build([EMPTY_DICT, MEMOIZE, BINGET, 0], depth, i => [...str('k'), EMPTY_DICT, MEMOIZE, SETITEM, POP, ...get(i + 1)], [POP, ...get(0)])],
    ['deep-tuple', build([NONE], depth, () => [TUPLE1], [])],
    ['deep-frozenset', build(new Array<number>(depth).fill(MARK), 1, () => [NONE], new Array<number>(depth).fill(FROZENSET))],
    // Pipeline(steps=[('p', Pipeline(steps=[('p', ...)]))]): sklearn objects all the way down.
    ['deep-pipeline', build([], depth / 5, () => [...pipelineClass, EMPTY_TUPLE, NEWOBJ, EMPTY_DICT, ...str('steps'), EMPTY_LIST, ...str('p')], [NONE, ...new Array<number>(depth / 5).fill(0).flatMap(() => [TUPLE2, APPEND, SETITEM, BUILD])])],
    ['deep-object-args', build([], depth / 5, () => [...pipelineClass], [NONE, ...new Array<number>(depth / 5).fill(0).flatMap(() => [TUPLE1, NEWOBJ])])],
    // L(i+1) = [L(i), L(i)]: 60 levels deep, 2^60 paths through 61 lists.
    ['shared-2^60-ways', build([NONE, TUPLE1, MEMOIZE, POP], 60, i => [EMPTY_LIST, MARK, ...get(i), ...get(i), APPENDS, MEMOIZE, POP], get(60))]
  ]
}
