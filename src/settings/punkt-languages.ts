/**
 * The languages NLTK ships Punkt parameters for (the `punkt` package's pickles, the
 * `punkt_tab` package's tables: the same 18), each served from its own data file,
 * src/preprocess/data/punkt-<language>.txt. Kept with the settings, apart from the loader
 * (src/preprocess/tokenizers/punkt-parameters.ts), so the schema can name them without
 * loading any tokenizer: a model without a settings file loads no preprocessing.
 */
export const PUNKT_LANGUAGES = [
  'czech', 'danish', 'dutch', 'english', 'estonian', 'finnish', 'french', 'german', 'greek',
  'italian', 'malayalam', 'norwegian', 'polish', 'portuguese', 'russian', 'slovene', 'spanish',
  'swedish', 'turkish'
] as const

/** A `language` that `sent_tokenize` and `word_tokenize` serve. */
export type PunktLanguage = typeof PUNKT_LANGUAGES[number]
