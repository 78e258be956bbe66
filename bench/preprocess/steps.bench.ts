/**
 * `npm run bench:preprocess`: what an app's declared cleaning costs. For each app of
 * test/fixtures/apps/1.2.1 that cleans its texts before the vectorizer, on 2,000 texts of its
 * own corpus, one thread: the cleaning alone, the vectorizer (and the steps after it) alone
 * on the cleaned texts, and the whole prediction; beside the app's own Python (its cleaning,
 * then scikit-learn, in calls of 50 and of one), run by bench/baseline/preprocess.py with
 * Debian's python3. Targets (issue 16): the cleaning costs at most the vectorizer's time,
 * and the whole is at least 3x the app's Python. Checks that both cleaned the first 20
 * texts alike, so a fast wrong answer fails. Then NLTK's tokenizers beside the vectorizer
 * (nltk-tokenizers.ts); BENCH_ONLY=nltk runs that section alone.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { existsSync } from 'node:fs'
import { compilePreprocess } from '../../src/preprocess/compile-steps.js'
import { loadServedModel } from '../../src/model/served-model.js'
import { readModelSettings } from '../../src/settings/model-settings.js'
import { loadModel } from '../../src/sklearn/load-model.js'
import { ROOT } from '../lib/corpus.js'
import { markdown } from '../lib/report.js'
import { rate } from '../lib/rate.js'
import { benchNltkTokenizers } from './nltk-tokenizers.js'

const APPS = ['sms-porter', 'reviews-snowball', 'movies-lemma', 'sms-slang-lancaster', 'danish-snowball', 'poems-accents']
const TEXTS = 2000
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)

function corpusTexts (app: string): string[] {
  const { corpus } = JSON.parse(readFileSync(path.join(ROOT, 'test', 'fixtures', 'apps', '1.2.1', app, 'fixture.json'), 'utf8')) as { corpus: string }
  const lines = readFileSync(path.join(ROOT, '..', 'shared', 'data', corpus, `${corpus}.jsonl`), 'utf8').split('\n').filter(l => l !== '')
  return lines.slice(-TEXTS).map(l => (JSON.parse(l) as { text: string }).text)
}

const fmt = (x: number | undefined, digits = 0): string => x === undefined ? '' : x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })

async function main (): Promise<void> {
  const rows: string[][] = []
  const results: Array<Record<string, unknown>> = []
  // BENCH_ONLY=nltk: the tokenizers' section alone.
  for (const app of process.env.BENCH_ONLY === 'nltk' ? [] : APPS) {
    const settings = readModelSettings(path.join(ROOT, 'test', 'fixtures', 'apps', '1.2.1', app, 'model-settings.json'))
    const paths = { model: settings.model!, vectorizers: settings.vectorizers }
    const served = (await loadServedModel({ paths, settingsFile: settings.file })).predictor
    const bare = (await loadModel(paths)).predictor
    const texts = corpusTexts(app)
    const fed = texts.map(t => served.fed(t))
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'tfidf-bench-')), 'texts.json')
    writeFileSync(file, JSON.stringify(texts))
    const python = JSON.parse(execFileSync('/usr/bin/python3', [path.join(ROOT, 'bench', 'baseline', 'preprocess.py'), app, file, String(SECONDS)], { encoding: 'utf8' })) as { clean: number, batch50: number, single: number, fed: string[] }
    const wrong = python.fed.findIndex((f, i) => f !== fed[i])
    if (wrong >= 0) throw new Error(`${app}: text ${wrong} cleaned differently: ${JSON.stringify(python.fed[wrong])} vs ${JSON.stringify(fed[wrong])}`)
    let i = 0
    const cleaning = rate(texts, SECONDS, t => served.fed(t))
    const vectorizing = rate(fed, SECONDS, () => bare.transform(fed[i++ % fed.length]!))
    // The same vectorizer on the raw texts (longer than cleaned ones): what an app without cleaning pays.
    const vectorizingRaw = rate(texts, SECONDS, t => bare.transform(t))
    const whole = rate(texts, SECONDS, t => served.predict(t))
    // Per text, cleaning's time over the vectorizer's: at most 1 is the target.
    const share = vectorizing / cleaning
    results.push({ app, cleaning, vectorizing, vectorizingRaw, whole, python, share })
    rows.push([app, fmt(cleaning), fmt(vectorizing), fmt(share, 2), fmt(vectorizingRaw), fmt(vectorizingRaw / cleaning, 2), fmt(whole), fmt(python.clean), fmt(python.batch50), fmt(python.single), fmt(whole / python.batch50, 1), fmt(whole / python.single, 1)])
  }
  if (rows.length > 0) console.log(`\n## Declared preprocessing (one thread, ${TEXTS} corpus texts per app, ${SECONDS} s per figure, Node ${process.version})\n`)
  if (rows.length > 0) console.log(markdown(['app', 'cleaning texts/s', 'vectorizer texts/s', 'cleaning / vectorizer time', 'vectorizer on raw texts/s', 'cleaning / that', 'whole texts/s', 'Python cleaning', 'Python batch-50', 'Python single', 'vs batch-50', 'vs single'], rows))
  const out = path.join(ROOT, 'bench', 'results', `preprocess-${new Date().toISOString().replace(/[:.]/g, '-')}.json`)
  const tokenizers = await benchNltkTokenizers(SECONDS)
  const sastrawi = await sastrawiCost()
  writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), node: process.version, texts: TEXTS, seconds: SECONDS, results, tokenizers, sastrawi }, null, 2) + '\n')
  console.log(`\nwrote ${path.relative(ROOT, out)}`)
}

/** The Indonesian app of ../shared/wild (a TfidfVectorizer and a LogisticRegression), read in place. */
const INDONESIAN_APP = path.join(ROOT, '..', 'shared', 'wild', '10-41523120017-bit-chatbot-layanan-publik')

/**
 * What PySastrawi's stemmer and stop words cost beside the vectorizer, on the Indonesian and
 * Malay texts of test/fixtures/preprocess/sastrawi.json: cold (a new stemmer for each pass, so
 * every word is stemmed) and warm (words remembered, as a serving thread has them).
 */
async function sastrawiCost (): Promise<Record<string, number> | undefined> {
  if (!existsSync(INDONESIAN_APP)) return undefined
  const texts = (JSON.parse(readFileSync(path.join(ROOT, 'test', 'fixtures', 'preprocess', 'sastrawi.json'), 'utf8')) as { texts: Array<{ text: string }> }).texts.map(t => t.text)
  const steps = [{ op: 'sastrawi.Stemmer' }, { op: 'words', split: { 're.split': ' ' }, join: ' ', steps: [{ op: 'stopwords', sastrawi: true }] }] as const
  const make = (): (text: string) => string => compilePreprocess(steps as never, null, 'bench')!
  let clean = make()
  let n = 0
  const cold = rate(texts, SECONDS, t => { if (n++ % texts.length === 0) clean = make(); clean(t) })
  const warmClean = make()
  const warm = rate(texts, SECONDS, t => warmClean(t))
  const model = (await loadModel({ model: path.join(INDONESIAN_APP, 'model_intent.pkl'), vectorizers: [path.join(INDONESIAN_APP, 'tfidf_vectorizer.pkl')] })).predictor
  const fed = texts.map(t => warmClean(t))
  let i = 0
  const vectorizing = rate(fed, SECONDS, () => model.transform(fed[i++ % fed.length]!))
  console.log(`\n## Sastrawi stemmer + stop words beside the vectorizer (${texts.length} Indonesian/Malay texts, one thread)\n`)
  console.log(markdown(['stemmer + stop words, cold texts/s', 'warm texts/s', 'vectorizer texts/s (wild app 10)', 'cold / vectorizer time', 'warm / vectorizer time'],
    [[fmt(cold), fmt(warm), fmt(vectorizing), fmt(vectorizing / cold, 1), fmt(vectorizing / warm, 2)]]))
  return { texts: texts.length, cold, warm, vectorizing }
}

await main()
