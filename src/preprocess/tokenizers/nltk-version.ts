/**
 * Whose tokenizers to reproduce: NLTK 3.8 (and 3.8.1), or NLTK 3.10.3, the newest checked.
 * Between them NLTK changed what word_tokenize and sent_tokenize do with curly quotes,
 * guillemets and dashes, and moved RegexpTokenizer (so wordpunct_tokenize) and the ReDoS
 * bounds of TweetTokenizer to the `regex` module's semantics; 3.9.x releases took some of
 * these changes and not others, and could not be run here, so they are not claimed.
 */
export type TokenizerNltkVersion = '3.8' | '3.10'
