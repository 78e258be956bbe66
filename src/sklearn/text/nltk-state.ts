/**
 * NLTK's stemmers and lemmatizer inside the state of an app's Pipeline step class, as plain
 * data a port can be handed: each becomes a description (`{ __class__, ...what it needs }`)
 * that the model room turns into the built-in stemmer, with Python's method names
 * (preprocess/nltk-objects.ts). Only what decides the stems is kept: Porter's mode,
 * Snowball's language and stop words (ignore_stopwords), Lancaster's prefix flag and rules.
 */
import { ServiceError } from '../../errors.js'
import { PyObject, PyTuple, type PyValue } from '../../pickle/values.js'

/** The key that marks a description of an NLTK object in a port's state. */
export const NLTK_CLASS_KEY = '__class__'

export type NltkDescription =
  | { readonly __class__: 'nltk.stem.porter.PorterStemmer', readonly mode: string }
  | { readonly __class__: 'nltk.stem.snowball.SnowballStemmer', readonly language: string, readonly stopwords: string[] }
  | { readonly __class__: 'nltk.stem.lancaster.LancasterStemmer', readonly strip_prefix: boolean, readonly rules: string[] }
  | { readonly __class__: 'nltk.stem.wordnet.WordNetLemmatizer' }

export function isNltkSnowball (record: PyObject): boolean {
  return record.module === 'nltk.stem.snowball' && record.name === 'SnowballStemmer'
}

function refuse (where: string, detail: string): never {
  throw new ServiceError('ERR_MODEL_UNSUPPORTED', `${where} holds NLTK's ${detail}`)
}

function attribute (record: PyObject, name: string): PyValue {
  return record.state instanceof Map ? record.state.get(name) : undefined
}

function strings (value: PyValue, what: string, where: string): string[] {
  const items = value instanceof Set ? [...value] : value instanceof PyTuple ? value.items : Array.isArray(value) ? value : undefined
  if (items === undefined || items.some(w => typeof w !== 'string')) return refuse(where, `${what} that is not a collection of strings`)
  return items as string[]
}

/** The language a Snowball language class stands for: EnglishStemmer 'english', PorterStemmer 'porter'. */
function languageOf (record: PyObject, where: string): string {
  if (record.module !== 'nltk.stem.snowball' || !/^[A-Z][a-z]*Stemmer$/.test(record.name) || record.name === 'SnowballStemmer') {
    return refuse(where, `SnowballStemmer with a stemmer of class ${record.module}.${record.name}`)
  }
  return record.name.slice(0, -'Stemmer'.length).toLowerCase()
}

function snowball (language: PyObject, where: string): NltkDescription {
  const stopwords = attribute(language, 'stopwords')
  return { __class__: 'nltk.stem.snowball.SnowballStemmer', language: languageOf(language, where), stopwords: stopwords === undefined ? [] : strings(stopwords, 'stop words', where).sort() }
}

/**
 * The description of an NLTK stemmer or lemmatizer record, or undefined for any other value.
 * @throws ServiceError ERR_MODEL_UNSUPPORTED naming `where` for an NLTK object whose state is not the one NLTK 3.8 pickles.
 */
export function describeNltkObject (value: PyValue, where: string): NltkDescription | undefined {
  if (!(value instanceof PyObject) || !value.module.startsWith('nltk.stem.')) return undefined
  const kind = `${value.module}.${value.name}`
  switch (kind) {
    case 'nltk.stem.porter.PorterStemmer': {
      const mode = attribute(value, 'mode')
      return typeof mode === 'string' ? { __class__: kind, mode } : refuse(where, 'PorterStemmer without its mode')
    }
    case 'nltk.stem.snowball.SnowballStemmer': {
      const stemmer = attribute(value, 'stemmer')
      return stemmer instanceof PyObject ? snowball(stemmer, where) : refuse(where, 'SnowballStemmer without its stemmer')
    }
    case 'nltk.stem.lancaster.LancasterStemmer': {
      const strip = attribute(value, '_strip_prefix')
      if (typeof strip !== 'boolean') return refuse(where, 'LancasterStemmer without its strip_prefix flag')
      return { __class__: kind, strip_prefix: strip, rules: strings(attribute(value, '_rule_tuple'), 'rules', where) }
    }
    case 'nltk.stem.wordnet.WordNetLemmatizer': return { __class__: kind }
  }
  // A language's own class (EnglishStemmer()), as SnowballStemmer holds one.
  if (value.module === 'nltk.stem.snowball') return snowball(value, where)
  return undefined
}
