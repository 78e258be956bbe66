/**
 * NLTK 3.8's `RussianStemmer`, ported line by line from nltk/stem/snowball.py. Like NLTK
 * it does not lower-case, returns a word with no character above U+00FF unchanged, and
 * stems a Latin transliteration ("i^a" for я, "shch" for щ, ...) that it turns back into
 * Cyrillic at the end, so Latin letters in the input take part (an upper-case Latin A, U
 * or E counts as a vowel, and comes back as я, ю or э when it falls in RV or R2).
 */
import { withCodePoints } from './code-points.js'

const PERFECTIVE_GERUND_SUFFIXES = [
  'ivshis\'', 'yvshis\'', 'vshis\'', 'ivshi', 'yvshi', 'vshi', 'iv', 'yv', 'v'
]
const ADJECTIVAL_SUFFIXES = [
  'ui^ushchi^ui^u', 'ui^ushchi^ai^a', 'ui^ushchimi', 'ui^ushchymi', 'ui^ushchego', 'ui^ushchogo',
  'ui^ushchemu', 'ui^ushchomu', 'ui^ushchikh', 'ui^ushchykh', 'ui^ushchui^u', 'ui^ushchaia',
  'ui^ushchoi^u', 'ui^ushchei^u', 'i^ushchi^ui^u', 'i^ushchi^ai^a', 'ui^ushchee', 'ui^ushchie',
  'ui^ushchye', 'ui^ushchoe', 'ui^ushchei`', 'ui^ushchii`', 'ui^ushchyi`', 'ui^ushchoi`',
  'ui^ushchem', 'ui^ushchim', 'ui^ushchym', 'ui^ushchom', 'i^ushchimi', 'i^ushchymi',
  'i^ushchego', 'i^ushchogo', 'i^ushchemu', 'i^ushchomu', 'i^ushchikh', 'i^ushchykh',
  'i^ushchui^u', 'i^ushchai^a', 'i^ushchoi^u', 'i^ushchei^u', 'i^ushchee', 'i^ushchie',
  'i^ushchye', 'i^ushchoe', 'i^ushchei`', 'i^ushchii`', 'i^ushchyi`', 'i^ushchoi`', 'i^ushchem',
  'i^ushchim', 'i^ushchym', 'i^ushchom', 'shchi^ui^u', 'shchi^ai^a', 'ivshi^ui^u', 'ivshi^ai^a',
  'yvshi^ui^u', 'yvshi^ai^a', 'shchimi', 'shchymi', 'shchego', 'shchogo', 'shchemu', 'shchomu',
  'shchikh', 'shchykh', 'shchui^u', 'shchai^a', 'shchoi^u', 'shchei^u', 'ivshimi', 'ivshymi',
  'ivshego', 'ivshogo', 'ivshemu', 'ivshomu', 'ivshikh', 'ivshykh', 'ivshui^u', 'ivshai^a',
  'ivshoi^u', 'ivshei^u', 'yvshimi', 'yvshymi', 'yvshego', 'yvshogo', 'yvshemu', 'yvshomu',
  'yvshikh', 'yvshykh', 'yvshui^u', 'yvshai^a', 'yvshoi^u', 'yvshei^u', 'vshi^ui^u', 'vshi^ai^a',
  'shchee', 'shchie', 'shchye', 'shchoe', 'shchei`', 'shchii`', 'shchyi`', 'shchoi`', 'shchem',
  'shchim', 'shchym', 'shchom', 'ivshee', 'ivshie', 'ivshye', 'ivshoe', 'ivshei`', 'ivshii`',
  'ivshyi`', 'ivshoi`', 'ivshem', 'ivshim', 'ivshym', 'ivshom', 'yvshee', 'yvshie', 'yvshye',
  'yvshoe', 'yvshei`', 'yvshii`', 'yvshyi`', 'yvshoi`', 'yvshem', 'yvshim', 'yvshym', 'yvshom',
  'vshimi', 'vshymi', 'vshego', 'vshogo', 'vshemu', 'vshomu', 'vshikh', 'vshykh', 'vshui^u',
  'vshai^a', 'vshoi^u', 'vshei^u', 'emi^ui^u', 'emi^ai^a', 'nni^ui^u', 'nni^ai^a', 'vshee',
  'vshie', 'vshye', 'vshoe', 'vshei`', 'vshii`', 'vshyi`', 'vshoi`', 'vshem', 'vshim', 'vshym',
  'vshom', 'emimi', 'emymi', 'emego', 'emogo', 'ememu', 'emomu', 'emikh', 'emykh', 'emui^u',
  'emai^a', 'emoi^u', 'emei^u', 'nnimi', 'nnymi', 'nnego', 'nnogo', 'nnemu', 'nnomu', 'nnikh',
  'nnykh', 'nnui^u', 'nnai^a', 'nnoi^u', 'nnei^u', 'emee', 'emie', 'emye', 'emoe', 'emei`',
  'emii`', 'emyi`', 'emoi`', 'emem', 'emim', 'emym', 'emom', 'nnee', 'nnie', 'nnye', 'nnoe',
  'nnei`', 'nnii`', 'nnyi`', 'nnoi`', 'nnem', 'nnim', 'nnym', 'nnom', 'i^ui^u', 'i^ai^a', 'imi',
  'ymi', 'ego', 'ogo', 'emu', 'omu', 'ikh', 'ykh', 'ui^u', 'ai^a', 'oi^u', 'ei^u', 'ee', 'ie',
  'ye', 'oe', 'ei`', 'ii`', 'yi`', 'oi`', 'em', 'im', 'ym', 'om'
]
const REFLEXIVE_SUFFIXES = [
  'si^a', 's\''
]
const VERB_SUFFIXES = [
  'esh\'', 'ei`te', 'ui`te', 'ui^ut', 'ish\'', 'ete', 'i`te', 'i^ut', 'nno', 'ila', 'yla', 'ena',
  'ite', 'ili', 'yli', 'ilo', 'ylo', 'eno', 'i^at', 'uet', 'eny', 'it\'', 'yt\'', 'ui^u', 'la',
  'na', 'li', 'em', 'lo', 'no', 'et', 'ny', 't\'', 'ei`', 'ui`', 'il', 'yl', 'im', 'ym', 'en',
  'it', 'yt', 'i^u', 'i`', 'l', 'n'
]
const NOUN_SUFFIXES = [
  'ii^ami', 'ii^akh', 'i^ami', 'ii^am', 'i^akh', 'ami', 'iei`', 'i^am', 'iem', 'akh', 'ii^u',
  '\'i^u', 'ii^a', '\'i^a', 'ev', 'ov', 'ie', '\'e', 'ei', 'ii', 'ei`', 'oi`', 'ii`', 'em', 'am',
  'om', 'i^u', 'i^a', 'a', 'e', 'i', 'i`', 'o', 'u', 'y', '\''
]
const SUPERLATIVE_SUFFIXES = [
  'ei`she', 'ei`sh'
]
const DERIVATIONAL_SUFFIXES = [
  'ost\'', 'ost'
]
const ADJECTIVAL_AFTER_A: ReadonlySet<string> = new Set([
  'i^ushchi^ui^u', 'i^ushchi^ai^a', 'i^ushchui^u', 'i^ushchai^a', 'i^ushchoi^u', 'i^ushchei^u',
  'i^ushchimi', 'i^ushchymi', 'i^ushchego', 'i^ushchogo', 'i^ushchemu', 'i^ushchomu',
  'i^ushchikh', 'i^ushchykh', 'shchi^ui^u', 'shchi^ai^a', 'i^ushchee', 'i^ushchie', 'i^ushchye',
  'i^ushchoe', 'i^ushchei`', 'i^ushchii`', 'i^ushchyi`', 'i^ushchoi`', 'i^ushchem', 'i^ushchim',
  'i^ushchym', 'i^ushchom', 'vshi^ui^u', 'vshi^ai^a', 'shchui^u', 'shchai^a', 'shchoi^u',
  'shchei^u', 'emi^ui^u', 'emi^ai^a', 'nni^ui^u', 'nni^ai^a', 'shchimi', 'shchymi', 'shchego',
  'shchogo', 'shchemu', 'shchomu', 'shchikh', 'shchykh', 'vshui^u', 'vshai^a', 'vshoi^u',
  'vshei^u', 'shchee', 'shchie', 'shchye', 'shchoe', 'shchei`', 'shchii`', 'shchyi`', 'shchoi`',
  'shchem', 'shchim', 'shchym', 'shchom', 'vshimi', 'vshymi', 'vshego', 'vshogo', 'vshemu',
  'vshomu', 'vshikh', 'vshykh', 'emui^u', 'emai^a', 'emoi^u', 'emei^u', 'nnui^u', 'nnai^a',
  'nnoi^u', 'nnei^u', 'vshee', 'vshie', 'vshye', 'vshoe', 'vshei`', 'vshii`', 'vshyi`', 'vshoi`',
  'vshem', 'vshim', 'vshym', 'vshom', 'emimi', 'emymi', 'emego', 'emogo', 'ememu', 'emomu',
  'emikh', 'emykh', 'nnimi', 'nnymi', 'nnego', 'nnogo', 'nnemu', 'nnomu', 'nnikh', 'nnykh',
  'emee', 'emie', 'emye', 'emoe', 'emei`', 'emii`', 'emyi`', 'emoi`', 'emem', 'emim', 'emym',
  'emom', 'nnee', 'nnie', 'nnye', 'nnoe', 'nnei`', 'nnii`', 'nnyi`', 'nnoi`', 'nnem', 'nnim',
  'nnym', 'nnom'
])
const VERB_AFTER_A: ReadonlySet<string> = new Set([
  'la', 'na', 'ete', 'i`te', 'li', 'i`', 'l', 'em', 'n', 'lo', 'no', 'et', 'i^ut', 'ny', 't\'',
  'esh\'', 'nno'
])
const VOWELS = 'AUEaeiouy'
const CYRILLIC_TO_ROMAN: ReadonlyMap<string, string> = new Map([
  ['\u0410', 'a'], ['\u0430', 'a'], ['\u0411', 'b'], ['\u0431', 'b'], ['\u0412', 'v'], ['\u0432', 'v'],
  ['\u0413', 'g'], ['\u0433', 'g'], ['\u0414', 'd'], ['\u0434', 'd'], ['\u0415', 'e'], ['\u0435', 'e'],
  ['\u0401', 'e'], ['\u0451', 'e'], ['\u0416', 'zh'], ['\u0436', 'zh'], ['\u0417', 'z'], ['\u0437', 'z'],
  ['\u0418', 'i'], ['\u0438', 'i'], ['\u0419', 'i`'], ['\u0439', 'i`'], ['\u041A', 'k'], ['\u043A', 'k'],
  ['\u041B', 'l'], ['\u043B', 'l'], ['\u041C', 'm'], ['\u043C', 'm'], ['\u041D', 'n'], ['\u043D', 'n'],
  ['\u041E', 'o'], ['\u043E', 'o'], ['\u041F', 'p'], ['\u043F', 'p'], ['\u0420', 'r'], ['\u0440', 'r'],
  ['\u0421', 's'], ['\u0441', 's'], ['\u0422', 't'], ['\u0442', 't'], ['\u0423', 'u'], ['\u0443', 'u'],
  ['\u0424', 'f'], ['\u0444', 'f'], ['\u0425', 'kh'], ['\u0445', 'kh'], ['\u0426', 't^s'], ['\u0446', 't^s'],
  ['\u0427', 'ch'], ['\u0447', 'ch'], ['\u0428', 'sh'], ['\u0448', 'sh'], ['\u0429', 'shch'], ['\u0449', 'shch'],
  ['\u042A', "''"], ['\u044A', "''"], ['\u042B', 'y'], ['\u044B', 'y'], ['\u042C', "'"], ['\u044C', "'"],
  ['\u042D', 'e`'], ['\u044D', 'e`'], ['\u042E', 'i^u'], ['\u044E', 'i^u'], ['\u042F', 'i^a'], ['\u044F', 'i^a']
])
// In NLTK's order: the order decides how overlapping spellings ("shch", "sh", "ch") read back.
const ROMAN_TO_CYRILLIC: ReadonlyArray<readonly [string, string]> = [
  ['i^u', '\u044E'], ['i^a', '\u044F'], ['shch', '\u0449'], ['kh', '\u0445'], ['t^s', '\u0446'],
  ['ch', '\u0447'], ['e`', '\u044D'], ['i`', '\u0439'], ['sh', '\u0448'], ['k', '\u043A'],
  ['e', '\u0435'], ['zh', '\u0436'], ['a', '\u0430'], ['b', '\u0431'], ['v', '\u0432'],
  ['g', '\u0433'], ['d', '\u0434'], ['e', '\u0435'], ['z', '\u0437'], ['i', '\u0438'],
  ['l', '\u043B'], ['m', '\u043C'], ['n', '\u043D'], ['o', '\u043E'], ['p', '\u043F'],
  ['r', '\u0440'], ['s', '\u0441'], ['t', '\u0442'], ['u', '\u0443'], ['f', '\u0444'],
  ["''", '\u044A'], ['y', '\u044B'], ["'", '\u044C']
]

/** `RussianStemmer().stem(word)` (NLTK 3.8, ignore_stopwords=False). */
export function stemRussian (word: string): string {
  return withCodePoints(word, stemBmp)
}

/** `__cyrillic_to_roman`: NLTK's chain of one-letter replacements, done in one pass. */
function cyrillicToRoman (word: string): string {
  let out = ''
  for (let i = 0; i < word.length; i++) {
    const ch = word[i]!
    out += CYRILLIC_TO_ROMAN.get(ch) ?? ch
  }
  return out
}

function romanToCyrillic (word: string): string {
  for (const [roman, cyrillic] of ROMAN_TO_CYRILLIC) word = word.replaceAll(roman, cyrillic)
  return word
}

/** `__regions_russian`: RV after the first vowel, R2 as usual, with я, ю, э counted as one vowel each. */
function regionsRussian (word: string): [string, string] {
  let r1 = ''
  let r2 = ''
  let rv = ''
  word = word.replaceAll('i^a', 'A').replaceAll('i^u', 'U').replaceAll('e`', 'E')
  for (let i = 1; i < word.length; i++) {
    if (!VOWELS.includes(word[i]!) && VOWELS.includes(word[i - 1]!)) {
      r1 = word.slice(i + 1)
      break
    }
  }
  for (let i = 1; i < r1.length; i++) {
    if (!VOWELS.includes(r1[i]!) && VOWELS.includes(r1[i - 1]!)) {
      r2 = r1.slice(i + 1)
      break
    }
  }
  for (let i = 0; i < word.length; i++) {
    if (VOWELS.includes(word[i]!)) {
      rv = word.slice(i + 1)
      break
    }
  }
  return [spellOut(rv), spellOut(r2)]
}

function spellOut (region: string): string {
  return region.replaceAll('A', 'i^a').replaceAll('U', 'i^u').replaceAll('E', 'e`')
}

/** Whether RV, without `suffix`, ends in "i^a" or "a", as the group 1 endings require. */
function followsA (rv: string, suffix: string): boolean {
  const n = suffix.length
  return rv.slice(-n - 3, -n) === 'i^a' || rv.slice(-n - 1, -n) === 'a'
}

function stemBmp (word: string): string {
  let exceeded = false
  for (let i = 0; i < word.length; i++) {
    if (word.charCodeAt(i) > 255) {
      exceeded = true
      break
    }
  }
  if (!exceeded) return word

  word = cyrillicToRoman(word)

  let step1Success = false
  let adjectivalRemoved = false
  let verbRemoved = false
  let undoubleSuccess = false
  let superlativeRemoved = false

  let [rv, r2] = regionsRussian(word)
  const cut = (n: number): void => {
    word = word.slice(0, -n)
    r2 = r2.slice(0, -n)
    rv = rv.slice(0, -n)
  }

  // Step 1
  for (const suffix of PERFECTIVE_GERUND_SUFFIXES) {
    if (!rv.endsWith(suffix)) continue
    if (suffix === 'v' || suffix === 'vshi' || suffix === "vshis'") {
      if (followsA(rv, suffix)) {
        cut(suffix.length)
        step1Success = true
        break
      }
    } else {
      cut(suffix.length)
      step1Success = true
      break
    }
  }

  if (!step1Success) {
    for (const suffix of REFLEXIVE_SUFFIXES) {
      if (rv.endsWith(suffix)) {
        cut(suffix.length)
        break
      }
    }

    for (const suffix of ADJECTIVAL_SUFFIXES) {
      if (!rv.endsWith(suffix)) continue
      if (ADJECTIVAL_AFTER_A.has(suffix)) {
        if (followsA(rv, suffix)) {
          cut(suffix.length)
          adjectivalRemoved = true
          break
        }
      } else {
        cut(suffix.length)
        adjectivalRemoved = true
        break
      }
    }

    if (!adjectivalRemoved) {
      for (const suffix of VERB_SUFFIXES) {
        if (!rv.endsWith(suffix)) continue
        if (VERB_AFTER_A.has(suffix)) {
          if (followsA(rv, suffix)) {
            cut(suffix.length)
            verbRemoved = true
            break
          }
        } else {
          cut(suffix.length)
          verbRemoved = true
          break
        }
      }
    }

    if (!adjectivalRemoved && !verbRemoved) {
      for (const suffix of NOUN_SUFFIXES) {
        if (rv.endsWith(suffix)) {
          cut(suffix.length)
          break
        }
      }
    }
  }

  // Step 2
  if (rv.endsWith('i')) {
    word = word.slice(0, -1)
    r2 = r2.slice(0, -1)
  }

  // Step 3
  for (const suffix of DERIVATIONAL_SUFFIXES) {
    if (r2.endsWith(suffix)) {
      word = word.slice(0, -suffix.length)
      break
    }
  }

  // Step 4
  if (word.endsWith('nn')) {
    word = word.slice(0, -1)
    undoubleSuccess = true
  }
  if (!undoubleSuccess) {
    for (const suffix of SUPERLATIVE_SUFFIXES) {
      if (word.endsWith(suffix)) {
        word = word.slice(0, -suffix.length)
        superlativeRemoved = true
        break
      }
    }
    if (word.endsWith('nn')) word = word.slice(0, -1)
  }
  if (!undoubleSuccess && !superlativeRemoved) {
    if (word.endsWith("'")) word = word.slice(0, -1)
  }

  return romanToCyrillic(word)
}
