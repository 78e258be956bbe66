/**
 * The character semantics of the third-party `regex` module (mrab-regex, V0, the default),
 * which NLTK compiles some of its patterns with, beside CPython's `re`: its own Unicode
 * tables for `\w` (letters, marks, decimal digits, connector punctuation, joiners), `\d`,
 * `\s` (Unicode White_Space) and `\p{L}`, `\p{N}`; and its IGNORECASE, which matches a
 * character with the case variants the module lists for it (a class: when one of the
 * variants is a member). The tables of each release come from regex-module-tables.py,
 * which proves this model against the module's own matching over all of Unicode.
 */
import { complement, rangesHave, union } from './code-point-ranges.js'
import { CodePointSet } from './code-point-set.js'
import type { ClassItems } from './sre-ignore-case.js'

/** What regex-module-tables.py reads off one release of the module. */
export interface RegexModuleTables {
  readonly release: string
  readonly word: readonly number[]
  readonly digit: readonly number[]
  readonly space: readonly number[]
  readonly letter: readonly number[]
  readonly number: readonly number[]
  /** Each code point with case variants: [code point, count, ...variants (itself among them)]. */
  readonly caseVariants: readonly number[]
}

/** One release's semantics, as the translator (python-regex.ts) uses them. */
export interface RegexModuleSemantics {
  readonly release: string
  readonly word: CodePointSet
  readonly digit: CodePointSet
  readonly space: CodePointSet
  /** `\p{name}` by the names supported. */
  readonly properties: ReadonlyMap<string, CodePointSet>
  /** Whether `cp` has case variants (a literal of it is then a class under IGNORECASE). */
  isCased: (cp: number) => boolean
  /** What a literal `cp` matches under IGNORECASE: its variants (itself among them). */
  caseVariants: (cp: number) => readonly number[]
  /** The code points (flat ranges) a class matches under IGNORECASE. */
  ignoreCaseRanges: (items: ClassItems & { readonly escapeRanges: ReadonlyArray<readonly number[]> }) => number[]
}

const made = new Map<RegexModuleTables, RegexModuleSemantics>()

/** The semantics of the release `tables` were read from (built once per thread). */
export function regexModuleSemantics (tables: RegexModuleTables): RegexModuleSemantics {
  const known = made.get(tables)
  if (known !== undefined) return known
  const variantsOf = new Map<number, readonly number[]>()
  for (let i = 0; i < tables.caseVariants.length;) {
    const count = tables.caseVariants[i + 1]!
    variantsOf.set(tables.caseVariants[i]!, tables.caseVariants.slice(i + 2, i + 2 + count))
    i += 2 + count
  }
  const cased = [...variantsOf.keys()].sort((a, b) => a - b)
  const semantics: RegexModuleSemantics = {
    release: tables.release,
    word: new CodePointSet(tables.word),
    digit: new CodePointSet(tables.digit),
    space: new CodePointSet(tables.space),
    properties: new Map([['L', new CodePointSet(tables.letter)], ['N', new CodePointSet(tables.number)]]),
    isCased: cp => variantsOf.has(cp),
    caseVariants: cp => variantsOf.get(cp) ?? [cp],
    ignoreCaseRanges: items => {
      const members = union([items.ranges, ...items.escapeRanges])
      const isMember = (cp: number): boolean => rangesHave(members, cp)
      // A code point without variants matches as without IGNORECASE; one with, by its variants.
      const base = items.negated ? complement(members, true) : members
      const out: number[] = []
      let g = 0
      for (let i = 0; i < base.length; i += 2) {
        let lo = base[i]!
        const hi = base[i + 1]!
        while (g < cased.length && cased[g]! < lo) g++
        for (; g < cased.length && cased[g]! <= hi; g++) {
          if (cased[g]! > lo) out.push(lo, cased[g]! - 1)
          lo = cased[g]! + 1
        }
        if (lo <= hi) out.push(lo, hi)
      }
      for (const cp of cased) {
        if (variantsOf.get(cp)!.some(isMember) !== items.negated) out.push(cp, cp)
      }
      return union([out])
    }
  }
  made.set(tables, semantics)
  return semantics
}

