#!/usr/bin/env -S node --max-semi-space-size=2
/**
 * The `tfidf-serve` command: `predict` and `inspect` on model files, `serve` for HTTP.
 * Errors go to stderr as one line with a non-zero exit.
 */
import { once } from 'node:events'
import { availableParallelism } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { ServiceError } from './errors.js'
import { MAIN_BUNDLE } from './layout.js'
import { DEFAULT_MODEL_PATH, DEFAULT_VECTORIZER_PATH } from './paths.js'
import { DEFAULT_TOP_K, MAX_TOP_K } from './service/limits.js'
import type { LineFormat, LinesResult } from './prediction-lines.js'
import type { ServedModelSpec } from './model/served-model.js'
import type { EnsemblePredictor, EnsembleSpec } from './model/ensemble.js'
import type { TextClassifier } from './sklearn/predictor.js'
import type { StepData } from './preprocess/word-data/step-data.js'

const USAGE = `Usage: tfidf-serve <command> [options]

Serve scikit-learn TF-IDF text classifiers without Python.

Commands:
  predict [FILE]   classify texts from FILE or stdin, one JSON line out per text
  explain [FILE]   the features behind each text's label, one JSON line out per text
  inspect          describe a model as JSON
  compile          write the model as one compiled file that loads without decoding pickles
  verify FILE      compare the model's answers with your app's, saved in FILE (JSON lines)
  serve            start the HTTP service (configured by environment variables)
  keys new         mint an API key: its secret (shown once) and the entry for API_KEYS_FILE

Run 'tfidf-serve <command> --help' for a command's options.
`

const MODEL_OPTIONS = `  --model PATH          classifier, Pipeline or bundle file, or a compiled model (default:
                        the settings' model, else models/final_best_model.pkl)
  --vectorizer PATH     vectorizer file; repeat for CountVectorizer then TfidfTransformer
                        (default: models/tfidf_vectorizer.pkl; ignored when --model holds one)
  --settings FILE       model-settings.json: your app's preprocessing, functions module and
                        labels (default: model-settings.json beside --model, if there is one)
  --labels FILE         names for the classes: a LabelEncoder pickle, or a JSON object
                        {"0": "ham", "1": "spam"} (replaces the settings' labels)
  --repository DIR      a model repository (as MODEL_REPOSITORY): use its model --model-name,
                        or its only model, as the service serves it (instead of --model,
                        --vectorizer and --settings)
  --model-name NAME     which model of --repository
  -h, --help            show this help

An ensemble's settings (--settings, no --model) may name members by repository model: they
are looked up in the repository that holds the settings' folder, as the service would.`

const HELP: Record<string, string> = {
  predict: `Usage: tfidf-serve predict [options] [FILE]

Reads texts from FILE (or stdin) and writes one JSON line per text:
  {"label": "...", "confidence": 0.93, "proba": [...], "decision": [...]}
Arrays follow the model's class order; "proba" is left out when the model has no
predict_proba, "decision" when it has no decision_function. Numbers are unrounded.

Options:
  --format lines|jsonl  lines: one text per line (default); jsonl: one {"text": "..."} per line
  --workers N           worker threads sharing one decoded model (default: available cores)
  --stats               when done, write one JSON line to stderr: texts, seconds (all and
                        loading the model), texts per second after loading, workers,
                        shared model bytes, peak memory
${MODEL_OPTIONS}
`,
  explain: `Usage: tfidf-serve explain [options] [FILE]

Reads texts as predict does and writes one JSON line per text: the label, and the features
that moved it most, each with its term, TF-IDF value and contribution to every score, and the
intercept; contributions plus intercept are the score. Linear models and naive Bayes: weight
times value, adding up to scikit-learn's decision_function (joint log-likelihood). Trees,
forests, gradient boosting, soft votes of them, HistGradientBoosting, XGBoost, LightGBM:
shap's TreeExplainer values (predict_proba or margin space), absent words included. Exit 1,
saying why, for any other model.

Options:
  --format lines|jsonl  as for predict
  --top-k N             features listed per text, 1 to 100 (default 10)
${MODEL_OPTIONS}
`,
  inspect: `Usage: tfidf-serve inspect [options]

Prints the classifier and vectorizer, classes, feature count, the parameters that
matter, the scikit-learn version that wrote each file and the confidence method; with
settings, what they declare as read: the preprocessing steps, functions module and labels.

Options:
${MODEL_OPTIONS}
`,
  compile: `Usage: tfidf-serve compile [options] --out FILE

Decodes the model as the service does (its files, settings, functions module and labels)
and writes it as one compiled file: serve it with --model FILE, MODEL_PATH=FILE or "model"
in model-settings.json, and it loads with one read and no pickle decoding. Answers are the
pickles' own, byte for byte. The file records the SHA-256 of each source file and the
tfidf-serve version that wrote it; compile again after changing either. A model made with a
functions module is served with settings naming that same module (a compiled file holds no
code). Writes one JSON line: the file, its bytes, the seconds it took and the sources.

Options:
  --out FILE            the compiled file to write (replaced whole, never half written)
${MODEL_OPTIONS}
`,
  verify: `Usage: tfidf-serve verify [options] EXPECTED

EXPECTED holds your app's own answers, one JSON line per text:
  {"text": "...", "label": "...", "proba": [...], "decision": [...], "fed": "..."}
("proba", "decision" and "fed" when your app has them; "fed" is the text as your app passed
it to the vectorizer; "confidence" too, if you like). For an ensemble, "label" and
"confidence" are the ensemble's, and "members" may give the members' own answers by name:
  {"text": "...", "label": "ISFP", "confidence": 0.21, "members": {"ie": {"label": "I", "proba": [...]}, ...}}
Each text goes through the model as tfidf-serve serves it (the
settings' preprocessing, your functions module, the model); writes a JSON report (texts,
agreements, largest differences, the first differences with both answers and both fed
texts). Exit 0 only when every label is equal and every number within 1e-9.

Options:
  --show N              differences listed in the report (default 5)
${MODEL_OPTIONS}
`,
  keys: `Usage: tfidf-serve keys new --id NAME --scopes predict[,admin][,metrics]

Prints a fresh secret (tfs_ and 256 random bits, base64url) once, on the first line, then
the entry to add to the "keys" list of API_KEYS_FILE: it holds the secret's SHA-256, never
the secret. Give the secret to the key's user; it cannot be shown again.

Options:
  --id NAME       the key's name in logs and metrics (letters, digits, . _ -; at most 64)
  --scopes LIST   comma-separated: predict (classify, explain, model metadata), admin
                  (load and unload models), metrics (/metrics when METRICS_REQUIRE_KEY=true)
  -h, --help      show this help
`,
  serve: `Usage: tfidf-serve serve [--model_name NAME] [--model_dir DIR] [--http_port N] [--grpc_port N]

Starts the HTTP service on PORT (default 8000); configure it with the environment
variables listed in docs/http-api.md (MODEL_PATH, VECTORIZER_PATH, MODEL_REPOSITORY, WORKERS, ...).
KServe's flags set MODEL_NAME, MODEL_DIR (a folder holding one model), PORT and GRPC_PORT.
`
}

class UsageError extends Error {}

type ModelFlags = { model?: string, vectorizer?: string[], settings?: string, labels?: string, repository?: string, 'model-name'?: string }

/**
 * The model, its settings and label names, as the flags give them: a model of --repository
 * read as the service reads it, else the files and settings named; `ensemble` when the
 * settings (with no --model) declare one, its repository members looked up as the service would.
 */
async function modelSpec (values: ModelFlags): Promise<ServedModelSpec & { ensemble: EnsembleSpec | null }> {
  const { labelSourceOf } = await import('./model/served-model.js')
  const labels = values.labels === undefined ? null : labelSourceOf(values.labels)
  const ensembleLabels = (): never => { throw new UsageError('--labels names one model\'s classes; an ensemble\'s members name their own (each member\'s "labels", or its model\'s settings)') }
  if (values.repository !== undefined || values['model-name'] !== undefined) {
    if (values.repository === undefined) throw new UsageError('--model-name names a model of --repository DIR: give the repository')
    if (values.model !== undefined || values.vectorizer !== undefined || values.settings !== undefined) throw new UsageError('--repository reads the model\'s files and settings from its folder: drop --model, --vectorizer and --settings')
    const { chooseDefault } = await import('./repository/layout.js')
    const { spec } = chooseDefault(path.resolve(values.repository), values['model-name'], { repository: '--repository', model: '--model-name' })
    if (spec.ensemble != null && labels !== null) ensembleLabels()
    return { paths: spec.paths, settingsFile: spec.settingsFile, labels, ensemble: spec.ensemble ?? null }
  }
  const { readModelSettings, settingsBeside } = await import('./settings/model-settings.js')
  const settingsFile = values.settings ?? (values.model === undefined ? undefined : settingsBeside(values.model))
  const settings = settingsFile === undefined ? null : readModelSettings(settingsFile)
  if (settings?.ensemble != null && values.model === undefined) {
    if (labels !== null) ensembleLabels()
    const { ensembleModelSpec, repositoryHolding } = await import('./repository/layout.js')
    const spec = ensembleModelSpec(settings, settings.name, repositoryHolding(settings.file))
    if (typeof spec === 'string') throw new ServiceError('ERR_CONFIG_INVALID', `invalid model settings: ${spec}`, { file: settings.file })
    return { paths: spec.paths, settingsFile: settings.file, labels: null, ensemble: spec.ensemble! }
  }
  const model = values.model ?? settings?.model ?? DEFAULT_MODEL_PATH
  const vectorizers = values.vectorizer ?? (values.model !== undefined ? [] : settings?.model != null ? [...settings.vectorizers] : [DEFAULT_VECTORIZER_PATH])
  return { paths: { model, vectorizers }, settingsFile: settings?.file ?? null, labels, ensemble: null }
}

/** Loads the flags' model in this thread: a compiled model, an ensemble, or a single model. */
/** What a model's steps read (a compiled model's copy, or read now where the settings and NLTK say), as `inspect` shows it; null without settings or for an ensemble. */
async function stepDataReport (spec: Awaited<ReturnType<typeof modelSpec>>, compiled: StepData | null): Promise<object | null> {
  const data = compiled ?? (spec.ensemble !== null ? null : (await import('./model/served-model.js')).readAppSource(spec.settingsFile)?.data ?? null)
  if (data === null) return null
  const { filesRead } = await import('./preprocess/word-data/step-data.js')
  return { nltk_folders_searched: data.nltkFolders, files: filesRead(data) }
}

async function loadAnyModel (spec: Awaited<ReturnType<typeof modelSpec>>): Promise<{ predictor: TextClassifier | EnsemblePredictor, notes: readonly string[], data?: StepData | null }> {
  const compiled = await compiledModel(spec)
  if (compiled !== null) return compiled
  if (spec.ensemble !== null) return await (await import('./model/ensemble.js')).loadEnsemble(spec.ensemble)
  return await (await import('./model/served-model.js')).loadServedModel(spec)
}

/** The flags' model when --model names a compiled file (loaded and checked in this thread), else null. */
async function compiledModel (spec: Awaited<ReturnType<typeof modelSpec>>): Promise<{ predictor: TextClassifier | EnsemblePredictor, notes: readonly string[], data: StepData | null } | null> {
  if (spec.ensemble !== null) return null
  const { isCompiledFile } = await import('./compiled/decode-or-load.js')
  if (!isCompiledFile(spec.paths.model)) return null
  if (spec.labels != null) throw new ServiceError('ERR_CONFIG_INVALID', 'a compiled model carries the label names it was compiled with: compile it again with --labels', { file: spec.paths.model })
  const { loadCompiledModel } = await import('./compiled/load-compiled.js')
  const { predictor, notes, app } = await loadCompiledModel(spec.paths.model, spec.settingsFile)
  return { predictor, notes, data: app?.data ?? null }
}

const MODEL_ARGS = {
  model: { type: 'string' },
  vectorizer: { type: 'string', multiple: true },
  settings: { type: 'string' },
  labels: { type: 'string' },
  repository: { type: 'string' },
  'model-name': { type: 'string' },
  help: { type: 'boolean', short: 'h' }
} as const

/** Input read per system call: big enough that a worker task's overhead is small, small enough to stream. */
const READ_BYTES = 256 * 1024

function lineFormat (value: string | undefined): LineFormat {
  if (value !== 'lines' && value !== 'jsonl') throw new UsageError(`--format must be lines or jsonl, not '${value ?? ''}'`)
  return value
}

/**
 * Writes a chunk's output; a bad line (whose output stops before it) then ends the run,
 * naming it. Returns the count of lines written so far.
 */
async function writeChunk (result: LinesResult, linesBefore: number): Promise<number> {
  const flushed = process.stdout.write(result.output)
  if (result.bad !== undefined) throw new UsageError(`line ${linesBefore + result.bad.line + 1} ${result.bad.reason}`)
  if (!flushed) await once(process.stdout, 'drain')
  return linesBefore + result.lines
}

function workerCount (value: string | undefined): number {
  if (value === undefined) return availableParallelism()
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1 || n > 1024) throw new UsageError(`--workers must be an integer from 1 to 1024, not '${value}'`)
  return n
}

/**
 * Cuts the input into chunks of whole lines and hands them to the pool's workers, which
 * classify and format them; writes their output in input order. Only this many chunks are
 * in flight at once, so memory stays flat however long the input.
 */
async function predict (argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { ...MODEL_ARGS, format: { type: 'string', default: 'lines' }, workers: { type: 'string' }, stats: { type: 'boolean' } } })
  if (values.help === true) return void process.stdout.write(HELP.predict)
  const format = lineFormat(values.format)
  if (positionals.length > 1) throw new UsageError('predict takes at most one FILE')
  const workers = workerCount(values.workers)
  const started = performance.now()
  const spec = await modelSpec(values)
  const inFlight = workers * 2
  // Loaded here, not at the top: `serve` and `inspect` do not need them.
  const [{ ClassifierPool }, { lineChunks }] = await Promise.all([import('./pool/classifier-pool.js'), import('./line-chunks.js')])
  const pool = await ClassifierPool.start({ modelPath: spec.paths.model, vectorizerPaths: spec.paths.vectorizers ?? [], settingsFile: spec.settingsFile, labels: spec.labels, ensemble: spec.ensemble, workers, predictionTimeoutMs: 3_600_000, maxConcurrentRequests: inFlight, maxQueue: 0 })
  const loaded = performance.now()
  let texts = 0
  try {
    const queue: Array<Promise<LinesResult>> = []
    let linesBefore = 0
    // The oldest chunk is written first, whichever finishes first.
    const writeOldest = async (): Promise<void> => {
      const result = await queue.shift()!
      texts += result.texts
      linesBefore = await writeChunk(result, linesBefore)
    }
    const submit = async (chunk: Uint8Array): Promise<void> => {
      const task = pool.predictLines(chunk, format)
      task.catch(() => {})
      queue.push(task)
      if (queue.length >= inFlight) await writeOldest()
    }
    for await (const chunk of lineChunks(positionals[0], READ_BYTES)) await submit(chunk)
    while (queue.length > 0) await writeOldest()
  } finally {
    await pool.close()
  }
  if (values.stats === true) {
    const now = performance.now()
    process.stderr.write(JSON.stringify({ texts, seconds: (now - started) / 1000, load_seconds: (loaded - started) / 1000, texts_per_second: texts / ((now - loaded) / 1000), workers, shared_model_bytes: pool.model.sharedBytes, worker_own_bytes: pool.workerMemory.map(m => m.ownBytes), max_rss_bytes: process.resourceUsage().maxRSS * 1024 }) + '\n')
  }
}

async function explain (argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { ...MODEL_ARGS, format: { type: 'string', default: 'lines' }, 'top-k': { type: 'string', default: String(DEFAULT_TOP_K) } } })
  if (values.help === true) return void process.stdout.write(HELP.explain)
  const format = lineFormat(values.format)
  const topK = Number(values['top-k'])
  if (!Number.isInteger(topK) || topK < 1 || topK > MAX_TOP_K) throw new UsageError(`--top-k must be an integer from 1 to ${MAX_TOP_K}, not '${values['top-k'] ?? ''}'`)
  if (positionals.length > 1) throw new UsageError('explain takes at most one FILE')
  const [{ lineChunks }, { mapLines }, { explanationJson }] = await Promise.all([import('./line-chunks.js'), import('./prediction-lines.js'), import('./service/explanation-json.js')])
  const { predictor } = await loadAnyModel(await modelSpec(values))
  const refusal = predictor.explainRefusal
  if (refusal !== undefined) throw new ServiceError('ERR_NOT_EXPLAINABLE', refusal)
  let linesBefore = 0
  for await (const chunk of lineChunks(positionals[0], READ_BYTES)) {
    linesBefore = await writeChunk(mapLines(chunk, format, text => JSON.stringify(explanationJson(text, predictor.explain(text, topK), predictor.classes))), linesBefore)
  }
}

async function inspect (argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: MODEL_ARGS })
  if (values.help === true) return void process.stdout.write(HELP.inspect)
  const spec = await modelSpec(values)
  const { predictor, notes, data } = await loadAnyModel(spec)
  const info = predictor.info
  const preprocessData = await stepDataReport(spec, data ?? null)
  const declared = spec.settingsFile === null ? null : await declaredSettings(spec.settingsFile)
  process.stdout.write(JSON.stringify({
    classifier: info.classifier,
    vectorizer: info.vectorizer,
    steps: info.steps,
    classes: info.classes,
    n_features: info.nFeatures,
    confidence: info.confidence,
    classifier_params: info.classifierParams,
    vectorizer_params: info.vectorizerParams,
    sklearn_versions: info.sklearnVersions,
    ...(info.search === undefined ? {} : { wrapped_by: info.search.wrappedBy, best_params: info.search.bestParams }),
    settings: spec.settingsFile,
    ...(preprocessData === null ? {} : { preprocess_data: preprocessData }),
    ...(declared ?? {}),
    notes
  }, null, 2) + '\n')
}

/**
 * What a settings file declares around the pickles, as read: the preprocessing steps (the
 * pickles' own pipeline steps are `steps`), the functions module, the label names, the columns.
 */
async function declaredSettings (file: string): Promise<Record<string, unknown>> {
  const { readModelSettings } = await import('./settings/model-settings.js')
  const settings = readModelSettings(file)
  return {
    preprocess: settings.preprocess,
    functions: settings.functions,
    labels: settings.labels === null ? null : 'file' in settings.labels ? { file: settings.labels.file } : settings.labels.map,
    ...(settings.columns.length === 0 ? {} : { columns: settings.columns })
  }
}

async function verifyCommand (argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { ...MODEL_ARGS, show: { type: 'string', default: '5' } } })
  if (values.help === true) { process.stdout.write(HELP.verify); return 0 }
  if (positionals.length !== 1) throw new UsageError('verify takes one EXPECTED file')
  const show = Number(values.show)
  if (!Number.isInteger(show) || show < 0) throw new UsageError(`--show must be an integer >= 0, not '${values.show ?? ''}'`)
  const { verify } = await import('./verify.js')
  const { predictor } = await loadAnyModel(await modelSpec(values))
  const report = await verify(predictor, positionals[0]!, show)
  process.stdout.write(JSON.stringify(report, null, 2) + '\n')
  return report.disagree === 0 ? 0 : 1
}

async function compile (argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { ...MODEL_ARGS, out: { type: 'string' } } })
  if (values.help === true) return void process.stdout.write(HELP.compile)
  if (values.out === undefined || values.out === '') throw new UsageError('compile needs --out FILE')
  const spec = await modelSpec(values)
  const [{ compileModel }, { decodeModelInThread }] = await Promise.all([import('./compiled/compile-model.js'), import('./pool/decode-model-thread.js')])
  const report = await compileModel({ ...spec, labels: spec.labels ?? null }, values.out, async m => await decodeModelInThread(m.paths, m.settingsFile, m.labels, m.ensemble))
  process.stdout.write(JSON.stringify({ out: report.out, bytes: report.bytes, shared_model_bytes: report.sharedBytes, seconds: report.seconds, product: report.product, sources: report.sources }) + '\n')
}

/**
 * `serve`, configured by the environment; KServe's flags (`--model_name`, `--model_dir`,
 * `--http_port`, `--grpc_port`, as its ServingRuntimes pass them) set MODEL_NAME, MODEL_DIR,
 * PORT and GRPC_PORT.
 */
async function keys (argv: string[]): Promise<void> {
  const [sub, ...rest] = argv
  if (sub === '--help' || sub === '-h') { process.stdout.write(HELP.keys!); return }
  if (sub !== 'new') throw new UsageError(`keys: unknown subcommand '${sub ?? ''}' (use 'keys new')`)
  const { values } = parseArgs({ args: rest, options: { id: { type: 'string' }, scopes: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true })
  if (values.help === true) { process.stdout.write(HELP.keys!); return }
  const { SCOPES } = await import('./access/key-file.js')
  if (values.id === undefined || !/^[A-Za-z0-9._-]{1,64}$/.test(values.id)) throw new UsageError(`keys new: --id must be 1-64 letters, digits, '.', '_' or '-' (got '${values.id ?? ''}')`)
  const scopes = (values.scopes ?? '').split(',').map(s => s.trim()).filter(s => s !== '')
  const unknown = scopes.filter(s => !(SCOPES as readonly string[]).includes(s))
  if (scopes.length === 0 || unknown.length > 0) throw new UsageError(`keys new: --scopes must list some of ${SCOPES.join(', ')} (got '${values.scopes ?? ''}')`)
  const { hashSecret, newSecret } = await import('./access/secret.js')
  const secret = newSecret()
  process.stdout.write(`${secret}\n${JSON.stringify({ id: values.id, sha256: hashSecret(secret).toString('hex'), scopes: [...new Set(scopes)] })}\n`)
}

async function serve (argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) return void process.stdout.write(HELP.serve)
  const { values } = parseArgs({ args: argv, options: { model_name: { type: 'string' }, model_dir: { type: 'string' }, http_port: { type: 'string' }, grpc_port: { type: 'string' } } })
  const env: Record<string, string | undefined> = { MODEL_NAME: values.model_name, MODEL_DIR: values.model_dir, PORT: values.http_port, GRPC_PORT: values.grpc_port }
  for (const [k, v] of Object.entries(env)) if (v !== undefined) process.env[k] = v
  // The bundle npm start runs (src/layout.ts), not tsc's main.js: the same start-up either way.
  const { main } = await import(MAIN_BUNDLE.href) as typeof import('./main.js')
  await main()
}

export async function run (argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  try {
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      process.stdout.write(USAGE)
      return command === undefined ? 1 : 0
    }
    if (command === 'predict') await predict(rest)
    else if (command === 'explain') await explain(rest)
    else if (command === 'inspect') await inspect(rest)
    else if (command === 'compile') await compile(rest)
    else if (command === 'verify') return await verifyCommand(rest)
    else if (command === 'serve') await serve(rest)
    else if (command === 'keys') await keys(rest)
    else throw new UsageError(`unknown command '${command}'`)
    return 0
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || (err as { code?: string }).code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      process.stderr.write(`tfidf-serve: ${(err as Error).message}\nRun 'tfidf-serve --help' for usage.\n`)
      return 2
    }
    if (err instanceof ServiceError) {
      process.stderr.write(`tfidf-serve: ${err.message}\n`)
      return 1
    }
    // The app's own function failing on a text (explain, verify) is named, in one line.
    if ((err as Error | null)?.name === 'UserFunctionError') {
      process.stderr.write(`tfidf-serve: ${(err as Error).message}\n`)
      return 1
    }
    if ((err as { code?: string }).code === 'ENOENT') {
      process.stderr.write(`tfidf-serve: ${(err as Error).message}\n`)
      return 1
    }
    throw err
  }
}

process.exitCode = await run(process.argv.slice(2))
