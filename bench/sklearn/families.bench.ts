/**
 * In-process speed of every estimator family on one thread, beside scikit-learn on the same
 * fixture models (test/fixtures/estimators/1.2.1, written by Debian's scikit-learn, which
 * /usr/bin/python3 runs) and the same texts: scikit-learn in batches of 50 and in single
 * calls. Each family is timed in a process of its own, as a server holds one model (in one
 * process, many models' code would share call sites and slow each other down).
 * XGBoost 2.x and 3.x run beside the xgboost release that made their fixtures
 * (test/fixtures/xgboost/README.md), in the Python named by XGBOOST_PYTHON_<release>, e.g.
 * XGBOOST_PYTHON_3_2_0=<a python where `import xgboost` gives 3.2.0>; where it is not set,
 * the row has tfidf-serve's figure alone.
 * Run alone: `npm run bench:families [-- SECONDS [TEXT]]` (TEXT: only the families whose
 * name holds it, e.g. XGBClassifier); `npm run bench` includes it.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { loadModel } from '../../src/sklearn/load-model.js'
import { ROOT, loadTexts } from '../lib/corpus.js'
import { markdown } from '../lib/report.js'
import { measureInProcess } from './vectorize-score.bench.js'

const PYTHON = '/usr/bin/python3'
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'estimators', '1.2.1')

/** One representative model per family. */
export const FAMILY_CASES: ReadonlyArray<readonly [string, string]> = [
  ['linear (LogisticRegression, 4 classes)', 'logreg-multinomial'],
  ['naive Bayes (MultinomialNB)', 'multinomialnb-counts'],
  ['SVC linear, probability', 'svc-linear-proba'],
  ['SVC rbf, probability, 3 classes', 'svc-rbf-proba'],
  ['decision tree', 'tree-gini'],
  ['random forest, 12 trees', 'forest'],
  ['gradient boosting, 3 classes x 20', 'gb-multi'],
  ['AdaBoost SAMME.R', 'adaboost-samme-r'],
  ['bagging of trees', 'bagging-tree'],
  ['MLP (16,)', 'mlp-relu'],
  ['calibrated LinearSVC, isotonic', 'calibrated-isotonic'],
  ['soft voting (LR, NB, forest)', 'voting-soft-weights'],
  ['stacking (SVC, NB -> LR)', 'stacking'],
  ['one-vs-rest LinearSVC', 'one-vs-rest-svc'],
  ['HashingVectorizer + TF-IDF + LinearSVC', 'hashing-tfidf-pipeline'],
  ['FeatureUnion word + char', 'union-word-char'],
  ['TruncatedSVD + LR', 'svd-logreg'],
  ['SelectKBest + LR', 'select-kbest'],
  ['XGBClassifier multi:softprob, 4 classes x 25', '../../xgboost/1.7.4/multi-softprob'],
  ['XGBClassifier 2.0.3, multi:softprob, 4 classes x 15', '../../xgboost/2.0.3/multi-softprob'],
  ['XGBClassifier 2.1.1, multi:softprob, 4 classes x 15', '../../xgboost/2.1.1/multi-softprob'],
  ['XGBClassifier 3.0.0, multi:softprob, 4 classes x 15', '../../xgboost/3.0.0/multi-softprob'],
  ['XGBClassifier 3.2.0, multi:softprob, 4 classes x 15', '../../xgboost/3.2.0/multi-softprob'],
  ['XGBClassifier 3.2.0, binary:logistic x 30', '../../xgboost/3.2.0/binary-estimated'],
  ['k-NN, cosine, k=5 (scikit-learn 1.2.1)', '../../knn/1.2.1/a-cosine-uniform-k5']
]

export interface FamilyFigures {
  readonly family: string
  readonly case: string
  readonly textsPerSecond: number
  readonly sklearnBatch50?: number
  readonly sklearnSingle?: number
}

interface SklearnFigures {
  readonly name: string
  readonly batch50_texts_per_s: number
  readonly single_texts_per_s: number
  readonly labels: string[]
}

/** The environment variable naming the Python of an xgboost release, e.g. XGBOOST_PYTHON_3_2_0: no default, as no machine's path is ours to assume. */
const xgboostPythonVariable = (release: string): string => `XGBOOST_PYTHON_${release.replaceAll('.', '_')}`

/** A Python that runs a case: Debian's for scikit-learn and xgboost 1.7, a built release's for xgboost 2.x/3.x. */
interface Runner { readonly python: string, readonly env: NodeJS.ProcessEnv }

function runnerOf (name: string): Runner | undefined {
  const release = /xgboost\/(\d+\.\d+\.\d+)\//.exec(name)?.[1]
  if (release === undefined || release === '1.7.4') return { python: PYTHON, env: process.env }
  const python = process.env[xgboostPythonVariable(release)]
  if (python === undefined || python === '' || !existsSync(python)) return undefined
  return { python, env: process.env }
}

/** A case's files; a name may be a path from FIXTURES to a fixture set of another library (xgboost). */
function filesOf (name: string): string[] {
  const dir = path.join(FIXTURES, name)
  const expected = JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as { files: string[] }
  return expected.files.map(f => path.join(dir, f))
}

/** Times each family here and, with `python`, in scikit-learn; throws if labels differ. */
export async function measureFamilies (texts: readonly string[], seconds: number, python: boolean, only = ''): Promise<FamilyFigures[]> {
  const sample = texts.slice(0, 1000)
  const cases = FAMILY_CASES.filter(([family]) => family.includes(only))
  const theirs = new Map<string, SklearnFigures>()
  if (python) {
    const dir = path.join(ROOT, 'bench', 'results')
    mkdirSync(dir, { recursive: true })
    writeFileSync(path.join(dir, '.family-texts.json'), JSON.stringify(sample))
    // One Python process per runner: Debian's, then each built xgboost release's.
    const byRunner = new Map<string, { runner: Runner, names: string[] }>()
    for (const [, name] of cases) {
      const runner = runnerOf(name)
      if (runner === undefined) continue
      const key = `${runner.python} ${runner.env.PYTHONPATH ?? ''}`
      if (!byRunner.has(key)) byRunner.set(key, { runner, names: [] })
      byRunner.get(key)!.names.push(name)
    }
    for (const { runner, names } of byRunner.values()) {
      writeFileSync(path.join(dir, '.family-cases.json'), JSON.stringify(names.map(name => ({ name, files: filesOf(name) }))))
      const out = execFileSync(runner.python, [path.join(ROOT, 'bench', 'baseline', 'families.py'), path.join(dir, '.family-cases.json'), path.join(dir, '.family-texts.json'), String(seconds)], { encoding: 'utf8', env: runner.env })
      for (const line of out.trim().split('\n')) {
        const r = JSON.parse(line) as SklearnFigures
        theirs.set(r.name, r)
      }
    }
  }
  const rows: FamilyFigures[] = []
  for (const [family, name] of cases) {
    const ours = JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--one', name, String(seconds)], { encoding: 'utf8' })) as { textsPerSecond: number, labels: string[] }
    const sk = theirs.get(name)
    if (sk !== undefined && JSON.stringify(ours.labels) !== JSON.stringify(sk.labels)) throw new Error(`${name}: labels differ from scikit-learn's`)
    rows.push({ family, case: name, textsPerSecond: ours.textsPerSecond, sklearnBatch50: sk?.batch50_texts_per_s, sklearnSingle: sk?.single_texts_per_s })
  }
  return rows
}

/** One family in this process: its labels for the first 20 texts and its speed. */
async function measureOne (name: string, seconds: number): Promise<void> {
  const sample = loadTexts().slice(0, 1000)
  const files = filesOf(name)
  const { predictor } = await loadModel({ model: files[files.length - 1]!, vectorizers: files.slice(0, -1) })
  const labels = sample.slice(0, 20).map(t => predictor.predict(t).label)
  process.stdout.write(JSON.stringify({ labels, textsPerSecond: measureInProcess(predictor, sample, seconds).textsPerSecond }))
}

export function familyTable (rows: readonly FamilyFigures[]): string {
  const fmt = (n: number | undefined, d = 0): string => n === undefined ? '' : n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d })
  return markdown(['family', 'fixture', 'tfidf-serve texts/s', 'scikit-learn batch of 50', 'scikit-learn single calls', 'vs batch of 50', 'vs single'],
    rows.map(r => [r.family, r.case, fmt(r.textsPerSecond), fmt(r.sklearnBatch50), fmt(r.sklearnSingle),
      r.sklearnBatch50 === undefined ? '' : `${fmt(r.textsPerSecond / r.sklearnBatch50, 1)}x`, r.sklearnSingle === undefined ? '' : `${fmt(r.textsPerSecond / r.sklearnSingle, 1)}x`]))
}

async function main (): Promise<void> {
  if (process.argv[2] === '--one') return await measureOne(process.argv[3]!, Number(process.argv[4]))
  const seconds = Number(process.argv[2] ?? '2')
  const rows = await measureFamilies(loadTexts(), seconds, true, process.argv[3] ?? '')
  console.log(familyTable(rows))
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main()
