import { expect } from 'chai'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { ServiceError } from '../../src/errors.js'
import {
  PY_STRING_CONSTANTS, compileReFindall, compileReSplit, compileReSub, htmlUnescape, makeTranslation, makeTranslationFromMap,
  pyCasefold, pyIsAlnum, pyIsAlpha, pyIsAscii, pyIsDecimal, pyIsDigit, pyIsLower, pyIsNumeric, pyIsSpace, pyIsTitle, pyIsUpper,
  pyLstrip, pyNormalize, pyRstrip, pyStrip, pyStringConstant, pyTranslate, pyUpper, type NormalizationForm, type PyTranslation
} from '../../src/preprocess/python-text.js'
import { FIXTURES } from '../helpers/paths.js'

/** 0: the text comes back unchanged; else the first 8 hex digits of the output's SHA-256. */
type Expected = 0 | string

interface Translation { from?: string, to?: string, delete?: string, map?: Record<string, string | null> }
interface Candidate { fn: 'sub' | 'split' | 'findall', pattern: string, repl?: string, flags: string[], error?: string }

interface Fixture {
  python: string
  unicode: string
  constants: Record<string, string>
  codePoints: Record<string, string[]>
  texts: string[]
  str: Record<string, Expected[]>
  predicates: { names: string[], inputs: string[], bits: string[] }
  html: { inputs: string[], outputs: string[] }
  htmlTooLong: string
  translations: Translation[]
  stripChars: Record<string, ['strip' | 'lstrip' | 'rstrip', string]>
  reTexts: string[]
  sub: Array<{ pattern: string, repl: string, flags: string[], count: number, outputs: Expected[] }>
  split: Array<{ pattern: string, flags: string[], maxsplit: number, outputs: string[] }>
  findall: Array<{ pattern: string, flags: string[], outputs: string[] }>
  refused: Candidate[]
  rejected: Candidate[]
}

const FIXTURE = JSON.parse(readFileSync(path.join(FIXTURES, 'preprocess', 'python-text.json'), 'utf8')) as Fixture

const hash = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 8)
const listHash = (items: readonly string[]): string => hash(JSON.stringify(items))

interface Mismatch { input: string, expected: Expected, actual: string }

/** Where `fn` disagrees with Python over `inputs`, the first five of them, and how many. */
function compare (inputs: readonly string[], expected: readonly Expected[], fn: (s: string) => string): { count: number, first: Mismatch[] } {
  const found: Mismatch[] = []
  inputs.forEach((input, i) => {
    let actual: string
    try {
      actual = fn(input)
    } catch (err) {
      actual = `threw ${String(err)}`
    }
    const want = expected[i]!
    if (want === 0 ? actual !== input : hash(actual) !== want) found.push({ input, expected: want, actual })
  })
  return { count: found.length, first: found.slice(0, 5) }
}

function expectAgreement (inputs: readonly string[], expected: readonly Expected[], fn: (s: string) => string): void {
  expect(inputs.length).to.equal(expected.length)
  expect(compare(inputs, expected, fn)).to.deep.equal({ count: 0, first: [] })
}

const PREDICATES: Readonly<Record<string, (s: string) => boolean>> = {
  isalpha: pyIsAlpha,
  isalnum: pyIsAlnum,
  isdecimal: pyIsDecimal,
  isdigit: pyIsDigit,
  isnumeric: pyIsNumeric,
  isascii: pyIsAscii,
  isspace: pyIsSpace,
  islower: pyIsLower,
  isupper: pyIsUpper,
  istitle: pyIsTitle
}

const predicateBits = (s: string): string => FIXTURE.predicates.names.map(name => PREDICATES[name]!(s) ? '1' : '0').join('')
const MARKS = '\u0323\u0302'
const normalizer = (form: NormalizationForm, suffix = ''): (c: string) => string => c => pyNormalize(form, c + suffix)

const CODE_POINT_FUNCTIONS: Readonly<Record<string, (c: string) => string>> = {
  casefold: pyCasefold,
  upper: pyUpper,
  strip: s => pyStrip(s),
  NFC: normalizer('NFC'),
  NFD: normalizer('NFD'),
  NFKC: normalizer('NFKC'),
  NFKD: normalizer('NFKD'),
  'NFC+marks': normalizer('NFC', MARKS),
  'NFD+marks': normalizer('NFD', MARKS),
  'NFKC+marks': normalizer('NFKC', MARKS),
  predicates: predicateBits
}

function translationOf (spec: Translation): PyTranslation {
  return spec.map === undefined ? makeTranslation(spec.from!, spec.to!, spec.delete!) : makeTranslationFromMap(spec.map)
}

function strFunction (name: string): (s: string) => string {
  const forms: readonly string[] = ['NFC', 'NFD', 'NFKC', 'NFKD']
  if (forms.includes(name)) return normalizer(name as NormalizationForm)
  if (name.startsWith('translate:')) {
    const table = translationOf(FIXTURE.translations[Number(name.slice('translate:'.length))]!)
    return s => pyTranslate(s, table)
  }
  if (Object.hasOwn(FIXTURE.stripChars, name)) {
    const [method, chars] = FIXTURE.stripChars[name]!
    const strip = { strip: pyStrip, lstrip: pyLstrip, rstrip: pyRstrip }[method]
    return s => strip(s, chars)
  }
  const plain: Record<string, (s: string) => string> = {
    casefold: pyCasefold, upper: pyUpper, 'html.unescape': htmlUnescape, strip: s => pyStrip(s), lstrip: s => pyLstrip(s), rstrip: s => pyRstrip(s)
  }
  return plain[name]!
}

function refusal (run: () => unknown): ServiceError | undefined {
  try {
    run()
  } catch (err) {
    if (err instanceof ServiceError) return err
    throw err
  }
  return undefined
}

function compileCandidate (c: Candidate): unknown {
  if (c.fn === 'sub') return compileReSub(c.pattern, c.repl!, c.flags)
  if (c.fn === 'split') return compileReSplit(c.pattern, c.flags)
  return compileReFindall(c.pattern, c.flags)
}

describe(`Python ${FIXTURE.python} text functions (python-text)`, () => {
  context(`over every code point, block by block (Unicode ${FIXTURE.unicode})`, () => {
    for (const [name, fn] of Object.entries(CODE_POINT_FUNCTIONS)) {
      it(`${name} agrees on all ${FIXTURE.codePoints[name]!.length} blocks of 4096 code points`, () => {
        const bad: string[] = []
        FIXTURE.codePoints[name]!.forEach((expected, b) => {
          const parts: string[] = []
          for (let cp = b * 4096; cp < (b + 1) * 4096; cp++) {
            if (cp >= 0xd800 && cp <= 0xdfff) continue
            parts.push(fn(String.fromCodePoint(cp)), '\0')
          }
          if (createHash('sha256').update(parts.join(''), 'utf8').digest('hex').slice(0, 16) !== expected) bad.push(`U+${(b * 4096).toString(16)}`)
        })
        expect(bad).to.deep.equal([])
      })
    }
  })

  context(`over ${FIXTURE.texts.length} texts (corpora, every UDHR script, hard cases)`, () => {
    for (const [name, expected] of Object.entries(FIXTURE.str)) {
      it(`${name} gives what Python gives`, () => {
        expectAgreement(FIXTURE.texts, expected, strFunction(name))
      })
    }
  })

  context(`str predicates over ${FIXTURE.predicates.inputs.length} words and texts`, () => {
    it('give what Python gives for each input', () => {
      const { inputs, bits } = FIXTURE.predicates
      const bad = inputs.map((s, i) => ({ s, expected: bits[i], actual: predicateBits(s) })).filter(r => r.expected !== r.actual)
      expect(bad.slice(0, 5), `${bad.length} differ`).to.deep.equal([])
    })

    it('give False for the empty string, but isascii() True', () => {
      expect(predicateBits('')).to.equal('0000010000')
    })
  })

  describe('htmlUnescape', () => {
    it(`unescapes ${FIXTURE.html.inputs.length} references of every kind as html.unescape does`, () => {
      const { inputs, outputs } = FIXTURE.html
      const bad = inputs.map((s, i) => ({ s, expected: outputs[i], actual: htmlUnescape(s) })).filter(r => r.expected !== r.actual)
      expect(bad.slice(0, 5), `${bad.length} differ`).to.deep.equal([])
    })

    it("throws ERR_VALIDATION for a decimal reference of more than 4300 digits, where Python's int() raises", () => {
      expect(refusal(() => htmlUnescape(FIXTURE.htmlTooLong))?.code).to.equal('ERR_VALIDATION')
    })

    it('returns the same string when there is no reference', () => {
      const s = 'no references & here'
      expect(htmlUnescape(s)).to.equal(s)
    })
  })

  describe('PY_STRING_CONSTANTS', () => {
    it("holds the string module's constants by their dotted names", () => {
      expect({ ...PY_STRING_CONSTANTS }).to.deep.equal(FIXTURE.constants)
    })

    it('looks a name up only among its own keys', () => {
      expect(pyStringConstant('string.digits')).to.equal('0123456789')
      expect(pyStringConstant('constructor')).to.equal(undefined)
      expect(pyStringConstant('string.letters')).to.equal(undefined)
    })
  })

  describe('makeTranslation', () => {
    it('refuses "from" and "to" of different lengths in code points, as str.maketrans does', () => {
      expect(refusal(() => makeTranslation('a😀', 'bc!'))?.code).to.equal('ERR_CONFIG_INVALID')
      expect(pyTranslate('a😀', makeTranslation('a😀', 'bc'))).to.equal('bc')
    })

    it('refuses a mapping key that is not one character', () => {
      expect(refusal(() => makeTranslationFromMap({ ab: 'x' }))?.code).to.equal('ERR_CONFIG_INVALID')
      expect(refusal(() => makeTranslationFromMap({ '': 'x' }))?.code).to.equal('ERR_CONFIG_INVALID')
    })
  })

  describe('pyNormalize', () => {
    it('refuses a form unicodedata does not know', () => {
      expect(refusal(() => pyNormalize('nfc' as NormalizationForm, 'x'))?.code).to.equal('ERR_CONFIG_INVALID')
    })
  })

  describe('compileReSub', () => {
    for (const { pattern, repl, flags, count, outputs } of FIXTURE.sub) {
      const call = `re.sub(${JSON.stringify(pattern)}, ${JSON.stringify(repl)}${count === 0 ? '' : `, count=${count}`}${flags.length === 0 ? '' : `, flags=${flags.join('|')}`})`
      it(`${call} gives what Python gives on ${outputs.length} texts`, () => {
        expectAgreement(FIXTURE.reTexts, outputs, compileReSub(pattern, repl, flags, count))
      })
    }

    it('refuses a flag the re module does not have, naming the pattern', () => {
      const err = refusal(() => compileReSub('a', '', ['LOCALE']))
      expect(err?.code).to.equal('ERR_PATTERN_UNSUPPORTED')
      expect(err?.message).to.contain('"a"')
    })

    it('still works after a refusal', () => {
      refusal(() => compileReSub('(', ''))
      expect(compileReSub('b+', 'x')('abbc')).to.equal('axc')
    })
  })

  describe('compileReSplit', () => {
    for (const { pattern, flags, maxsplit, outputs } of FIXTURE.split) {
      const call = `re.split(${JSON.stringify(pattern)}${maxsplit === 0 ? '' : `, maxsplit=${maxsplit}`}${flags.length === 0 ? '' : `, flags=${flags.join('|')}`})`
      it(`${call} gives what Python gives on ${outputs.length} texts`, () => {
        const split = compileReSplit(pattern, flags, maxsplit)
        const bad = FIXTURE.reTexts.filter((t, i) => listHash(split(t)) !== outputs[i]).map(t => ({ t, actual: split(t) }))
        expect(bad.slice(0, 3), `${bad.length} differ`).to.deep.equal([])
      })
    }
  })

  describe('compileReFindall', () => {
    for (const { pattern, flags, outputs } of FIXTURE.findall) {
      const call = `re.findall(${JSON.stringify(pattern)}${flags.length === 0 ? '' : `, flags=${flags.join('|')}`})`
      it(`${call} gives what Python gives on ${outputs.length} texts`, () => {
        const findall = compileReFindall(pattern, flags)
        const bad = FIXTURE.reTexts.filter((t, i) => listHash(findall(t)) !== outputs[i]).map(t => ({ t, actual: findall(t) }))
        expect(bad.slice(0, 3), `${bad.length} differ`).to.deep.equal([])
      })
    }
  })

  context('calls that cannot be reproduced exactly', () => {
    for (const c of FIXTURE.refused) {
      it(`refuses ${c.fn} ${JSON.stringify(c.pattern)}${c.repl === undefined ? '' : ` -> ${JSON.stringify(c.repl)}`} with ERR_PATTERN_UNSUPPORTED, naming the pattern`, () => {
        const err = refusal(() => compileCandidate(c))
        expect(err?.code).to.equal('ERR_PATTERN_UNSUPPORTED')
        expect(err?.message).to.contain(JSON.stringify(c.pattern))
      })
    }
  })

  context('calls Python rejects', () => {
    for (const c of FIXTURE.rejected) {
      it(`rejects ${c.fn} ${JSON.stringify(c.pattern)}${c.repl === undefined ? '' : ` -> ${JSON.stringify(c.repl)}`}${c.flags.length === 0 ? '' : ` with ${c.flags.join('|')}`} (${c.error})`, () => {
        const err = refusal(() => compileCandidate(c))
        expect(err?.code).to.equal('ERR_PATTERN_UNSUPPORTED')
        expect(err?.message).to.contain(JSON.stringify(c.pattern))
      })
    }
  })
})
