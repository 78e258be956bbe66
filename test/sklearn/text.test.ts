import { expect } from 'chai'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { ServiceError } from '../../src/errors.js'
import { buildAnalyzer, type AnalyzerOptions } from '../../src/sklearn/text/analyzer.js'
import { WORD, pyLower, pyLowerUnit, pyNfkd, pySplit } from '../../src/python/python-str.js'
import { stripAccentsUnicode } from '../../src/sklearn/text/strip-accents.js'
import { translatePythonPattern } from '../../src/python/python-regex.js'
import { ENGLISH_STOP_WORDS } from '../../src/sklearn/text/english-stop-words.js'
import { FIXTURES } from '../helpers/paths.js'

const DIR = path.join(FIXTURES, 'sklearn')
const read = <T>(name: string): T => JSON.parse(readFileSync(path.join(DIR, name), 'utf8')) as T

describe('Python text semantics', () => {
  context('over every code point, block by block against Python 3.11', () => {
    const { blocks } = read<{ blocks: Record<string, string[]> }>('unicode.json')
    const mappings: Record<string, (c: string) => string> = {
      lower: pyLower,
      nfkd: pyNfkd,
      strip_accents_unicode: stripAccentsUnicode,
      word: c => WORD.has(c.codePointAt(0)!) ? '1' : '0',
      split: c => pySplit(`a${c}b`).length === 1 && pySplit(`a${c}b`)[0] === `a${c}b` ? '0' : '1'
    }
    for (const [name, fn] of Object.entries(mappings)) {
      it(`${name} agrees on all 272 blocks of 4096 code points`, () => {
        const bad: string[] = []
        blocks[name]!.forEach((expected, b) => {
          const h = createHash('sha256')
          for (let cp = b * 4096; cp < (b + 1) * 4096; cp++) {
            if (cp >= 0xd800 && cp <= 0xdfff) continue
            h.update(fn(String.fromCodePoint(cp)), 'utf8')
            h.update(Buffer.from([0]))
          }
          if (h.digest('hex').slice(0, 16) !== expected) bad.push(`U+${(b * 4096).toString(16)}`)
        })
        expect(bad).to.deep.equal([])
      })
    }
    it('lower of one BMP code point (what the tokenizer\'s tables are built from) agrees on the 16 BMP blocks', () => {
      const bad: string[] = []
      blocks.lower!.slice(0, 16).forEach((expected, b) => {
        const h = createHash('sha256')
        for (let cp = b * 4096; cp < (b + 1) * 4096; cp++) {
          if (cp >= 0xd800 && cp <= 0xdfff) continue
          h.update(pyLowerUnit(cp), 'utf8')
          h.update(Buffer.from([0]))
        }
        if (h.digest('hex').slice(0, 16) !== expected) bad.push(`U+${(b * 4096).toString(16)}`)
      })
      expect(bad).to.deep.equal([])
    })
  })

  context('re.findall of token patterns', () => {
    const { texts, patterns } = read<{ texts: string[], patterns: Array<{ pattern: string, groups: number, findall: string[][] }> }>('regex.json')
    for (const { pattern, groups, findall } of patterns) {
      it(`${pattern} finds what Python finds`, () => {
        const t = translatePythonPattern(pattern)
        expect(t.groups).to.equal(groups)
        texts.forEach((text, i) => {
          const got = [...text.matchAll(t.regex)].map(m => groups === 1 ? (m[1] ?? '') : m[0])
          expect(got, JSON.stringify(text)).to.deep.equal(findall[i])
        })
      })
    }

    const refused: Array<[string, string]> = [
      ['(?(1)a|b)', 'conditional'], ['(?>a+)', 'atomic'], ['a++', 'possessive'], ['(?i:a)b', 'inline flags'],
      ['(?L)\\w+', 'locale'], ['\\N{DASH}', 'named character'], ['\\w*', 'empty string'], ['a|', 'empty string'],
      ['\\q', 'bad escape'], ['[a', 'unterminated'], ['(a', 'missing )']
    ]
    for (const [pattern, construct] of refused) {
      it(`refuses ${pattern}, naming the ${construct}`, () => {
        try {
          translatePythonPattern(pattern)
          expect.fail('translated')
        } catch (err) {
          expect((err as ServiceError).code).to.equal('ERR_PATTERN_UNSUPPORTED')
          expect((err as ServiceError).message).to.contain(construct)
        }
      })
    }

    it('recognises the default pattern and its kin as word runs', () => {
      expect(translatePythonPattern('(?u)\\b\\w\\w+\\b').wordRunMinLength).to.equal(2)
      expect(translatePythonPattern('\\w{3,}').wordRunMinLength).to.equal(3)
      expect(translatePythonPattern('\\b\\w+').wordRunMinLength).to.equal(undefined)
      expect(translatePythonPattern('(?a)\\b\\w\\w+\\b').wordRunMinLength).to.equal(undefined)
    })
  })

  context("build_analyzer() of scikit-learn's vectorizers", () => {
    const texts = read<{ texts: string[] }>('texts.json').texts.filter(t => t.length < 1000).slice(0, 50)
    const settings = read<Record<string, { params: Record<string, unknown>, features: string[][] }>>('analyzers.json')
    for (const [name, { params, features }] of Object.entries(settings)) {
      it(`${name} gives the same features in the same order`, () => {
        const options: AnalyzerOptions = {
          analyzer: (params.analyzer as AnalyzerOptions['analyzer']) ?? 'word',
          lowercase: (params.lowercase as boolean) ?? true,
          stripAccents: (params.strip_accents as AnalyzerOptions['stripAccents']) ?? null,
          tokenPattern: '(?u)\\b\\w\\w+\\b',
          stopWords: params.stop_words === 'english' ? [...ENGLISH_STOP_WORDS] : null,
          ngramRange: (params.ngram_range as [number, number]) ?? [1, 1]
        }
        const analyze = buildAnalyzer(options)
        texts.forEach((text, i) => {
          const got: string[] = []
          analyze(text, f => got.push(f))
          expect(got, JSON.stringify(text)).to.deep.equal(features[i])
        })
      })
    }
  })
})
