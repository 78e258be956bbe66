/**
 * NLTK's `WordNetLemmatizer().lemmatize(word, pos)`, exactly as NLTK 3.8, or NLTK 3.9 and
 * later, compute it over WordNet 3.0: `min(wn._morphy(word, pos), key=len)`, or the word
 * itself when morphy finds nothing. No lowercasing (NLTK does none: 'Dogs' stays 'Dogs'),
 * no Python at run time.
 *
 * morphy (nltk/corpus/reader/wordnet.py): a word in the part of speech's exception list
 * yields those of [word, ...bases] that WordNet's index holds for that part of speech,
 * and nothing else, even when that is none. Otherwise the detachment rules run once on the
 * word, and the word and those forms that the index holds are the answer. NLTK 3.9 and later
 * stop there (nltk/nltk#3225, as Princeton's morphy does). NLTK 3.8, failing any, runs the
 * rules again on every form of the last round, round after round, until some form is in the
 * index or no rule applies (so 3.8 takes 'needless' to 'needle' as a verb, 'catss' to 'cat';
 * 3.9 leaves both). Either way the first of the shortest answers wins; the two versions
 * read the same lemma index and exception lists and differ in nothing else.
 *
 * The index and exception lists come from src/preprocess/data/wordnet-morphy.txt, made by
 * test/fixtures/preprocess/wordnet-data.py from NLTK's own reader (licence beside it).
 */
import assert from 'node:assert'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { PREPROCESS_DATA_DIR } from '../layout.js'

export type WordNetPos = 'n' | 'v' | 'a' | 'r' | 's'
type IndexPos = Exclude<WordNetPos, 's'>

/** Whose morphy to reproduce: '3.8', or '3.9' for NLTK 3.9 and every later release (3.10.3 checked). */
export type NltkVersion = '3.8' | '3.9'
const NLTK_VERSIONS: readonly NltkVersion[] = ['3.8', '3.9']

/** The data file, kept with the sources (src/layout.ts). */
export const WORDNET_DATA_PATH = path.join(PREPROCESS_DATA_DIR, 'wordnet-morphy.txt')

/** `WordNetCorpusReader.MORPHOLOGICAL_SUBSTITUTIONS` in NLTK 3.8 (and 3.10), in its order: [old suffix, new]. */
const SUBSTITUTIONS: Readonly<Record<IndexPos, ReadonlyArray<readonly [string, string]>>> = {
  n: [['s', ''], ['ses', 's'], ['ves', 'f'], ['xes', 'x'], ['zes', 'z'], ['ches', 'ch'], ['shes', 'sh'], ['men', 'man'], ['ies', 'y']],
  v: [['s', ''], ['ies', 'y'], ['es', 'e'], ['es', ''], ['ed', 'e'], ['ed', ''], ['ing', 'e'], ['ing', '']],
  a: [['er', ''], ['est', ''], ['er', 'e'], ['est', 'e']],
  r: []
}

/** NLTK's ADJ_SAT shares the adjectives' index entries, exception list and rules. */
const INDEX_POS: Readonly<Record<WordNetPos, IndexPos>> = { n: 'n', v: 'v', a: 'a', r: 'r', s: 'a' }

interface PosData {
  readonly lemmas: ReadonlySet<string>
  readonly exceptions: ReadonlyMap<string, readonly string[]>
  /** The longest lemma: a longer form cannot be in the index, so is never built as a string. */
  readonly maxLength: number
}

let data: ReadonlyMap<IndexPos, PosData> | undefined

/** Reads the data file once per thread (2 MB, some 60 ms), on the first lemmatizer made. */
function wordNetData (): ReadonlyMap<IndexPos, PosData> {
  if (data !== undefined) return data
  const lines = readFileSync(WORDNET_DATA_PATH, 'utf8').split('\n')
  const lemmas = new Map<string, Set<string>>()
  const exceptions = new Map<string, Map<string, readonly string[]>>()
  let i = 0
  while (i < lines.length) {
    const line = lines[i++]!
    if (line === '' || line.startsWith('#')) continue
    const [section, pos, count] = line.split(' ')
    const end = i + Number(count)
    assert(pos !== undefined && end <= lines.length, `bad section header ${line} in ${WORDNET_DATA_PATH}`)
    if (section === '@index') {
      lemmas.set(pos, new Set(lines.slice(i, end)))
    } else {
      assert(section === '@exceptions', `bad section header ${line} in ${WORDNET_DATA_PATH}`)
      const map = new Map<string, readonly string[]>()
      for (let j = i; j < end; j++) {
        const [form, ...bases] = lines[j]!.split(' ')
        map.set(form!, bases)
      }
      exceptions.set(pos, map)
    }
    i = end
  }
  const loaded = new Map<IndexPos, PosData>()
  for (const pos of Object.keys(SUBSTITUTIONS) as IndexPos[]) {
    const set = lemmas.get(pos)
    const map = exceptions.get(pos)
    assert(set !== undefined && map !== undefined, `no '${pos}' data in ${WORDNET_DATA_PATH}`)
    let maxLength = 0
    for (const lemma of set) maxLength = Math.max(maxLength, lemma.length)
    loaded.set(pos, { lemmas: set, exceptions: map, maxLength })
  }
  data = loaded
  return data
}

/**
 * A form morphy builds: the word's first `keep` UTF-16 units, then `tail`. Rules only swap
 * a suffix for one no longer than it, so every form is such a prefix plus at most three
 * characters, and applying a rule costs O(1) however long the word is.
 */
interface Form {
  readonly keep: number
  readonly tail: string
}

/**
 * NLTK's `apply_rules`, without the repeats: a form met twice yields only what its first
 * occurrence did, and `filter_forms` keeps first occurrences, so dropping repeats changes no
 * answer while keeping each round linear where NLTK's can grow exponentially.
 */
function applyRules (word: string, forms: readonly Form[], rules: ReadonlyArray<readonly [string, string]>): Form[] {
  const out: Form[] = []
  const seen = new Set<string>()
  for (const { keep, tail } of forms) {
    for (const [old, replacement] of rules) {
      if (keep + tail.length < old.length) continue
      // Rule suffixes are ASCII, so cutting UTF-16 units cuts Python's code points.
      const fromWord = Math.max(0, old.length - tail.length)
      const end = (fromWord > 0 ? word.slice(keep - fromWord, keep) + tail : tail.slice(tail.length - old.length))
      if (end !== old) continue
      let k = keep - fromWord
      let t = (fromWord > 0 ? '' : tail.slice(0, tail.length - old.length)) + replacement
      // As many units from the word as match, so that equal strings get the same key.
      while (t.length > 0 && k < word.length && word[k] === t[0]) { k++; t = t.slice(1) }
      const key = `${k}:${t}`
      if (seen.has(key)) continue
      seen.add(key)
      out.push({ keep: k, tail: t })
    }
  }
  return out
}

/** NLTK's `filter_forms`: the forms in the index, first occurrences, in order. */
function filterForms (word: string, forms: readonly Form[], pos: PosData, found: string[] = []): string[] {
  for (const { keep, tail } of forms) {
    if (keep + tail.length > pos.maxLength) continue
    const form = word.slice(0, keep) + tail
    if (pos.lemmas.has(form) && !found.includes(form)) found.push(form)
  }
  return found
}

/**
 * `WordNetCorpusReader._morphy(form, pos)`: NLTK 3.8's when `repeatRules`, else that of NLTK
 * 3.9 and later (the same up to the first round's answer, which 3.9 returns even when empty).
 */
function morphy (word: string, pos: PosData, rules: ReadonlyArray<readonly [string, string]>, repeatRules: boolean): string[] {
  const bases = pos.exceptions.get(word)
  if (bases !== undefined) {
    const found: string[] = []
    for (const form of [word, ...bases]) if (pos.lemmas.has(form) && !found.includes(form)) found.push(form)
    return found
  }
  let forms = applyRules(word, [{ keep: word.length, tail: '' }], rules)
  const found = filterForms(word, forms, pos, pos.lemmas.has(word) ? [word] : [])
  if (found.length > 0 || !repeatRules) return found
  while (forms.length > 0) {
    forms = applyRules(word, forms, rules)
    const next = filterForms(word, forms, pos)
    if (next.length > 0) return next
  }
  return []
}

/**
 * Makes NLTK's `WordNetLemmatizer().lemmatize(word, pos)` for one part of speech, as NLTK
 * 3.8 or as NLTK 3.9 and later compute it. The first call in a thread loads WordNet's index
 * (src/preprocess/data/wordnet-morphy.txt); each lemmatizer then only looks words up in sets.
 *
 * @param pos 'n' noun, 'v' verb, 'a' adjective, 'r' adverb or 's' satellite adjective (the
 *   same as 'a', as in NLTK). Defaults to 'n', as `lemmatize` does.
 * @param nltkVersion '3.8' (the default) keeps applying the suffix rules until it finds a
 *   WordNet form; '3.9', for NLTK 3.9 and later, applies them once (pos 'v': 'feelings' is
 *   'feel' in 3.8, 'feelings' in 3.9).
 * @throws Error when `pos` or `nltkVersion` is none of those (NLTK raises KeyError for pos).
 */
export function createWordNetLemmatizer (pos: WordNetPos = 'n', nltkVersion: NltkVersion = '3.8'): (word: string) => string {
  if (!Object.hasOwn(INDEX_POS, pos)) {
    throw new Error(`unknown WordNet part of speech ${JSON.stringify(pos)}: expected one of ${Object.keys(INDEX_POS).join(', ')}`)
  }
  if (!NLTK_VERSIONS.includes(nltkVersion)) {
    throw new Error(`unknown NLTK version ${JSON.stringify(nltkVersion)} for the WordNet lemmatizer: expected one of ${NLTK_VERSIONS.join(', ')}`)
  }
  const repeatRules = nltkVersion === '3.8'
  const indexPos = INDEX_POS[pos]
  const posData = wordNetData().get(indexPos)!
  const rules = SUBSTITUTIONS[indexPos]
  return (word: string): string => {
    // min(lemmas, key=len): the first of the shortest. Lemmas are ASCII, so .length is len().
    let best: string | undefined
    for (const lemma of morphy(word, posData, rules, repeatRules)) if (best === undefined || lemma.length < best.length) best = lemma
    return best ?? word
  }
}
