/**
 * What NLTK's tokenizers cost beside the vectorizer (issue 26), for `npm run
 * bench:preprocess`: on 2,000 texts of each of three apps' corpora, one thread, the
 * tokenizer alone (`" ".join(tokenize(text))`, as an app feeds the vectorizer), the app's
 * vectorizer (and its model's transform) alone on those tokenized texts, their ratio
 * (target: the tokenizer costs at most the vectorizer's time), and NLTK's own speed at
 * the same tokenizer (Debian's NLTK 3.8, bench/baseline/nltk-tokenizers.py). Checks that
 * both tokenized the first 20 texts alike, so a fast wrong answer fails.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { compileNltkSplit } from '../../src/preprocess/tokenizers/nltk-split.js'
import { readNltkPunkt } from '../../src/preprocess/word-data/nltk-punkt.js'
import { nltkDataFolders } from '../../src/preprocess/word-data/search-path.js'
import type { NltkSplitSpec } from '../../src/settings/step-schema.js'
import { loadModel } from '../../src/sklearn/load-model.js'
import { ROOT } from '../lib/corpus.js'
import { markdown } from '../lib/report.js'
import { rate } from '../lib/rate.js'

const APPS = ['sms-porter', 'reviews-snowball', 'movies-lemma']
const SPLITS: ReadonlyArray<NltkSplitSpec | string> = [
  'nltk.word_tokenize',
  { 'nltk.word_tokenize': { preserve_line: true } },
  'nltk.TreebankWordTokenizer',
  'nltk.wordpunct_tokenize',
  'nltk.TweetTokenizer',
  'nltk.sent_tokenize'
]
const TEXTS = 2000
// Punkt's tables where NLTK finds them; the reference copy beside the repository when NLTK_DATA is not set.
process.env.NLTK_DATA ??= path.join(ROOT, '..', 'shared', 'nltk_data')

const fmt = (x: number, digits = 0): string => x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })

export async function benchNltkTokenizers (seconds: number): Promise<Array<Record<string, unknown>>> {
  const rows: string[][] = []
  const results: Array<Record<string, unknown>> = []
  for (const app of APPS) {
    const dir = path.join(ROOT, 'test', 'fixtures', 'apps', '1.2.1', app)
    const { corpus, files } = JSON.parse(readFileSync(path.join(dir, 'fixture.json'), 'utf8')) as { corpus: string, files: string[] }
    const paths = files.length === 1 ? { model: path.join(dir, files[0]!), vectorizers: [] } : { model: path.join(dir, files[1]!), vectorizers: [path.join(dir, files[0]!)] }
    const bare = (await loadModel(paths)).predictor
    const lines = readFileSync(path.join(ROOT, '..', 'shared', 'data', corpus, `${corpus}.jsonl`), 'utf8').split('\n').filter(l => l !== '')
    const texts = lines.slice(-TEXTS).map(l => (JSON.parse(l) as { text: string }).text)
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'tfidf-bench-')), 'texts.json')
    writeFileSync(file, JSON.stringify(texts))
    const python = JSON.parse(execFileSync('/usr/bin/python3', [path.join(ROOT, 'bench', 'baseline', 'nltk-tokenizers.py'), file, String(seconds), ...SPLITS.map(s => JSON.stringify(s))], { encoding: 'utf8', maxBuffer: 64 << 20 })) as { nltk: string, results: Array<{ rate: number, fed: string[] }> }
    for (const [k, split] of SPLITS.entries()) {
      const tokenize = compileNltkSplit(split, (version, language) => readNltkPunkt(nltkDataFolders(null), language, version).tables)
      const clean = (t: string): string => tokenize(t).join(' ')
      const fed = texts.map(clean)
      const wrong = python.results[k]!.fed.findIndex((f, i) => f !== fed[i])
      if (wrong >= 0) throw new Error(`${app} ${JSON.stringify(split)}: text ${wrong} tokenized differently: ${JSON.stringify(python.results[k]!.fed[wrong])} vs ${JSON.stringify(fed[wrong])}`)
      let i = 0
      const tokenizing = rate(texts, seconds, clean)
      const vectorizing = rate(fed, seconds, () => bare.transform(fed[i++ % fed.length]!))
      const share = vectorizing / tokenizing
      const name = typeof split === 'string' ? split : JSON.stringify(split)
      results.push({ app, corpus, split, tokenizing, vectorizing, share, nltk: python.results[k]!.rate })
      rows.push([app, name, fmt(tokenizing), fmt(vectorizing), fmt(share, 2), fmt(python.results[k]!.rate), fmt(tokenizing / python.results[k]!.rate, 1)])
    }
  }
  console.log(`\n## NLTK tokenizers beside the vectorizer (one thread, ${TEXTS} corpus texts per app, ${seconds} s per figure, Node ${process.version})\n`)
  console.log(markdown(['app', 'split', 'tokenizer texts/s', 'vectorizer texts/s', 'tokenizer / vectorizer time', 'NLTK 3.8 texts/s', 'vs NLTK'], rows))
  return results
}
