/** The regular expressions of NLTK's TweetTokenizer, as tweet-patterns.py reads them off casual.py. */
export interface TweetPatterns {
  /** WORD_RE and PHONE_WORD_RE (VERBOSE | IGNORECASE). */
  readonly word: string
  readonly phoneWord: string
  /** EMOTICON_RE (VERBOSE | IGNORECASE): a token it finds keeps its case. */
  readonly emoticon: string
  readonly hang: string
  readonly entity: string
  readonly handles: string
  readonly reduceLengthening: string
}
