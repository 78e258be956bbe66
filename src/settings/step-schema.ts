/**
 * The declared preprocessing steps of a settings file, as JSON Schema (checked once when
 * the file is read) and as types. Each step is named after the Python call it reproduces;
 * a `words` step splits the text, runs word steps on each word, and joins them back.
 */

import { PUNKT_LANGUAGES, type PunktLanguage } from './punkt-languages.js'

/** A step on the whole text (or, inside `words`, on each word). */
export type TextStepSpec =
  | { readonly op: 'str.lower' | 'str.upper' | 'str.casefold' | 'html.unescape' }
  | { readonly op: 'str.strip' | 'str.lstrip' | 'str.rstrip', readonly chars?: string }
  | { readonly op: 'unicodedata.normalize', readonly form: 'NFC' | 'NFD' | 'NFKC' | 'NFKD' }
  | { readonly op: 're.sub', readonly pattern: string, readonly repl: string, readonly flags?: readonly string[], readonly count?: number }
  | { readonly op: 'str.translate', readonly from?: string, readonly to?: string, readonly delete?: string }
  | { readonly op: 'function', readonly name: string }
  | { readonly op: 'sastrawi.Stemmer' }

/** Whose NLTK tokenizers to reproduce: 3.8 (the default) or 3.10 (NLTK 3.10.3). */
type TokenizerNltk = '3.8' | '3.10'

/** One of NLTK's tokenizers, named as the app calls it, with its arguments (`language`: one NLTK ships Punkt parameters for). */
export type NltkSplitSpec =
  | { readonly 'nltk.word_tokenize': { readonly preserve_line?: boolean, readonly language?: PunktLanguage, readonly nltk?: TokenizerNltk } }
  | { readonly 'nltk.sent_tokenize': { readonly language?: PunktLanguage, readonly nltk?: TokenizerNltk } }
  | { readonly 'nltk.TreebankWordTokenizer': { readonly nltk?: TokenizerNltk } }
  | { readonly 'nltk.wordpunct_tokenize': { readonly nltk?: TokenizerNltk } }
  | { readonly 'nltk.TweetTokenizer': { readonly preserve_case?: boolean, readonly reduce_len?: boolean, readonly strip_handles?: boolean, readonly match_phone_numbers?: boolean, readonly nltk?: TokenizerNltk } }
  | { readonly 'nltk.RegexpTokenizer': { readonly pattern: string, readonly gaps?: boolean, readonly discard_empty?: boolean, readonly flags?: readonly string[], readonly nltk?: TokenizerNltk } }

/** The NLTK tokenizers that need no argument, which may be named alone. */
export const NLTK_SPLIT_NAMES = ['nltk.word_tokenize', 'nltk.sent_tokenize', 'nltk.TreebankWordTokenizer', 'nltk.wordpunct_tokenize', 'nltk.TweetTokenizer'] as const

/**
 * Splitting a text into words: `str.split()`, `re.split(pattern)`, `re.findall(pattern)`, or
 * an NLTK tokenizer (alone by name for its defaults).
 */
export type SplitSpec =
  | 'str.split'
  | typeof NLTK_SPLIT_NAMES[number]
  | { readonly 're.split': string, readonly flags?: readonly string[] }
  | { readonly 're.findall': string, readonly flags?: readonly string[] }
  | NltkSplitSpec

/** A step on one word: any text step, or one that only words have. */
export type WordStepSpec =
  | TextStepSpec
  | { readonly op: 'stopwords', readonly nltk?: string | readonly string[], readonly sklearn?: boolean, readonly sastrawi?: boolean, readonly words?: readonly string[], readonly add?: readonly string[], readonly except?: readonly string[] }
  | { readonly op: 'replace', readonly table: Readonly<Record<string, string>> }
  | { readonly op: 'keep', readonly if?: string, readonly min_length?: number }
  | { readonly op: 'nltk.PorterStemmer', readonly mode?: 'ORIGINAL_ALGORITHM' | 'MARTIN_EXTENSIONS' | 'NLTK_EXTENSIONS' }
  | { readonly op: 'nltk.SnowballStemmer', readonly language: string }
  | { readonly op: 'nltk.LancasterStemmer', readonly strip_prefix?: boolean }
  | { readonly op: 'nltk.WordNetLemmatizer', readonly pos?: 'n' | 'v' | 'a' | 'r' | 's', readonly nltk?: '3.8' | '3.9' }

/** A step over the whole list of words: it looks at each word's neighbours. */
export type WordListStepSpec =
  | { readonly op: 'nltk.mark_negation', readonly double_neg_flip?: boolean, readonly shallow?: boolean }
  | { readonly op: 'ngrams', readonly n: number | readonly number[], readonly sep?: string, readonly append: boolean }

/** Inside `words`: a step on each word, or on the list of them. */
export type WordsStepSpec = WordStepSpec | WordListStepSpec

export type StepSpec =
  | TextStepSpec
  | { readonly op: 'words', readonly split?: SplitSpec, readonly join?: string, readonly steps: readonly WordsStepSpec[] }

const FLAGS = { type: 'array', items: { enum: ['IGNORECASE', 'I', 'MULTILINE', 'M', 'DOTALL', 'S', 'ASCII', 'A', 'VERBOSE', 'X', 'UNICODE', 'U'] } }
const WORDS = { type: 'array', items: { type: 'string' } }
const step = (op: string | readonly string[], properties: Record<string, unknown> = {}, required: readonly string[] = []): Record<string, unknown> => ({
  type: 'object',
  required: ['op', ...required],
  additionalProperties: false,
  properties: { op: typeof op === 'string' ? { const: op } : { enum: op }, ...properties }
})

const TEXT_STEPS = [
  step(['str.lower', 'str.upper', 'str.casefold', 'html.unescape']),
  step(['str.strip', 'str.lstrip', 'str.rstrip'], { chars: { type: 'string' } }),
  step('unicodedata.normalize', { form: { enum: ['NFC', 'NFD', 'NFKC', 'NFKD'] } }, ['form']),
  step('re.sub', { pattern: { type: 'string' }, repl: { type: 'string' }, flags: FLAGS, count: { type: 'integer', minimum: 0 } }, ['pattern', 'repl']),
  step('str.translate', { from: { type: 'string' }, to: { type: 'string' }, delete: { type: 'string' } }),
  step('function', { name: { type: 'string', minLength: 1 } }, ['name']),
  // PySastrawi's StemmerFactory().create_stemmer().stem(text): on a whole text or on each word.
  step('sastrawi.Stemmer')
]

const WORD_ONLY_STEPS = [
  step('stopwords', { nltk: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] }, sklearn: { type: 'boolean' }, sastrawi: { type: 'boolean' }, words: WORDS, add: WORDS, except: WORDS }),
  step('replace', { table: { type: 'object', additionalProperties: { type: 'string' } } }, ['table']),
  step('keep', { if: { enum: ['str.isalpha', 'str.isalnum', 'str.isdigit', 'str.isdecimal', 'str.isnumeric', 'str.isascii', 'str.islower', 'str.isupper', 'not str.isalpha', 'not str.isalnum', 'not str.isdigit', 'not str.isdecimal', 'not str.isnumeric', 'not str.isascii', 'not str.islower', 'not str.isupper'] }, min_length: { type: 'integer', minimum: 0 } }),
  step('nltk.PorterStemmer', { mode: { enum: ['ORIGINAL_ALGORITHM', 'MARTIN_EXTENSIONS', 'NLTK_EXTENSIONS'] } }),
  step('nltk.SnowballStemmer', { language: { type: 'string' } }, ['language']),
  step('nltk.LancasterStemmer', { strip_prefix: { type: 'boolean' } }),
  // NLTK 3.9 changed morphy (its suffix rules are applied once): '3.9' for an app on NLTK 3.9 or later.
  step('nltk.WordNetLemmatizer', { pos: { enum: ['n', 'v', 'a', 'r', 's'] }, nltk: { enum: ['3.8', '3.9'] } })
]

const WORD_LIST_STEPS = [
  // shallow=True only spares NLTK a copy of the list; accepted so the step reads like the call.
  step('nltk.mark_negation', { double_neg_flip: { type: 'boolean' }, shallow: { type: 'boolean' } }),
  step('ngrams', { n: { oneOf: [{ type: 'integer', minimum: 1 }, { type: 'array', minItems: 1, items: { type: 'integer', minimum: 1 } }] }, sep: { type: 'string' }, append: { type: 'boolean' } }, ['n', 'append'])
]

const NLTK_VERSION = { enum: ['3.8', '3.10'] }
/** `language` of sent_tokenize and word_tokenize: a refusal lists these, the languages served. */
const PUNKT_LANGUAGE = { enum: PUNKT_LANGUAGES }
const nltkSplit = (name: string, options: Record<string, unknown>, required: readonly string[] = []): Record<string, unknown> => ({
  type: 'object',
  additionalProperties: false,
  required: [name],
  properties: { [name]: { type: 'object', additionalProperties: false, required, properties: { ...options, nltk: NLTK_VERSION } } }
})

/** Each object form of `split`, by the key that names it. */
const SPLIT_OBJECTS: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ['re.split', { type: 'object', additionalProperties: false, required: ['re.split'], properties: { 're.split': { type: 'string' }, flags: FLAGS } }],
  ['re.findall', { type: 'object', additionalProperties: false, required: ['re.findall'], properties: { 're.findall': { type: 'string' }, flags: FLAGS } }],
  ['nltk.word_tokenize', nltkSplit('nltk.word_tokenize', { preserve_line: { type: 'boolean' }, language: PUNKT_LANGUAGE })],
  ['nltk.sent_tokenize', nltkSplit('nltk.sent_tokenize', { language: PUNKT_LANGUAGE })],
  ['nltk.TreebankWordTokenizer', nltkSplit('nltk.TreebankWordTokenizer', {})],
  ['nltk.wordpunct_tokenize', nltkSplit('nltk.wordpunct_tokenize', {})],
  ['nltk.TweetTokenizer', nltkSplit('nltk.TweetTokenizer', { preserve_case: { type: 'boolean' }, reduce_len: { type: 'boolean' }, strip_handles: { type: 'boolean' }, match_phone_numbers: { type: 'boolean' } })],
  ['nltk.RegexpTokenizer', nltkSplit('nltk.RegexpTokenizer', { pattern: { type: 'string' }, gaps: { type: 'boolean' }, discard_empty: { type: 'boolean' }, flags: FLAGS }, ['pattern'])]
]

/**
 * `split`: a name, or an object keyed by one. A chain of if/then rather than oneOf, so a
 * mistake is reported against the form its key names ("split.nltk.TweetTokenizer.nltk must
 * be equal to one of ...") rather than against every form at once.
 */
const SPLIT = SPLIT_OBJECTS.reduceRight<Record<string, unknown>>(
  (otherwise, [key, schema]) => ({ if: { type: 'object', required: [key] }, then: schema, else: otherwise }),
  { enum: ['str.split', ...NLTK_SPLIT_NAMES] }
)

const opOf = (schema: Record<string, unknown>): readonly string[] => {
  const op = (schema.properties as { op: { const?: string, enum?: string[] } }).op
  return op.const !== undefined ? [op.const] : op.enum!
}
const byOp = (schemas: ReadonlyArray<Record<string, unknown>>): ReadonlyMap<string, Record<string, unknown>> =>
  new Map(schemas.flatMap(schema => opOf(schema).map(op => [op, schema] as const)))

/** Each top-level step's schema by op (a `words` step's `steps` are checked one by one with WORD_STEP_SCHEMAS). */
export const TEXT_STEP_SCHEMAS = byOp([...TEXT_STEPS, step('words', { split: SPLIT, join: { type: 'string' }, steps: { type: 'array', items: { type: 'object' } } }, ['steps'])])
/** Each word step's schema by op. */
export const WORD_STEP_SCHEMAS = byOp([...TEXT_STEPS, ...WORD_ONLY_STEPS, ...WORD_LIST_STEPS])
/** The ops of the steps over the whole list of words. */
export const WORD_LIST_OPS: ReadonlySet<string> = new Set(WORD_LIST_STEPS.flatMap(opOf))
