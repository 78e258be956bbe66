/**
 * The string regions R1, R2 and RV as NLTK 3.8 computes them (`_ScandinavianStemmer` and
 * `_StandardStemmer` in nltk/stem/snowball.py), quirks included.
 */

/** `_r1_scandinavian`: R1, moved so that at least three letters precede it. */
export function r1Scandinavian (word: string, vowels: string): string {
  let r1 = ''
  for (let i = 1; i < word.length; i++) {
    if (!vowels.includes(word[i]!) && vowels.includes(word[i - 1]!)) {
      // len(word[:i + 1]) is i + 1 here, never 0, so NLTK's `return word` never runs.
      r1 = i + 1 < 3 ? word.slice(3) : word.slice(i + 1)
      break
    }
  }
  return r1
}

/** `_r1r2_standard`: R1 after the first non-vowel following a vowel, R2 the same within R1. */
export function r1r2Standard (word: string, vowels: string): [string, string] {
  let r1 = ''
  let r2 = ''
  for (let i = 1; i < word.length; i++) {
    if (!vowels.includes(word[i]!) && vowels.includes(word[i - 1]!)) {
      r1 = word.slice(i + 1)
      break
    }
  }
  for (let i = 1; i < r1.length; i++) {
    if (!vowels.includes(r1[i]!) && vowels.includes(r1[i - 1]!)) {
      r2 = r1.slice(i + 1)
      break
    }
  }
  return [r1, r2]
}

/** `_rv_standard`: RV as the Romance stemmers define it. */
export function rvStandard (word: string, vowels: string): string {
  let rv = ''
  if (word.length >= 2) {
    if (!vowels.includes(word[1]!)) {
      for (let i = 2; i < word.length; i++) {
        if (vowels.includes(word[i]!)) {
          rv = word.slice(i + 1)
          break
        }
      }
    } else if (vowels.includes(word[0]!) && vowels.includes(word[1]!)) {
      for (let i = 2; i < word.length; i++) {
        if (!vowels.includes(word[i]!)) {
          rv = word.slice(i + 1)
          break
        }
      }
    } else {
      rv = word.slice(3)
    }
  }
  return rv
}
