/**
 * The Sastrawi Indonesian stemmer as PySastrawi computes it (github:har07/PySastrawi, MIT):
 * `StemmerFactory().create_stemmer().stem(text)`, the Enhanced Confix Stripping algorithm over
 * its dictionary of root words (kata-dasar.txt, read from the app's installation:
 * word-data/sastrawi-lists.ts). Ported step by step from
 * Stemmer.py, Context.py and the disambiguator rules, keeping their order, their quirks (a
 * removal recorded even when a rule gives the word back unchanged) and their regexes; words are
 * ASCII letters, digits and '-' after the text's normalization (plus 'ı' and 'ſ', which Python's
 * [^a-z] with IGNORECASE keeps).
 */
import { pyLower } from '../../python/python-str.js'

/**
 * TextNormalizer.normalize_text: lower(), every character but [a-z0-9 -] to a space (with
 * IGNORECASE, which also keeps 'ı' U+0131 and 'ſ' U+017F; 'İ' and 'K' are lowered first),
 * runs of spaces to one, stripped.
 */
function normalizeText (text: string): string {
  return pyLower(text).replace(/[^a-z0-9 \-\u0131\u017f]/gu, ' ').replace(/ +/g, ' ').replace(/^ +| +$/g, '')
}

type AffixType = 'DP' | 'DS' | 'PP' | 'P'
interface Removal { readonly subject: string, readonly result: string, readonly removedPart: string, readonly affixType: AffixType }

/** `re.sub(result, '', subject, count=1)`: the first occurrence of `result` (a plain word) taken out. */
function removedPart (subject: string, result: string): string {
  return subject.replace(result, () => '')
}

const C = 'bcdfghjklmnpqrstvwxyz'
const V = 'aiueo'
type Rule = (word: string) => string | undefined
/** A rule from a pattern and how its groups make the result; `$` is Python's (no newline can occur here). */
const rule = (pattern: string, make: (g: string[]) => string | undefined): Rule => {
  const re = new RegExp(pattern.replaceAll('{C}', C).replaceAll('{V}', V))
  return word => { const m = re.exec(word); return m === null ? undefined : make(m.slice(1)) }
}
const startsEr = (s: string): boolean => s.startsWith('er')

/** VisitorProvider's prefix disambiguators, in order: each entry is one PrefixDisambiguator's rules. */
const DISAMBIGUATORS: ReadonlyArray<readonly Rule[]> = [
  [rule('^ber([{V}].*)$', g => g[0]), rule('^ber([{V}].*)$', g => 'r' + g[0]!)],
  [rule('^ber([{C}])([a-z])(.*)', g => startsEr(g[2]!) ? undefined : g[0]! + g[1]! + g[2]!)],
  [rule('^ber([{C}])([a-z])er([{V}])(.*)', g => g[0] === 'r' ? undefined : g[0]! + g[1]! + 'er' + g[2]! + g[3]!)],
  [w => w === 'belajar' ? 'ajar' : undefined],
  [rule('^be([bcdfghjklmnpqstvwxyz])(er[{C}])(.*)$', g => g[0]! + g[1]! + g[2]!)],
  [rule('^ter([{V}].*)$', g => g[0]), rule('^ter([{V}].*)$', g => 'r' + g[0]!)],
  [rule('^ter([{C}])er([{V}].*)$', g => g[0] === 'r' ? undefined : g[0]! + 'er' + g[1]!)],
  [rule('^ter([{C}])(.*)$', g => g[0] === 'r' || startsEr(g[1]!) ? undefined : g[0]! + g[1]!)],
  [rule('^te([{C}])er([{C}])(.*)$', g => g[0] === 'r' ? undefined : g[0]! + 'er' + g[1]! + g[2]!)],
  [rule('^me([lrwy])([{V}])(.*)$', g => g[0]! + g[1]! + g[2]!)],
  [rule('^mem([bfv])(.*)$', g => g[0]! + g[1]!)],
  [rule('^mempe(.*)$', g => 'pe' + g[0]!)],
  [rule('^mem([{V}])(.*)$', g => 'm' + g[0]! + g[1]!), rule('^mem([{V}])(.*)$', g => 'p' + g[0]! + g[1]!)],
  [rule('^men([cdjstz])(.*)$', g => g[0]! + g[1]!)],
  [rule('^men([{V}])(.*)$', g => 'n' + g[0]! + g[1]!), rule('^men([{V}])(.*)$', g => 't' + g[0]! + g[1]!)],
  [rule('^meng([ghqk])(.*)$', g => g[0]! + g[1]!)],
  [rule('^meng([{V}])(.*)$', g => g[0]! + g[1]!), rule('^meng([{V}])(.*)$', g => 'k' + g[0]! + g[1]!),
    rule('^menge(.*)$', g => g[0]), rule('^meng([{V}])(.*)$', g => 'ng' + g[0]! + g[1]!)],
  [rule('^meny([{V}])(.*)$', g => 'ny' + g[0]! + g[1]!), rule('^meny([{V}])(.*)$', g => 's' + g[0]! + g[1]!)],
  [rule('^memp([abcdfghijklmopqrstuvwxyz])(.*)$', g => 'p' + g[0]! + g[1]!)],
  [rule('^pe([wy])([{V}])(.*)$', g => g[0]! + g[1]! + g[2]!)],
  [rule('^per([{V}])(.*)$', g => g[0]! + g[1]!), rule('^pe(r[{V}])(.*)$', g => g[0]! + g[1]!)],
  [rule('^per([{C}])([a-z])(.*)$', g => startsEr(g[2]!) ? undefined : g[0]! + g[1]! + g[2]!)],
  [rule('^per([{C}])([a-z])er([{V}])(.*)$', g => g[0] === 'r' ? undefined : g[0]! + g[1]! + 'er' + g[2]! + g[3]!)],
  [rule('^pem([bfv])(.*)$', g => g[0]! + g[1]!)],
  [rule('^pem([{V}])(.*)$', g => 'm' + g[0]! + g[1]!), rule('^pem([{V}])(.*)$', g => 'p' + g[0]! + g[1]!)],
  [rule('^pen([cdjstz])(.*)$', g => g[0]! + g[1]!)],
  [rule('^pen([{V}])(.*)$', g => 'n' + g[0]! + g[1]!), rule('^pen([{V}])(.*)$', g => 't' + g[0]! + g[1]!)],
  [rule('^peng([{C}])(.*)$', g => g[0]! + g[1]!)],
  [rule('^peng([{V}])(.*)$', g => g[0]! + g[1]!), rule('^peng([{V}])(.*)$', g => 'k' + g[0]! + g[1]!), rule('^penge(.*)$', g => g[0])],
  [rule('^peny([{V}])(.*)$', g => 'ny' + g[0]! + g[1]!), rule('^peny([{V}])(.*)$', g => 's' + g[0]! + g[1]!)],
  [w => w === 'pelajar' ? 'ajar' : rule('^pe(l[{V}])(.*)$', g => g[0]! + g[1]!)(w)],
  [rule('^pe([{C}])(.*)$', g => startsEr(g[1]!) ? undefined : g[0]! + g[1]!)],
  [rule('^ter([bcdfghjkpqstvxz])(er[{C}])(.*)$', g => g[0]! + g[1]! + g[2]!)],
  [rule('^pe([bcdfghjkpqstvxz])(er[{C}])(.*)$', g => g[0]! + g[1]! + g[2]!)],
  [rule('^([{C}])(er[{V}])(.*)$', g => g[0]! + g[1]! + g[2]!), rule('^([{C}])er([{V}])(.*)$', g => g[0]! + g[1]! + g[2]!)],
  [rule('^([{C}])(el[{V}])(.*)$', g => g[0]! + g[1]! + g[2]!), rule('^([{C}])el([{V}])(.*)$', g => g[0]! + g[1]! + g[2]!)],
  [rule('^([{C}])(em[{V}])(.*)$', g => g[0]! + g[1]! + g[2]!), rule('^([{C}])em([{V}])(.*)$', g => g[0]! + g[1]! + g[2]!)],
  [rule('^([{C}])(in[{V}])(.*)$', g => g[0]! + g[1]! + g[2]!), rule('^([{C}])in([{V}])(.*)$', g => g[0]! + g[1]! + g[2]!)],
  [rule('^ku(.*)$', g => g[0])],
  [rule('^kau(.*)$', g => g[0])]
]

const PRECEDENCE = [/^be(.*)lah$/, /^be(.*)an$/, /^me(.*)i$/, /^di(.*)i$/, /^pe(.*)i$/, /^ter(.*)i$/]

/** Context.py: one word's stemming, its removals and its stop flag. */
class Context {
  current: string
  stopped = false
  removals: Removal[] = []

  constructor (readonly original: string, readonly dict: ReadonlySet<string>) {
    this.current = original
  }

  #remove (result: string, type: AffixType): void {
    if (result === this.current) return
    this.removals.push({ subject: this.current, result, removedPart: removedPart(this.current, result), affixType: type })
    this.current = result
  }

  /** The visitors by kind: index -1 is DontStemShortWord, 0-2 the suffix visitors, 3 RemovePlainPrefix, 4+ the disambiguators. */
  #visit (visitor: number): void {
    const word = this.current
    switch (visitor) {
      case -1: if (word.length <= 3) this.stopped = true; return
      case 0: return this.#remove(word.replace(/-*(lah|kah|tah|pun)$/, ''), 'P')
      case 1: return this.#remove(word.replace(/-*(ku|mu|nya)$/, ''), 'PP')
      case 2: return this.#remove(word.replace(/(is|isme|isasi|i|kan|an)$/, ''), 'DS')
      case 3: return this.#remove(word.replace(/^(di|ke|se)/, ''), 'DP')
    }
    let result: string | undefined
    for (const disambiguate of DISAMBIGUATORS[visitor - 4]!) {
      result = disambiguate(word)
      if (result !== undefined && this.dict.has(result)) break
    }
    if (result === undefined) return
    // No check that the word changed: a rule that gives it back still counts as a removal.
    this.removals.push({ subject: word, result, removedPart: removedPart(word, result), affixType: 'DP' })
    this.current = result
  }

  #acceptVisitors (visitors: readonly number[]): void {
    for (const v of visitors) {
      this.#visit(v)
      if (this.dict.has(this.current) || this.stopped) return
    }
  }

  #acceptPrefixVisitors (): void {
    const count = this.removals.length
    for (let v = 3; v < 4 + DISAMBIGUATORS.length; v++) {
      this.#visit(v)
      if (this.dict.has(this.current) || this.stopped || this.removals.length > count) return
    }
  }

  #removePrefixes (): void {
    for (let i = 0; i < 3; i++) {
      this.#acceptPrefixVisitors()
      if (this.dict.has(this.current)) return
    }
  }

  #removeSuffixes (): void {
    this.#acceptVisitors([0, 1, 2])
  }

  execute (): string {
    this.#start()
    return this.dict.has(this.current) ? this.current : this.original
  }

  #start (): void {
    const dict = this.dict
    if (dict.has(this.current)) return
    this.#acceptVisitors([-1])
    if (dict.has(this.current)) return
    if (PRECEDENCE.some(p => p.test(this.original))) {
      this.#removePrefixes()
      if (dict.has(this.current)) return
      this.#removeSuffixes()
      if (dict.has(this.current)) return
      this.current = this.original
      this.removals = []
    }
    this.#removeSuffixes()
    if (dict.has(this.current)) return
    this.#removePrefixes()
    if (dict.has(this.current)) return
    this.#loopPengembalianAkhiran()
  }

  /** ECS "loop pengembalian akhiran": put the suffixes back one by one, retrying the prefixes. */
  #loopPengembalianAkhiran (): void {
    this.#restorePrefix()
    const removals = [...this.removals]
    const current = this.current
    for (let i = removals.length - 1; i >= 0; i--) {
      const removal = removals[i]!
      if (removal.affixType === 'DP') continue
      if (removal.removedPart === 'kan') {
        this.current = removal.result + 'k'
        this.#removePrefixes()
        if (this.dict.has(this.current)) return
        this.current = removal.result + 'kan'
      } else {
        this.current = removal.subject
      }
      this.#removePrefixes()
      if (this.dict.has(this.current)) return
      this.removals = removals
      this.current = current
    }
  }

  #restorePrefix (): void {
    if (this.removals.length > 0) this.current = this.removals[0]!.subject
    this.removals = this.removals.filter(r => r.affixType !== 'DP')
  }
}

function stemSingular (word: string, dict: ReadonlySet<string>): string {
  return new Context(word, dict).execute()
}

const PLURAL_SUFFIX = /^(.*)-(ku|mu|nya|lah|kah|tah|pun)$/
const SUFFIXES = new Set(['ku', 'mu', 'nya', 'lah', 'kah', 'tah', 'pun'])

function isPlural (word: string): boolean {
  const m = PLURAL_SUFFIX.exec(word)
  return m !== null ? m[1]!.includes('-') : word.includes('-')
}

/** Stemmer.stem_plural_word: both halves must stem to the same root (berbalas-balasan: balas). */
function stemPlural (plural: string, dict: ReadonlySet<string>): string {
  // Python's ^(.*)-(.*)$: the greedy first group ends at the last '-'.
  const at = plural.lastIndexOf('-')
  if (at < 0) return plural
  const words = [plural.slice(0, at), plural.slice(at + 1)]
  const suffix = words[1]!
  const inner = words[0]!.lastIndexOf('-')
  if (SUFFIXES.has(suffix) && inner >= 0) {
    words[1] = words[0]!.slice(inner + 1) + '-' + suffix
    words[0] = words[0]!.slice(0, inner)
  }
  const root1 = stemSingular(words[0]!, dict)
  let root2 = stemSingular(words[1]!, dict)
  if (!dict.has(words[1]!) && root2 === words[1]) root2 = stemSingular('me' + words[1]!, dict)
  return root1 === root2 ? root1 : plural
}

function stemWord (word: string, dict: ReadonlySet<string>): string {
  return isPlural(word) ? stemPlural(word, dict) : stemSingular(word, dict)
}

/**
 * Creates `StemmerFactory().create_stemmer().stem`: text -> the normalized text's words, each
 * stemmed, joined by one space. Words are remembered (PySastrawi's CachedStemmer does the same).
 * @param rootWords the dictionary: kata-dasar.txt's lines, but empty and blank ones (ArrayDictionary).
 */
export function createSastrawiStemmer (rootWords: Iterable<string>): (text: string) => string {
  const dict: ReadonlySet<string> = new Set(rootWords)
  const memo = new Map<string, string>()
  const stem = (word: string): string => {
    let out = memo.get(word)
    if (out === undefined) {
      out = stemWord(word, dict)
      if (memo.size >= 32768) memo.clear()
      memo.set(word, out)
    }
    return out
  }
  return text => normalizeText(text).split(' ').map(stem).join(' ')
}
