/**
 * The declared preprocessing of a model's settings compiled into one text -> text function,
 * run on each text before the vectorizer, each step reproducing the Python call it names
 * exactly (python-text.ts for str, unicodedata, html and re; NLTK's stemmers, lemmatizer
 * and stop words). Compiling checks everything a step could fail on, so a bad step stops
 * the load in one line naming the settings file, the step and the problem.
 */
import { ServiceError } from '../errors.js'
import { pyLen } from '../python/py-len.js'
import { pySplit, pyLower } from '../python/python-str.js'
import type { SplitSpec, StepSpec, TextStepSpec, WordStepSpec, WordsStepSpec } from '../settings/step-schema.js'
import {
  PY_STRING_CONSTANTS, compileReFindall, compileReSplit, compileReSub, htmlUnescape, makeTranslation, pyCasefold,
  pyIsAlnum, pyIsAlpha, pyIsAscii, pyIsDecimal, pyIsDigit, pyIsLower, pyIsNumeric, pyIsUpper, pyLstrip, pyNormalize,
  pyRstrip, pyStrip, pyTranslate, pyUpper
} from './python-text.js'
import { createLancasterStemmer } from './stemmers/lancaster.js'
import { createPorterStemmer } from './stemmers/porter.js'
import { createSastrawiStemmer } from './stemmers/sastrawi.js'
import { createSnowballStemmer } from './stemmers/snowball/index.js'
import { stopList } from './stop-list.js'
import { compileNltkSplit } from './tokenizers/nltk-split.js'
import { textFunction, type UserFunctions } from './user-functions.js'
import { punktKey, readStepData, type StepData } from './word-data/step-data.js'
import { compileWordListStep, isWordListStep, type WordListFunction } from './word-list-steps.js'
import { createWordNetLemmatizer } from './wordnet-lemmatizer.js'

export type TextFunction = (text: string) => string
/** A word step: the word it becomes, or null to drop it. */
type WordFunction = (word: string) => string | null

const PREDICATES: Readonly<Record<string, (s: string) => boolean>> = {
  'str.isalpha': pyIsAlpha,
  'str.isalnum': pyIsAlnum,
  'str.isdigit': pyIsDigit,
  'str.isdecimal': pyIsDecimal,
  'str.isnumeric': pyIsNumeric,
  'str.isascii': pyIsAscii,
  'str.islower': pyIsLower,
  'str.isupper': pyIsUpper
}

/** A string a step names: Python's `string` constants by name ("string.punctuation"), else itself. */
function literal (value: string | undefined): string {
  if (value === undefined) return ''
  return Object.hasOwn(PY_STRING_CONSTANTS, value) ? PY_STRING_CONSTANTS[value as keyof typeof PY_STRING_CONSTANTS] : value
}

function compileText (step: TextStepSpec, functions: UserFunctions | null, data: StepData): TextFunction {
  switch (step.op) {
    case 'str.lower': return pyLower
    case 'str.upper': return pyUpper
    case 'str.casefold': return pyCasefold
    case 'html.unescape': return htmlUnescape
    case 'str.strip': return s => pyStrip(s, step.chars)
    case 'str.lstrip': return s => pyLstrip(s, step.chars)
    case 'str.rstrip': return s => pyRstrip(s, step.chars)
    case 'unicodedata.normalize': return s => pyNormalize(step.form, s)
    case 're.sub': return compileReSub(step.pattern, step.repl, step.flags ?? [], step.count ?? 0)
    case 'str.translate': {
      const from = literal(step.from)
      const to = literal(step.to)
      if (pyLen(from) !== pyLen(to)) throw new Error(`"from" and "to" must have the same length, as str.maketrans requires (${pyLen(from)} and ${pyLen(to)})`)
      const table = makeTranslation(from, to, literal(step.delete))
      return s => pyTranslate(s, table)
    }
    case 'function': return textFunction(functions, step.name, 'a preprocess step')
    case 'sastrawi.Stemmer': {
      if (data.sastrawiDictionary === null) throw new Error('Sastrawi\'s dictionary was not read for this step')
      return createSastrawiStemmer(data.sastrawiDictionary.words)
    }
  }
}

/** Words a stemmer or lemmatizer remembers: words repeat (Zipf), and a look-up is far cheaper than a stem. */
const MEMO_WORDS = 32768

/**
 * `stem` with the answers for recent words kept: exact, since every word step memoized here
 * is a pure function of its word. Past MEMO_WORDS distinct words the memory starts over
 * (bounded, and cheaper than tracking recency).
 */
export function memoized (stem: (word: string) => string): (word: string) => string {
  let memo = new Map<string, string>()
  return word => {
    let out = memo.get(word)
    if (out === undefined) {
      out = stem(word)
      if (memo.size >= MEMO_WORDS) memo = new Map()
      memo.set(word, out)
    }
    return out
  }
}

function compileSplit (split: SplitSpec | undefined, data: StepData): (text: string) => string[] {
  if (split === undefined || split === 'str.split') return pySplit
  const punkt = (version: '3.8' | '3.10', language: string): NonNullable<StepData['punkt'][string]>['tables'] => {
    const read = data.punkt[punktKey(version, language)]
    if (read === undefined) throw new Error(`NLTK's Punkt tables for ${language} were not read for this step`)
    return read.tables
  }
  if (typeof split === 'string') return compileNltkSplit(split, punkt)
  if ('re.split' in split) return compileReSplit(split['re.split'], split.flags ?? [])
  if ('re.findall' in split) return compileReFindall(split['re.findall'], split.flags ?? [])
  return compileNltkSplit(split, punkt)
}

function compileWord (step: WordStepSpec, functions: UserFunctions | null, data: StepData): WordFunction {
  switch (step.op) {
    case 'stopwords': {
      const stop = stopList(step, data)
      return w => stop.has(w) ? null : w
    }
    case 'replace': {
      const table = new Map(Object.entries(step.table))
      return w => table.get(w) ?? w
    }
    case 'keep': {
      const negate = step.if?.startsWith('not ') === true
      const test = step.if === undefined ? undefined : PREDICATES[negate ? step.if.slice(4) : step.if]!
      const min = step.min_length ?? 0
      return w => (min > 0 && pyLen(w) < min) || (test !== undefined && test(w) === negate) ? null : w
    }
    case 'nltk.PorterStemmer': return memoized(createPorterStemmer(step.mode ?? 'NLTK_EXTENSIONS'))
    case 'nltk.SnowballStemmer': {
      createSnowballStemmer(step.language) // an unknown language fails here, at load
      // NLTK's Arabic stemmer keeps a flag from one word to the next; a fresh one per word
      // gives what a fresh SnowballStemmer('arabic') gives, whatever this thread stemmed before.
      return step.language === 'arabic' ? memoized(w => createSnowballStemmer('arabic')(w)) : memoized(createSnowballStemmer(step.language))
    }
    case 'nltk.LancasterStemmer': return memoized(createLancasterStemmer({ stripPrefix: step.strip_prefix ?? false }))
    case 'nltk.WordNetLemmatizer': return memoized(createWordNetLemmatizer(step.pos ?? 'n', step.nltk ?? '3.8'))
    default: return compileText(step, functions, data)
  }
}

/** Each word through `steps` in order, a word dropped by one going no further. */
function eachWord (steps: readonly WordFunction[]): WordListFunction {
  return words => {
    const out: string[] = []
    next: for (const word of words) {
      let w: string | null = word
      for (const f of steps) {
        w = f(w)
        if (w === null) continue next
      }
      out.push(w)
    }
    return out
  }
}

/**
 * A `words` step's steps as stages over the list: each run of word steps fused into one
 * pass, and each step over the whole list (mark_negation, n-grams) between them.
 */
function compileStages (steps: readonly WordsStepSpec[], functions: UserFunctions | null, data: StepData): WordListFunction[] {
  const stages: WordListFunction[] = []
  let run: WordFunction[] = []
  for (const [i, s] of steps.entries()) {
    try {
      if (isWordListStep(s)) {
        if (run.length > 0) stages.push(eachWord(run))
        run = []
        stages.push(compileWordListStep(s))
      } else {
        run.push(compileWord(s, functions, data))
      }
    } catch (err) {
      throw new Error(`word step ${i + 1} (${s.op}): ${err instanceof Error ? err.message : String(err)}`)
    }
  }
  if (run.length > 0 || stages.length === 0) stages.push(eachWord(run))
  return stages
}

function compileStep (step: StepSpec, functions: UserFunctions | null, data: StepData): TextFunction {
  if (step.op !== 'words') return compileText(step, functions, data)
  const split = compileSplit(step.split, data)
  const join = step.join ?? ' '
  const stages = compileStages(step.steps, functions, data)
  if (stages.length === 1) {
    const only = stages[0]!
    return text => only(split(text)).join(join)
  }
  return text => {
    let words = split(text)
    for (const stage of stages) words = stage(words)
    return words.join(join)
  }
}

/**
 * Compiles `steps` into one function, or null when there are none.
 * @param data what the steps read (the load's copy: word-data/step-data.ts); by default read
 *   now from NLTK's search path, which names no Sastrawi lists.
 * @throws ServiceError ERR_CONFIG_INVALID naming `file`, the step (1-based) and the problem.
 */
export function compilePreprocess (steps: readonly StepSpec[], functions: UserFunctions | null, file: string, data?: StepData): TextFunction | null {
  if (steps.length === 0) return null
  let read: StepData
  try {
    read = data ?? readStepData(steps, { nltkData: null, sastrawi: null })
  } catch (err) {
    throw new ServiceError('ERR_CONFIG_INVALID', `invalid model settings: ${err instanceof Error ? err.message : String(err)}`, { file })
  }
  const compiled = steps.map((step, i) => {
    try {
      return compileStep(step, functions, read)
    } catch (err) {
      const detail = err instanceof ServiceError ? err.detail : err instanceof Error ? err.message : String(err)
      throw new ServiceError('ERR_CONFIG_INVALID', `invalid model settings: preprocess step ${i + 1} (${step.op}): ${detail}`, { file })
    }
  })
  if (compiled.length === 1) return compiled[0]!
  return text => {
    let t = text
    for (const f of compiled) t = f(t)
    return t
  }
}
