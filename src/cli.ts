#!/usr/bin/env node
/**
 * The `tfidf-serve` command: `predict` and `inspect` on model files, `serve` for HTTP.
 * Errors go to stderr as one line with a non-zero exit.
 */
import { once } from 'node:events'
import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import { parseArgs } from 'node:util'
import { ServiceError } from './errors.js'
import { DEFAULT_MODEL_PATH, DEFAULT_VECTORIZER_PATH } from './paths.js'
import { loadModel, type ModelPaths } from './sklearn/load-model.js'
import type { Prediction } from './sklearn/predictor.js'

const USAGE = `Usage: tfidf-serve <command> [options]

Serve scikit-learn TF-IDF text classifiers without Python.

Commands:
  predict [FILE]   classify texts from FILE or stdin, one JSON line out per text
  inspect          describe a model as JSON
  serve            start the HTTP service (configured by environment variables)

Run 'tfidf-serve <command> --help' for a command's options.
`

const MODEL_OPTIONS = `  --model PATH        classifier, Pipeline or bundle file (default: models/final_best_model.pkl)
  --vectorizer PATH   vectorizer file; repeat for CountVectorizer then TfidfTransformer
                      (default: models/tfidf_vectorizer.pkl; ignored when --model holds one)
  -h, --help          show this help`

const HELP: Record<string, string> = {
  predict: `Usage: tfidf-serve predict [options] [FILE]

Reads texts from FILE (or stdin) and writes one JSON line per text:
  {"label": "...", "confidence": 0.93, "proba": [...], "decision": [...]}
Arrays follow the model's class order; "proba" is left out when the model has no
predict_proba, "decision" when it has no decision_function. Numbers are unrounded.

Options:
  --format lines|jsonl  lines: one text per line (default); jsonl: one {"text": "..."} per line
${MODEL_OPTIONS}
`,
  inspect: `Usage: tfidf-serve inspect [options]

Prints the classifier and vectorizer, classes, feature count, the parameters that
matter, the scikit-learn version that wrote each file and the confidence method.

Options:
${MODEL_OPTIONS}
`,
  serve: `Usage: tfidf-serve serve

Starts the HTTP service on PORT (default 8000); configure it with the environment
variables listed in README.md (MODEL_PATH, VECTORIZER_PATH, WORKERS, ...).
`
}

class UsageError extends Error {}

function modelPaths (values: { model?: string, vectorizer?: string[] }): ModelPaths {
  const model = values.model ?? DEFAULT_MODEL_PATH
  const vectorizers = values.vectorizer ?? (values.model === undefined ? [DEFAULT_VECTORIZER_PATH] : [])
  return { model, vectorizers }
}

const MODEL_ARGS = {
  model: { type: 'string' },
  vectorizer: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' }
} as const

export function formatPrediction (p: Prediction): string {
  const out: Record<string, unknown> = { label: p.label, confidence: p.confidence }
  if (p.proba !== undefined) out.proba = Array.from(p.proba)
  if (p.decision !== undefined) out.decision = Array.from(p.decision)
  return JSON.stringify(out)
}

async function predict (argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { ...MODEL_ARGS, format: { type: 'string', default: 'lines' } } })
  if (values.help === true) return void process.stdout.write(HELP.predict)
  if (values.format !== 'lines' && values.format !== 'jsonl') throw new UsageError(`--format must be lines or jsonl, not '${values.format ?? ''}'`)
  if (positionals.length > 1) throw new UsageError('predict takes at most one FILE')
  const { predictor } = await loadModel(modelPaths(values))
  const input = positionals[0] === undefined || positionals[0] === '-' ? process.stdin : createReadStream(positionals[0])
  const lines = createInterface({ input, crlfDelay: Infinity })
  const out = process.stdout
  let lineNo = 0
  let pending = ''
  for await (const line of lines) {
    lineNo++
    const text = values.format === 'lines' ? line : textOfJsonLine(line, lineNo)
    if (text === undefined) continue
    pending += formatPrediction(predictor.predict(text)) + '\n'
    // One write per 64 KiB rather than per line; waiting on back-pressure keeps memory flat.
    if (pending.length >= 65536) {
      const flushed = out.write(pending)
      pending = ''
      if (!flushed) await once(out, 'drain')
    }
  }
  if (pending !== '') out.write(pending)
}

function textOfJsonLine (line: string, lineNo: number): string | undefined {
  if (line.trim() === '') return undefined
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    throw new UsageError(`line ${lineNo} is not JSON`)
  }
  const text = (value as { text?: unknown } | null)?.text
  if (typeof text !== 'string') throw new UsageError(`line ${lineNo} has no "text" string`)
  return text
}

async function inspect (argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: MODEL_ARGS })
  if (values.help === true) return void process.stdout.write(HELP.inspect)
  const { predictor, notes } = await loadModel(modelPaths(values))
  const info = predictor.info
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
    notes
  }, null, 2) + '\n')
}

async function serve (argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) return void process.stdout.write(HELP.serve)
  const { main } = await import('./main.js')
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
    else if (command === 'inspect') await inspect(rest)
    else if (command === 'serve') await serve(rest)
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
    if ((err as { code?: string }).code === 'ENOENT') {
      process.stderr.write(`tfidf-serve: ${(err as Error).message}\n`)
      return 1
    }
    throw err
  }
}

process.exitCode = await run(process.argv.slice(2))
